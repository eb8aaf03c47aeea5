import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateWith } from '../validators.ts';
import type { TargetProfile } from './types.ts';
import { PROFILE_DEFAULTS } from './types.ts';

export class ProfileError extends Error {
  readonly code = 'ISWC_PROFILE_INVALID';
}

/** Checks a parsed profile against `schemas/target-profile.schema.json` and for contradictions. */
export function parseProfile(value: unknown, source: string): TargetProfile {
  const violations = validateWith('target-profile.schema.json', value);
  if (violations.length > 0) {
    const lines = violations.map((v) => `  at ${v.path}: ${v.message}`).join('\n');
    throw new ProfileError(`Target profile ${source} does not match schemas/target-profile.schema.json:\n${lines}`);
  }
  const profile: TargetProfile = { ...PROFILE_DEFAULTS, ...(value as Partial<TargetProfile>) } as TargetProfile;
  const known = new Set(profile.iswcs);
  const clash = profile.unknownIswcs.filter((i) => known.has(i));
  if (clash.length > 0) throw new ProfileError(`Target profile ${source}: ${clash.join(', ')} listed both in iswcs and in unknownIswcs`);
  return profile;
}

export function loadProfile(file: string): TargetProfile {
  const resolved = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(resolved, 'utf8');
  } catch (e) {
    throw new ProfileError(`Cannot read target profile ${file}: ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ProfileError(`Target profile ${file} is not valid JSON: ${(e as Error).message}`);
  }
  return parseProfile(value, file);
}
