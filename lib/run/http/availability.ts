/**
 * Is the target as a whole unavailable (maintenance, a gateway that cannot reach it), or does it answer
 * 5xx to one kind of request only? Production answers maintenance with a 503 that carries no Retry-After
 * (docs/production.md), and a gateway in front answers 502 or 504 while the service behind it is away: waited out
 * with back-off, never a finding. A server that answers 5xx to one kind of request (a crash on a
 * malformed body) is a finding: a 5xx answer is judged unless the target shows it is unavailable for
 * every request.
 *
 * The evidence is the run's own traffic: a request that keeps getting such an answer while another
 * request of the run is answered otherwise is request-specific, and its answer is judged at once. The
 * target is unavailable when, since its last other answer, two different requests or more got them. Until
 * one of the two is known, the request is retried with back-off; when its retries are spent without the
 * target answering anything else, the run stops on "target unavailable" if two requests or more were
 * affected, and the answer is judged otherwise (one request, alone in flight, says nothing of the rest).
 */

import { createHash } from 'node:crypto';
import type { RequestSpec } from '../../contract/exchange.ts';

/** 502, 503 without Retry-After, 504: what a target in maintenance, or a gateway without its backend, answers. */
export function isUnavailableAnswer(status: number, retryAfter: string | undefined): boolean {
  return status === 502 || status === 504 || (status === 503 && retryAfter === undefined);
}

/**
 * A request's kind, for telling one request that fails from a target that does: method, path, query and body.
 * Two different requests answered so, and nothing else since, show the target away, whether they go to one
 * path or two: a run whose first requests in flight were all run notifications (the key's proofs, in parallel)
 * judged their maintenance 503s as findings when kinds were paths.
 */
export function requestKind(spec: Pick<RequestSpec, 'method' | 'path' | 'query' | 'rawQuery' | 'body'>): string {
  const query = spec.rawQuery ?? new URLSearchParams(spec.query?.map(([name, value]) => [name, value])).toString();
  // A digest: a body may be megabytes (an oversized one), and a kind is a key kept while the spell lasts.
  const digest = spec.body === undefined ? '' : createHash('sha256').update(spec.body).digest('base64');
  return `${spec.method.toUpperCase()} ${spec.path}?${query} ${digest}`;
}

/** Resends of a request answered 502, 503 (no Retry-After) or 504, and the first back-off (doubled each time). */
export const UNAVAILABLE_RETRIES = 6;
export const UNAVAILABLE_FIRST_BACKOFF_MS = 1000;
/** The whole wait of those resends by default: 1 + 2 + 4 + 8 + 16 + 32 s. */
export const UNAVAILABLE_WAIT_MS = UNAVAILABLE_FIRST_BACKOFF_MS * (2 ** UNAVAILABLE_RETRIES - 1);

/** The first back-off whose doublings over the resends add up to `waitMs` (ISWC_MAINTENANCE_WAIT). */
export function firstBackoffFor(waitMs: number): number {
  return waitMs / (2 ** UNAVAILABLE_RETRIES - 1);
}

export class Availability {
  /** When the target last gave an answer that was not one of these (performance.now()). */
  private lastAnsweredAt = Number.NEGATIVE_INFINITY;
  /** Kinds of request answered 502/503/504 since then, with when they first were. */
  private readonly unavailable = new Map<string, number>();
  private readonly waiters = new Set<() => void>();

  /** An answer that is not one of these: the target is there. */
  answered(now: number): void {
    this.lastAnsweredAt = now;
    if (this.unavailable.size > 0) {
      this.unavailable.clear();
      for (const wake of [...this.waiters]) wake();
    }
  }

  /** A 502, 503 without Retry-After or 504 to a request of this kind. */
  unavailableTo(kind: string, now: number): void {
    if (!this.unavailable.has(kind)) this.unavailable.set(kind, now);
  }

  /** Has the target answered anything else since `since` (the request's first such answer)? Then its answer is its own. */
  answeredSince(since: number): boolean {
    return this.lastAnsweredAt > since;
  }

  /** Two different requests or more got such answers, and nothing else since: the target as a whole is away. */
  unavailableToAll(): boolean {
    return this.unavailable.size >= 2;
  }

  /** When the current spell began, if there is one. */
  since(): number | undefined {
    let first: number | undefined;
    for (const at of this.unavailable.values()) first = first === undefined ? at : Math.min(first, at);
    return first;
  }

  /** Resolves when the target answers otherwise again, or `release` is called (a stop, a trip). */
  untilAnswered(): { promise: Promise<void>; release: () => void } {
    let release: () => void = () => undefined;
    const promise = new Promise<void>((resolve) => {
      const wake = (): void => {
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
      release = wake;
    });
    return { promise, release };
  }
}
