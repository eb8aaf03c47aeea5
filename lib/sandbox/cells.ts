import { hash } from 'node:crypto';
import type { ClientRequest, RequestView } from '../check/client/types.ts';
import type { OperationId } from '../contract/operations.ts';
import { OPERATION_IDS } from '../contract/operations.ts';
import type { CellFormat } from '../report/client/model.ts';

/** What a session saw of one operation in one body format: requests, successes, the other answers. */
export interface CellTally {
  operation: OperationId;
  format: CellFormat;
  requests: number;
  succeeded: number;
  /** Statuses other than success, and `reset`, with counts; requests never answered are `none` (added by list()). */
  answers: Record<string, number>;
}

const FORMAT_ORDER: readonly CellFormat[] = ['json', 'xml', 'none'];

/** The operation × format tallies of a session: what the client exercised and whether it worked. */
export class CellTallies {
  private readonly cells = new Map<string, CellTally & { answered: number }>();

  private cell(operation: OperationId, format: CellFormat): CellTally & { answered: number } {
    const key = `${operation} ${format}`;
    let c = this.cells.get(key);
    if (!c) this.cells.set(key, (c = { operation, format, requests: 0, succeeded: 0, answers: {}, answered: 0 }));
    return c;
  }

  /** A request of this operation in this format was judged. */
  sent(operation: OperationId, format: CellFormat): void {
    this.cell(operation, format).requests += 1;
  }

  /** What one of them got: a status (2xx is a success) or a reset connection. */
  answered(operation: OperationId, format: CellFormat, answer: number | 'reset'): void {
    const c = this.cell(operation, format);
    c.answered += 1;
    if (typeof answer === 'number' && answer >= 200 && answer < 300) c.succeeded += 1;
    else c.answers[String(answer)] = (c.answers[String(answer)] ?? 0) + 1;
  }

  /** Every cell, in document order of the operations, then JSON, XML, none; unanswered requests as `none`. */
  list(): CellTally[] {
    return [...this.cells.values()]
      .sort((a, b) => OPERATION_IDS.indexOf(a.operation) - OPERATION_IDS.indexOf(b.operation) || FORMAT_ORDER.indexOf(a.format) - FORMAT_ORDER.indexOf(b.format))
      .map(({ answered, ...c }) => {
        const unanswered = c.requests - answered;
        return { ...c, answers: unanswered > 0 ? { ...c.answers, none: unanswered } : { ...c.answers } };
      });
  }
}

/** How deep a body's value is read for its data key; deeper (never a documented resource) is keyed by its bytes. */
const DATA_KEY_DEPTH = 16;

/** Canonical text of a value (keys sorted), or undefined when it nests deeper than DATA_KEY_DEPTH. */
function canonical(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= DATA_KEY_DEPTH) return undefined;
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = canonical(item, depth + 1);
      if (text === undefined) return undefined;
      parts.push(text);
    }
    return `[${parts.join(',')}]`;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const text = canonical(v, depth + 1);
    if (text === undefined) return undefined;
    parts.push(`${JSON.stringify(k)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * "The same operation with the same data": the method and path, the query parameters (decoded, in any
 * order) and the body's value (in any spacing or key order; its bytes when it does not parse), hashed.
 * A retry of a request is the same data whatever its headers (a key put right, another User-Agent).
 */
export function dataKeyOf(request: ClientRequest, view: RequestView): string {
  const query = view.query.map((p) => `${p.name}=${p.value}`).sort().join('&');
  const parsed = view.parsed?.ok ? canonical(view.parsed.value, 0) : undefined;
  const body = parsed ?? (request.tooLarge ? 'too-large' : hash('sha1', request.body, 'base64'));
  return hash('sha1', `${request.method} ${request.path}?${query} ${body}`, 'base64');
}
