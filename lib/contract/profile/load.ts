import { readFileSync } from 'node:fs';
import path from 'node:path';
import { handWrittenSchema, schemaErrors } from '../validators.ts';
import type { ProfileProblem } from './messages.ts';
import { lineAndColumn, profileProblems } from './messages.ts';
import type { MergeEntry, TargetProfile } from './types.ts';
import { PROFILE_DEFAULTS } from './types.ts';

export const PROFILE_SCHEMA = 'target-profile.schema.json';

/**
 * Where JSON.parse stopped, as a line and a column of the file: from the position its message gives (V8
 * writes "at position N", newer ones "(line L column C)"), and at the end of the file when the text ran
 * out ("Unexpected end of JSON input").
 */
export function syntaxErrorAt(message: string, body: string): { line: number; column: number } {
  const lc = /\(line (\d+) column (\d+)\)/.exec(message);
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]) };
  const at = /at position (\d+)/.exec(message);
  return lineAndColumn(body, at ? Number(at[1]) : body.length);
}

/** A target profile that cannot be used: the file, and every problem with its JSON path. Printed as it is, never with a stack. */
export class ProfileError extends Error {
  readonly code = 'ISWC_PROFILE_INVALID';
  constructor(
    message: string,
    readonly file = '',
    readonly problems: readonly ProfileProblem[] = [],
  ) {
    super(message);
    this.name = 'ProfileError';
    // A mistake in the user's file, not in the code: whoever prints the stack (Playwright's global setup
    // does) prints the message alone.
    this.stack = `${this.name}: ${message}`;
  }
}

function problemsText(source: string, problems: readonly ProfileProblem[]): string {
  const lines = problems.map((p) => `  ${p.path === '' ? '(the whole file)' : p.path}: ${p.message}`);
  return `Target profile ${source} is not valid:\n${lines.join('\n')}\nThe fields are described in schemas/${PROFILE_SCHEMA}, docs/configuration.md and docs/target-profile.md.`;
}

/** The default name of a profile: its file's name without `.json`. */
export function defaultProfileName(source: string): string {
  return path.basename(source).replace(/\.json$/i, '') || source;
}

function withoutComment<T extends object>(entry: T): T {
  if (!Object.hasOwn(entry, '$comment')) return entry;
  const copy = { ...entry } as Record<string, unknown>;
  delete copy.$comment;
  return copy as T;
}

/**
 * Checks a parsed profile against `schemas/target-profile.schema.json` and for contradictions, and fills
 * in what a profile may leave out: `name` (the file's name), the disposable lists (empty), a merge entry's
 * `iswcs` and `agencyWorks` (empty), `reasonCode` and `xmlArrays`.
 */
export function parseProfile(value: unknown, source: string): TargetProfile {
  const errors = schemaErrors(PROFILE_SCHEMA, value);
  if (errors.length > 0) {
    const problems = profileProblems(errors, value, handWrittenSchema(PROFILE_SCHEMA));
    throw new ProfileError(problemsText(source, problems), source, problems);
  }
  // Notes for people (`$comment`) are dropped here: entries carry only the data the harness sends.
  const raw = withoutComment(value as Partial<TargetProfile>);
  const merges = (raw.merges ?? []).map((m): MergeEntry => ({ ...withoutComment(m), iswcs: m.iswcs ?? [], agencyWorks: m.agencyWorks ?? [] }));
  const demerges = (raw.demerges ?? []).map((d) => withoutComment(d));
  const submissions = (raw.submissions ?? []).map((d) => withoutComment(d));
  const profile: TargetProfile = { ...PROFILE_DEFAULTS, name: defaultProfileName(source), ...raw, merges, demerges, submissions } as TargetProfile;
  const known = new Set(profile.iswcs);
  const clash = profile.unknownIswcs.flatMap((iswc, i) => (known.has(iswc) ? [{ path: `unknownIswcs[${i}]`, message: `${iswc} is also listed in iswcs: an ISWC either exists in the target or does not; list it in one of the two` }] : []));
  if (clash.length > 0) throw new ProfileError(problemsText(source, clash), source, clash);
  return profile;
}

/** Reads and checks a profile file; `shown` is how messages name it (the path as the caller typed it). */
export function loadProfile(file: string, shown = file): TargetProfile {
  const resolved = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(resolved, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    throw new ProfileError(`Cannot read target profile ${shown}: ${why}`, shown);
  }
  let value: unknown;
  const body = text.replace(/^\uFEFF/, '');
  try {
    value = JSON.parse(body);
  } catch (e) {
    const message = (e as Error).message;
    const where = syntaxErrorAt(message, body);
    const what = message.replace(/ in JSON at position \d+.*$/, '').replace(/\s*\(line \d+ column \d+\)$/, '') + trailingCommaHint(body, /at position (\d+)/.exec(message)?.[1]);
    const problem = { path: '', message: `not valid JSON at line ${where.line}, column ${where.column}: ${what}` };
    throw new ProfileError(`Target profile ${shown} is not valid JSON (line ${where.line}, column ${where.column}): ${what}`, shown, [problem]);
  }
  return parseProfile(value, shown);
}

/** Where JSON.parse stopped at a closing bracket right after a comma: the mistake JSON makes most often, named. */
function trailingCommaHint(body: string, position: string | undefined): string {
  if (position === undefined) return '';
  const at = Number(position);
  const before = body.slice(0, at).trimEnd();
  return before.endsWith(',') && /^[}\]]/.test(body.slice(at).trimStart()) ? ' (a comma before it: JSON allows none after the last member of an object or array)' : '';
}
