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

type Selected = Pick<CheckExecution, 'checkId' | 'operation' | 'format' | 'caseId' | 'step'>;

/** Is this execution one of the waiver's check, on its operation and in its format, whatever its case and answer? */
export function concerns(waiver: Pick<Waiver, 'check' | 'operation' | 'format'>, e: Omit<Selected, 'caseId' | 'step'>): boolean {
  return waiver.check === e.checkId && (waiver.operation === undefined || waiver.operation === e.operation) && (waiver.format === undefined || waiver.format === e.format);
}

/** Is this execution one of the waiver's check, on its operation and format, in its cases and at its steps, whatever it answered? */
export function selects(waiver: Pick<Waiver, 'check' | 'operation' | 'format' | 'case' | 'step'>, e: Selected): boolean {
  return concerns(waiver, e) && (waiver.case === undefined || waiver.case.includes(e.caseId)) && (waiver.step === undefined || e.step.includes(waiver.step));
}

/** The status of the answer a failure was judged on, or null when nothing was answered. */
function answeredStatus(e: Pick<CheckExecution, 'exchange'>): number | null {
  return e.exchange?.response?.status ?? null;
}

/** The business code of a JSON answer (`{"code": "132", …}`), if it carries one. */
function businessCodeOf(e: Pick<CheckExecution, 'exchange'>): string | undefined {
  const body = e.exchange?.response?.body;
  if (body === undefined || !/^\s*\{/.test(body)) return undefined;
  try {
    const value: unknown = JSON.parse(body);
    const code = value !== null && typeof value === 'object' ? (value as Record<string, unknown>).code : undefined;
    return typeof code === 'string' || typeof code === 'number' ? String(code) : undefined;
  } catch {
    return undefined;
  }
}

/** Does the failure look like the deviation the waiver describes (its statuses, and its code and text when given)? */
export function looksLike(waiver: Pick<Waiver, 'statuses' | 'code' | 'text'>, e: Pick<CheckExecution, 'exchange'>): boolean {
  const status = answeredStatus(e);
  if (status === null || !waiver.statuses.includes(status)) return false;
  if (waiver.code !== undefined && businessCodeOf(e) !== waiver.code) return false;
  if (waiver.text !== undefined && !(e.exchange?.response?.body ?? '').includes(waiver.text)) return false;
  return true;
}

/** A failure the waiver matches: its check, operation, format and case, and an answer that looks like the deviation. */
export function matches(waiver: Waiver, e: Selected & Pick<CheckExecution, 'exchange'>): boolean {
  return selects(waiver, e) && looksLike(waiver, e);
}

/** What a waiver covers, in words: `status.not-found on mergeIswcMetadata answering 400 with code "132"`. */
export function coversText(w: Pick<Waiver, 'check' | 'operation' | 'format' | 'statuses' | 'case' | 'step' | 'code' | 'text'>): string {
  return [
    `${w.check} on ${w.operation ?? 'any operation'}${w.format ? ` (${w.format})` : ''}`,
    w.case !== undefined ? `in case ${w.case.join(' or ')}` : '',
    w.step !== undefined ? `at a step naming "${w.step}"` : '',
    `answering ${w.statuses.join(' or ')}`,
    w.code !== undefined ? `with code "${w.code}"` : '',
    w.text !== undefined ? `holding "${w.text}"` : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
}

/**
 * What a failure that a waiver of its check did not match came with: `answered 500 with code "100"`, `got no
 * answer`; and its case, when a waiver it missed names cases (`in case run.start-and-end answered 201`).
 */
function cameText(e: Pick<CheckExecution, 'exchange' | 'caseId' | 'step'>, near: readonly Pick<Waiver, 'case' | 'step'>[]): string {
  const where = `${near.some((w) => w.case !== undefined) ? `in case ${e.caseId} ` : ''}${near.some((w) => w.step !== undefined) ? `at step "${e.step}" ` : ''}`;
  const status = answeredStatus(e);
  if (status === null) return `${where}got no answer`;
  const code = businessCodeOf(e);
  return `${where}answered ${status}${code !== undefined ? ` with code "${code}"` : ''}`;
}

/** The more a waiver names, the earlier it is tried: its reason is the more precise one. */
function specificity(w: Waiver): number {
  return (w.operation === undefined ? 0 : 4) + (w.format === undefined ? 0 : 2) + (w.case === undefined ? 0 : 8) + (w.step === undefined ? 0 : 8) + (w.code === undefined && w.text === undefined ? 0 : 1);
}

export interface AppliedWaivers {
  /** The executions in their order; each failure a live waiver matches is now `waived`, carrying it. */
  executions: CheckExecution[];
  /** Every waiver with its status and how many executions it waived, in file order. */
  uses: WaiverUse[];
}

/** How a failure a waiver of its check did not match reads after what it received. */
export const NOT_WAIVED = ' — not waived: ';

/**
 * The one place waivers act, called where a Playwright test decides whether to throw and where a report
 * is built (live run, merged blob reports, in-process): a `fail` matched by a live waiver (same check;
 * same operation, format and case when the waiver names them; an answer with one of its statuses, and its
 * code and text when given; `until` today or later) becomes `waived`. A failure of a live waiver's check,
 * operation and format that looks otherwise (another answer, or another case) stays a failure, and its
 * `received` says what the waiver covers and what came instead. Nothing else changes: a waiver never
 * touches a pass, a skip or an observation. The input is not modified. Applying twice gives the same result.
 */
export function applyWaivers(executions: readonly CheckExecution[], waivers: readonly Waiver[], today: string): AppliedWaivers {
  const live = waivers.filter((w) => isLive(w, today)).sort((a, b) => specificity(b) - specificity(a) || a.index - b.index);
  const counts = new Map<number, number>();
  const missed = new Map<number, number>();
  const exercised = new Set<number>();
  const out = executions.map((given): CheckExecution => {
    const e = restored(given);
    if (e.verdict === 'pass' || e.verdict === 'fail') for (const w of waivers) if (selects(w, e)) exercised.add(w.index);
    if (e.verdict !== 'fail') return e;
    const waiver = live.find((w) => matches(w, e));
    if (waiver) {
      counts.set(waiver.index, (counts.get(waiver.index) ?? 0) + 1);
      return { ...e, verdict: 'waived', waiver: { reason: waiver.reason, until: waiver.until, index: waiver.index } };
    }
    // A failure of a live waiver's check, operation and format that it did not waive (another answer, or
    // another case) says what the waiver covers and what came instead: the issue's "looks otherwise".
    const near = live.filter((w) => concerns(w, e));
    if (near.length === 0) return e;
    for (const w of near) missed.set(w.index, (missed.get(w.index) ?? 0) + 1);
    const note = `${NOT_WAIVED}${near.map((w) => `waiver ${w.index} covers ${coversText(w)}`).join('; ')}; this ${cameText(e, near)}`;
    return { ...e, received: `${e.received ?? ''}${note}`, waiverMiss: note };
  });
  const uses = waivers.map((w): WaiverUse => {
    const count = counts.get(w.index) ?? 0;
    const status: WaiverStatus = !isLive(w, today) ? 'expired' : count > 0 ? 'used' : exercised.has(w.index) ? 'unused' : 'not exercised';
    return { ...w, status, count, covers: coversText(w), missed: missed.get(w.index) ?? 0 };
  });
  return { executions: out, uses };
}

/** An execution as judged, before any waiver: a waived one is the failure it is, a missed one loses its note. */
function restored(e: CheckExecution): CheckExecution {
  if (e.verdict === 'waived') {
    const { waiver: _waiver, ...rest } = e;
    return { ...rest, verdict: 'fail' };
  }
  if (e.waiverMiss !== undefined) {
    const { waiverMiss, ...rest } = e;
    const received = rest.received ?? '';
    return { ...rest, received: received.endsWith(waiverMiss) ? received.slice(0, received.length - waiverMiss.length) : received };
  }
  return e;
}

/** How many waivers waived a failure of these executions: the one figure every report gives for waivers. */
export function waiversUsed(executions: readonly CheckExecution[]): number {
  return new Set(executions.filter((e) => e.verdict === 'waived').map((e) => e.waiver?.index ?? -1)).size;
}

/** `waived: <reason> (until <day>)`: how a waived execution reads in every report. */
export function waivedText(waiver: { reason: string; until: string }): string {
  return `waived: ${waiver.reason} (until ${waiver.until})`;
}
