import type { CheckExecution } from '../../run/execution.ts';
import { plural } from '../verdict.ts';
import type { WaiverFigures, WaiverUse } from './types.ts';

/**
 * The one set of figures every output gives for a run's waivers (issue 30: the console, conformance.json,
 * the HTML, JUnit, the certificate and `certify` all say these, and nothing else counts "waivers"):
 * how many entries were used, not exercised, unused and expired, and how many failures of a waived
 * check looked otherwise, so were not waived and fail (missed). Figures of check executions ("16 waived"
 * in a level's line) are executions, and say so.
 */
export function waiverFigures(entries: readonly Pick<WaiverUse, 'status'>[], executions: readonly Pick<CheckExecution, 'verdict' | 'waiverMiss'>[]): WaiverFigures {
  const count = (status: WaiverUse['status']): number => entries.filter((w) => w.status === status).length;
  return {
    entries: entries.length,
    used: count('used'),
    notExercised: count('not exercised'),
    unused: count('unused'),
    expired: count('expired'),
    // A failure near two waivers of its check is one failure: counted from the executions, never summed per waiver.
    missed: executions.filter((e) => e.verdict === 'fail' && e.waiverMiss !== undefined).length,
  };
}

/** `4 used, 2 not exercised, 2 unused, 0 expired; 0 failures looked otherwise (not waived)`: the figures in words, the same in every output. */
export function waiverFiguresText(f: WaiverFigures): string {
  return `${f.used} used, ${f.notExercised} not exercised, ${f.unused} unused, ${f.expired} expired; ${plural(f.missed, 'failure')} looked otherwise (not waived)`;
}
