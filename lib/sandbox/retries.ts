import { RETRY_WINDOW_MS } from '../check/client/checks/client.retries-bounded.ts';

/**
 * What a sandbox session remembers of the requests that met trouble, to judge the client's retries.
 *
 * A retry is the same request again: a request is known by its signature (method, target and body, as
 * the client sent them), whatever connection carries it. An answer with Retry-After (429, 503) tells
 * *that* request to wait: a later request with the same signature is judged against it on any connection
 * (a client that opens a new connection per request is judged as one with a pool), and a different
 * request never is (concurrent operations each wait their own Retry-After).
 *
 * A request is judged against a wait only if it was sent after the answer that asked it: its head reached
 * the sandbox after the turn of the event loop that wrote the answer had ended (`judgedFrom`, an arrival
 * number), and after the answer was written. A request the sandbox reads in the same turn, or whose head
 * arrived before, was on its way before the client could have read the answer (two identical requests
 * sent at once on two connections are read one after the other, in whichever order, milliseconds apart:
 * their shape and their stamps alone cannot tell them from a retry).
 */

/** An answer with Retry-After, and when it was written: the wait it asks of the same request. */
export interface Wait {
  /** The request the answer went to. */
  setBy: number;
  status: number;
  /** When the delay has elapsed (ms since the epoch). */
  notBefore: number;
  /** The header as sent. */
  retryAfter: string;
  /** When the answer was written (ms since the epoch). */
  writtenAt: number;
  /**
   * The first arrival number (the count of request heads the session had read, plus one) of a request
   * that can have been sent after this answer: set once the event-loop turn that wrote the answer ends;
   * undefined until then (no request is judged against it).
   */
  judgedFrom?: number;
}

/** A request whose last answers were trouble: the first of them, how many in a row, when the last came, the waits asked of it. */
interface Troubled {
  of: number;
  count: number;
  lastAt: number;
  /** The last waits asked of it, oldest first (a request still in flight when a later one was written is judged against an earlier one). */
  waits: Wait[];
}

/** What a request repeats, as it arrives: the retry it is, and the wait it is judged against. */
export interface Recalled {
  retry: { of: number; attempt: number } | undefined;
  wait: Wait | undefined;
}

/** Distinct requests whose trouble the session remembers: the stalest are forgotten first. */
export const MAX_TROUBLED = 1000;

/** Waits remembered per request: enough for answers written while a retry was in flight. */
const WAITS_KEPT = 4;

export class RetryMemory {
  private readonly troubled = new Map<string, Troubled>();

  constructor(
    private readonly max = MAX_TROUBLED,
    private readonly windowMs = RETRY_WINDOW_MS,
  ) {}

  /**
   * A request with this signature whose head arrived at `arrivedAt`, as the session's `arrival`-th head
   * read: the retry it is (none when its last trouble is older than the retry window: sent anew) and the
   * latest wait it was sent after (Wait.judgedFrom). A wait is judged once by a request that comes after
   * its delay: then it is lifted.
   */
  recall(signature: string, arrivedAt: number, arrival = Number.MAX_SAFE_INTEGER): Recalled {
    let prior = this.troubled.get(signature);
    if (prior && arrivedAt - prior.lastAt > this.windowMs) {
      this.troubled.delete(signature);
      prior = undefined;
    }
    if (!prior) return { retry: undefined, wait: undefined };
    let wait: Wait | undefined;
    const sentAfter = (w: Wait): boolean => w.writtenAt <= arrivedAt && w.judgedFrom !== undefined && w.judgedFrom <= arrival;
    for (const w of prior.waits) if (sentAfter(w)) wait = w;
    if (wait && arrivedAt >= wait.notBefore) prior.waits = prior.waits.filter((w) => !sentAfter(w));
    return { retry: { of: prior.of, attempt: prior.count }, wait };
  }

  /**
   * What the request of this signature got: trouble (429, a 5xx, a reset), with the wait its Retry-After
   * asks, or an answer that ends its trouble.
   */
  answered(signature: string, seq: number, trouble: boolean, now: number, wait?: Omit<Wait, 'setBy' | 'writtenAt' | 'judgedFrom'>): Wait | undefined {
    if (!trouble) {
      this.troubled.delete(signature);
      return undefined;
    }
    const known = this.troubled.get(signature);
    // Re-inserted: the map's order is the order of the last trouble, and the stalest leaves first.
    this.troubled.delete(signature);
    const asked: Wait | undefined = wait ? { ...wait, setBy: seq, writtenAt: now } : undefined;
    const waits = asked ? [...(known?.waits ?? []), asked].slice(-WAITS_KEPT) : (known?.waits ?? []);
    this.troubled.set(signature, { of: known?.of ?? seq, count: (known?.count ?? 0) + 1, lastAt: now, waits });
    if (this.troubled.size > this.max) this.troubled.delete(this.troubled.keys().next().value as string);
    return asked;
  }

  /** Requests remembered (bounded by MAX_TROUBLED). */
  get size(): number {
    return this.troubled.size;
  }
}
