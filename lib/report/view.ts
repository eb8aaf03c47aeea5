/** Small read-only helpers shared by the writers: labels, grouping and ordering of executions. */
import type { CheckExecution, Level, Verdict } from '../run/execution.ts';
import { allChecks } from '../check/registry.ts';
import { OPERATION_IDS, OPERATION_LABEL } from '../contract/operations.ts';
import type { OperationId } from '../contract/operations.ts';
import type { Exchange } from '../contract/exchange.ts';
import { cut } from './escape.ts';
import type { Tally } from './model.ts';
import { emptyTally } from './model.ts';

export const FORMATS = ['json', 'xml'] as const;
export const VERDICTS: readonly Verdict[] = ['fail', 'waived', 'skip', 'observed', 'pass'];
export const OTHER = 'other';

/** Operation ids in document order, then `other` for requests outside the documented operations. */
export const OPERATION_KEYS: readonly string[] = [...OPERATION_IDS, OTHER];

export function operationKey(e: Pick<CheckExecution, 'operation'>): string {
  return e.operation ?? OTHER;
}

export function operationLabel(key: string): string {
  if (key === 'cors-preflight') return 'CORS preflights (the browser\'s, not judged)';
  return key === OTHER ? 'outside the documented operations' : (OPERATION_LABEL[key as OperationId] ?? key);
}

/** The worst verdict of a group: fail, then waived, then skip, then observed, then pass. */
export function worstVerdict(t: Tally): Verdict | null {
  for (const v of VERDICTS) if (t[v] > 0) return v;
  return null;
}

export function tallyOf(executions: readonly CheckExecution[]): Tally {
  const t = emptyTally();
  for (const e of executions) t[e.verdict] += 1;
  return t;
}

export interface CheckInfo {
  id: string;
  level: Level;
  description: string;
}

/**
 * Check descriptions from the registry, in registry order; a report from another harness version may
 * name unknown checks. Sections are not a property of a check here: each execution cites its own
 * (lib/check/sections.ts), and a group shows the union of its executions' (`sectionsOf`).
 */
export function checkInfo(executions: readonly CheckExecution[]): Map<string, CheckInfo> {
  const out = new Map<string, CheckInfo>();
  const known = new Map(allChecks().map((c) => [c.id, c]));
  const order = new Map(allChecks().map((c, i) => [c.id, i]));
  for (const e of executions) {
    if (out.has(e.checkId)) continue;
    out.set(e.checkId, { id: e.checkId, level: e.level, description: known.get(e.checkId)?.description ?? '' });
  }
  return new Map([...out.entries()].sort(([a], [b]) => (order.get(a) ?? 1e9) - (order.get(b) ?? 1e9) || a.localeCompare(b)));
}

/** Document sections before other references, numerically (2.4 before 2.10), then by name. */
export function compareSections(a: string, b: string): number {
  const num = (s: string) => (/^\d+(\.\d+)*$/.test(s) ? s.split('.').map(Number) : null);
  const x = num(a);
  const y = num(b);
  if (x && y) {
    for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
      const d = (x[i] ?? -1) - (y[i] ?? -1);
      if (d !== 0) return d;
    }
    return 0;
  }
  if (x) return -1;
  if (y) return 1;
  return a.localeCompare(b);
}

/** The sections a group of executions cites, each once, in document order. */
export function sectionsOf(executions: readonly Pick<CheckExecution, 'sections'>[]): string[] {
  return [...new Set(executions.flatMap((e) => e.sections))].sort(compareSections);
}

export function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/** One line per exchange: `POST /agent/run → 400 text/plain (11 bytes)`. */
export function exchangeLine(x: Exchange): string {
  let target = x.request.url;
  try {
    const u = new URL(x.request.url);
    target = `${u.pathname}${u.search}`;
  } catch {
    // keep the URL as recorded
  }
  const answer = x.response
    ? `${x.response.status} ${x.response.headers['content-type'] ?? '(no content type)'} (${x.response.bodyBytes} bytes)`
    : `transport error ${x.error?.code ?? '?'}: ${x.error?.message ?? ''}`;
  return `${x.request.method} ${target} → ${answer}`;
}

/** Headers as `Name: value` lines. */
export function headerLines(h: Record<string, string>): string {
  return Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

export function sectionsText(sections: readonly string[]): string {
  return sections.map((s) => (/^\d/.test(s) ? `§${s}` : s)).join(', ');
}

/** An exchange as the reports show it: the request and the response (or transport error) as text, and timing. */
export interface ExchangeTexts {
  request: string;
  response: string;
  /** `12 ms`, `340 ms, 2 attempts` */
  timing: string;
}

/** Bodies cut at `bodyLimit` characters for display; conformance.json keeps what the client recorded. */
export function exchangeTexts(x: Exchange, bodyLimit: number): ExchangeTexts {
  const req = x.request;
  const request = `${req.method} ${req.url}\n${headerLines(req.headers)}${req.body ? `\n\n${cut(req.body, bodyLimit)}` : ''}${req.bodyTruncated ? `\n[request body cut: ${req.bodyBytes} bytes sent]` : ''}`;
  const response = x.response
    ? `HTTP ${x.response.status}\n${headerLines(x.response.headers)}${x.response.body ? `\n\n${cut(x.response.body, bodyLimit)}` : ''}${x.response.truncated ? `\n[response cut: ${x.error ? `${x.error.code}: ${x.error.message}` : `${x.response.bodyBytes} bytes came`}]` : ''}`
    : `transport error ${x.error?.code ?? '?'}: ${x.error?.message ?? ''}`;
  return { request, response, timing: `${Math.round(x.durationMs)} ms${x.attempts > 1 ? `, ${x.attempts} attempts` : ''}` };
}
