import type { WaiverProblem } from './types.ts';

export const WAIVERS_SCHEMA = 'waivers.schema.json';

/** A waivers file that cannot be used: every problem with the file, the entry (index and line) and what is wrong. */
export class WaiverError extends Error {
  readonly code = 'ISWC_WAIVERS_INVALID';
  constructor(
    readonly file: string,
    readonly problems: WaiverProblem[],
  ) {
    super(`Invalid waivers file ${file} (ISWC_WAIVERS, schemas/${WAIVERS_SCHEMA}):\n${problems.map(formatWaiverProblem).join('\n')}`);
  }
}

/** `  file:4:9 entry 1 (until): "2026-02-30" is not a date`. */
export function formatWaiverProblem(p: WaiverProblem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}:${p.col ?? 1}` : p.file;
  const field = p.path.split('/').slice(2).join('.');
  const entry = p.index !== undefined ? ` entry ${p.index}${field ? ` (${field})` : ''}` : '';
  return `  ${where}${entry}: ${p.message}`;
}
