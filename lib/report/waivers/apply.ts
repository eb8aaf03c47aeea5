import type { CheckExecution } from '../../run/execution.ts';
import type { Waiver, WaiverStatus, WaiverUse } from './types.ts';

/** The UTC day of a moment, YYYY-MM-DD: what `until` is compared with. */
export function utcDay(moment: Date = new Date()): string {
  return moment.toISOString().slice(0, 10);
}

/** A waiver applies through the whole of its `until` day (UTC): `until` = today is live. */
export function isLive(waiver: Pick<Waiver, 'until'>, today: string): boolean {
  return waiver.until >= today;
}

export function matches(waiver: Waiver, e: Pick<CheckExecution, 'checkId' | 'operation' | 'format'>): boolean {
  return waiver.check === e.checkId && (waiver.operation === undefined || waiver.operation === e.operation) && (waiver.format === undefined || waiver.format === e.format);
}

/** The more a waiver names, the earlier it is tried: its reason is the more precise one. */
function specificity(w: Waiver): number {
  return (w.operation === undefined ? 0 : 2) + (w.format === undefined ? 0 : 1);
}

export interface AppliedWaivers {
  /** The executions in their order; each failure a live waiver matches is now `waived`, carrying it. */
  executions: CheckExecution[];
  /** Every waiver with its status and how many executions it waived, in file order. */
  uses: WaiverUse[];
}

/**
 * The one place waivers act, called where a Playwright test decides whether to throw and where a report
 * is built (live run, merged blob reports, in-process): a `fail` matched by a live waiver (same check;
 * same operation and format when the waiver names them; `until` today or later) becomes `waived`.
 * Nothing else changes: a waiver never touches a pass, a skip or an observation. The input is not
 * modified. An execution already `waived` is judged again as the failure it is, so applying twice is safe.
 */
export function applyWaivers(executions: readonly CheckExecution[], waivers: readonly Waiver[], today: string): AppliedWaivers {
  const live = waivers.filter((w) => isLive(w, today)).sort((a, b) => specificity(b) - specificity(a) || a.index - b.index);
  const counts = new Map<number, number>();
  const out = executions.map((given): CheckExecution => {
    const e = given.verdict === 'waived' ? unwaived(given) : given;
    if (e.verdict !== 'fail') return e;
    const waiver = live.find((w) => matches(w, e));
    if (!waiver) return e;
    counts.set(waiver.index, (counts.get(waiver.index) ?? 0) + 1);
    return { ...e, verdict: 'waived', waiver: { reason: waiver.reason, until: waiver.until, index: waiver.index } };
  });
  const uses = waivers.map((w): WaiverUse => {
    const count = counts.get(w.index) ?? 0;
    const status: WaiverStatus = !isLive(w, today) ? 'expired' : count > 0 ? 'used' : 'unused';
    return { ...w, status, count };
  });
  return { executions: out, uses };
}

function unwaived(e: CheckExecution): CheckExecution {
  const { waiver: _waiver, ...rest } = e;
  return { ...rest, verdict: 'fail' };
}

/** `waived: <reason> (until <day>)`: how a waived execution reads in every report. */
export function waivedText(waiver: { reason: string; until: string }): string {
  return `waived: ${waiver.reason} (until ${waiver.until})`;
}
