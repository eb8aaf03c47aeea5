import type { Level } from '../generate/expectations.ts';

/** Does a failure at this level fail the run? `spec` always; `http` with ISWC_STRICT=1; `observed` never. */
export function gating(level: Level, strict: boolean): boolean {
  return level === 'spec' || (level === 'http' && strict);
}
