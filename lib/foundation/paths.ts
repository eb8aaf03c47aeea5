import { fileURLToPath } from 'node:url';
import path from 'node:path';

/**
 * Absolute path of the repository root: this file lives in `lib/foundation/`, except in the command
 * line's bundle (bin/prebuilt.mjs), whose launcher says where the repository is.
 */
export const repoRoot = givenRoot() ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function givenRoot(): string | undefined {
  const given: unknown = Reflect.get(globalThis, Symbol.for('iswc-conformance.repoRoot'));
  return typeof given === 'string' ? given : undefined;
}

export function fromRoot(...segments: string[]): string {
  return path.join(repoRoot, ...segments);
}

/**
 * Set by the commands that start a run for the run's processes, which start in the repository: the
 * directory the caller ran the command in, so that the paths they print are the caller's.
 */
export const CALLER_CWD_VARIABLE = 'ISWC_CALLER_CWD';

/** The directory the caller ran the command in (this process's own outside a run started by a command). */
export function callerCwd(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env[CALLER_CWD_VARIABLE] || process.cwd();
}

/** A path as the caller reads it: relative to their directory when it is under it, else absolute. */
export function shownPath(file: string, cwd: string = callerCwd()): string {
  const absolute = path.resolve(cwd, file);
  const rel = path.relative(cwd, absolute);
  if (rel === '') return '.';
  return rel.startsWith('..') || path.isAbsolute(rel) ? absolute : rel;
}
