import type { CheckExecution } from '../run/execution.ts';
import { waiversUsed } from './waivers/apply.ts';

/**
 * A deviation: one check failing on one operation, however many requests show it. What a team decides on
 * (fix it or waive it: a waiver names a check and an operation), so the headline counts these, not the
 * hundreds of executions behind them.
 */
export interface Deviation {
  checkId: string;
  /** null: requests outside the document (an unknown path, another method). */
  operation: string | null;
  level: CheckExecution['level'];
  /** Executions behind it. */
  count: number;
  first: CheckExecution;
}

/** The deviations of these executions with this verdict ('fail', or 'waived' for the known ones), by check then operation. */
export function deviations(executions: readonly CheckExecution[], verdict: 'fail' | 'waived'): Deviation[] {
  const byKey = new Map<string, Deviation>();
  for (const e of executions) {
    if (e.verdict !== verdict) continue;
    const key = `${e.checkId}\u0001${e.operation ?? ''}`;
    const known = byKey.get(key);
    if (known) known.count += 1;
    else byKey.set(key, { checkId: e.checkId, operation: e.operation ?? null, level: e.level, count: 1, first: e });
  }
  return [...byKey.values()].sort((a, b) => a.checkId.localeCompare(b.checkId) || (a.operation ?? '').localeCompare(b.operation ?? ''));
}

/** "3 deviations", "1 deviation", "no deviation". */
export function deviationCount(n: number): string {
  return n === 0 ? 'no deviation' : `${n} deviation${n === 1 ? '' : 's'}`;
}

/**
 * The headline: "2 deviations (a check failing on one operation counts once, …); 5 waivers used" (or "no deviation left: 5
 * waivers used"): what a run's failures come to. What is waived is counted in waivers used,
 * the one figure every report gives for waivers (lib/report/waivers/apply.ts waiversUsed).
 */
export function deviationsHeadline(executions: readonly CheckExecution[]): string {
  const failing = deviations(executions, 'fail').length;
  const used = waiversUsed(executions);
  const waived = `${used} waiver${used === 1 ? '' : 's'} used`;
  if (failing === 0 && used > 0) return `no deviation left: ${waived}`;
  return `${deviationCount(failing)} (a check failing on one operation counts once, however many requests show it)${used > 0 ? `; ${waived}` : ''}`;
}
