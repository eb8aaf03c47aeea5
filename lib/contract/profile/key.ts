import { createHash } from 'node:crypto';
import type { TargetProfile } from './types.ts';

const keys = new WeakMap<TargetProfile, string>();

/**
 * A key of everything a profile holds, for the caches of what is built from it (its cases, their shapes):
 * two profiles of one name may hold different data. Worked out once per profile object.
 */
export function profileKey(profile: TargetProfile): string {
  let key = keys.get(profile);
  if (key === undefined) {
    key = createHash('sha256').update(JSON.stringify(profile)).digest('hex');
    keys.set(profile, key);
  }
  return key;
}
