import { rateForms } from '../config/rate.ts';
import { injectionText } from '../report/client/labels.ts';
import type { TroubleKind } from '../report/client/model.ts';

export { injectionText };

/**
 * Trouble on purpose (--inject KIND@N,...): the N-th request of the session (1-based) gets it instead of
 * its answer; `KIND@NxM` gives it to M requests in a row from the N-th (a run), `KIND@NforDs` to every
 * request that arrives within D seconds of the N-th's arrival (an outage: `s`, `m`/`min` or `ms`). 429 and
 * 503 carry Retry-After; `reset` closes the connection without an answer; `slow` answers after a delay;
 * 401 is the gateway's refusal of the key.
 */
export type InjectKind = Exclude<TroubleKind, 'rate-limit'>;
export const INJECT_KINDS: readonly InjectKind[] = ['429', '503', 'reset', 'slow', '401'];

export interface Injection {
  kind: InjectKind;
  /** The request number (1-based) that gets it first. */
  at: number;
  /** A run: this many requests in a row from `at` (absent: one). */
  times?: number;
  /** An outage: every request arriving within this many seconds of request `at`'s arrival. */
  forSeconds?: number;
}

/** The longest outage --inject takes: a day (a session of the sandbox is a test, not a service). */
export const MAX_OUTAGE_SECONDS = 86_400;

/** The last request number a run ends on (an outage's end is a time, not a number: its start is returned). */
export function lastRequestOf(i: Injection): number {
  return i.at + (i.times ?? 1) - 1;
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, sec: 1, m: 60, min: 60 };

/** Parses `429@2,503@4x10,503@20for60s` (several flags allowed); throws an Error with what is wrong, in one line. */
export function parseInjections(specs: readonly string[]): Injection[] {
  const out: Injection[] = [];
  for (const spec of specs) {
    for (const part of spec.split(',')) {
      const item = part.trim();
      if (item === '') continue;
      const m = /^([a-z0-9]+)@([0-9]+)(?:x([0-9]+)|for([0-9]+(?:\.[0-9]+)?)([a-z]+))?$/i.exec(item);
      if (!m) throw new Error(`--inject: "${item}" is not KIND@N, KIND@NxM or KIND@NforDs (for example 429@2, 503@4x10, 503@4for60s)`);
      const kind = m[1]?.toLowerCase() as InjectKind;
      const at = Number(m[2]);
      if (!INJECT_KINDS.includes(kind)) throw new Error(`--inject: unknown kind "${m[1]}" in "${item}"; kinds: ${INJECT_KINDS.join(', ')}`);
      if (!Number.isSafeInteger(at) || at < 1) throw new Error(`--inject: "${item}": N counts requests from 1`);
      const injection: Injection = { kind, at };
      if (m[3] !== undefined) {
        const times = Number(m[3]);
        if (!Number.isSafeInteger(times) || times < 1) throw new Error(`--inject: "${item}": the run xM needs M of 1 or more`);
        if (times > 1) injection.times = times;
      }
      if (m[4] !== undefined) {
        const unit = (m[5] ?? '').toLowerCase();
        const scale = UNIT_SECONDS[unit];
        if (scale === undefined) throw new Error(`--inject: "${item}": unknown unit "${m[5]}" (use ms, s or min, as in 503@4for60s)`);
        const seconds = Number(m[4]) * scale;
        if (!(seconds > 0) || seconds > MAX_OUTAGE_SECONDS) throw new Error(`--inject: "${item}": an outage lasts more than 0 and at most ${MAX_OUTAGE_SECONDS / 3600} h`);
        injection.forSeconds = seconds;
      }
      out.push(injection);
    }
  }
  out.sort((a, b) => a.at - b.at);
  // Runs and single requests may not share a request; an outage may hold others (they take precedence in it).
  const numbered = out.filter((i) => i.forSeconds === undefined);
  for (const [index, a] of numbered.entries()) {
    const b = numbered[index + 1];
    if (b && b.at <= lastRequestOf(a)) throw new Error(`--inject: request ${b.at} is given two kinds of trouble (${injectionText(a)} and ${injectionText(b)})`);
  }
  const outages = out.filter((i) => i.forSeconds !== undefined);
  for (const [index, a] of outages.entries()) {
    const b = outages[index + 1];
    if (b) throw new Error(`--inject: one outage per session (${injectionText(a)} and ${injectionText(b)}): give a longer one`);
  }
  return out;
}

/** Which injection a request gets: a numbered one (single or run) first, else the outage it arrives in. */
export class TroubleSchedule {
  private readonly byRequest = new Map<number, InjectKind>();
  private readonly outage: Injection | undefined;
  /** When the outage's first request arrived (ms), once it has. */
  private outageStart: number | undefined;

  constructor(injections: readonly Injection[]) {
    for (const i of injections) {
      if (i.forSeconds !== undefined) continue;
      for (let n = i.at; n <= lastRequestOf(i); n += 1) this.byRequest.set(n, i.kind);
    }
    this.outage = injections.find((i) => i.forSeconds !== undefined);
  }

  /** The trouble of request `seq`, arrived at `at` (ms), or undefined: call once per request, in order. */
  troubleOf(seq: number, at: number): InjectKind | undefined {
    const outage = this.outage;
    if (outage?.forSeconds !== undefined) {
      if (seq === outage.at) this.outageStart = at;
      const inOutage = this.outageStart !== undefined && seq >= outage.at && at - this.outageStart < outage.forSeconds * 1000;
      const numbered = this.byRequest.get(seq);
      if (numbered !== undefined) return numbered;
      if (inOutage) return outage.kind;
      return undefined;
    }
    return this.byRequest.get(seq);
  }
}

/** A rate limit over a sliding window: at most `limit` requests within any `windowMs`. */
export interface RateLimit {
  limit: number;
  windowMs: number;
  /** As given (10/min). */
  text: string;
}

const UNIT_MS: Record<string, number> = { s: 1000, sec: 1000, second: 1000, m: 60_000, min: 60_000, minute: 60_000, h: 3_600_000, hr: 3_600_000, hour: 3_600_000 };

/** `10/min`, `5/s`, `600/h`; `0` is no limit (null). A bare number is refused: the unit decides the limit. */
export function parseRateLimit(text: string): RateLimit | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*([a-z]+))?\s*$/i.exec(text);
  if (!m) throw new Error(`--rate-limit: "${text}" is not a rate (10/min, 5/s, 600/h)`);
  const count = Number(m[1]);
  if (count === 0) return null;
  if (m[2] === undefined) throw new Error(`--rate-limit: "${text}" is a number without a unit; write ${rateForms(m[1])}`);
  const unit = m[2].toLowerCase();
  const ms = UNIT_MS[unit] ?? UNIT_MS[unit.replace(/s$/, '')];
  if (ms === undefined) throw new Error(`--rate-limit: unknown unit "${m[2]}" (use s, min or h)`);
  if (!Number.isInteger(count)) throw new Error(`--rate-limit: "${text}": a count per ${m[2]} is a whole number`);
  return { limit: count, windowMs: ms, text: `${count}/${m[2]}` };
}

/**
 * How much earlier than a whole window a request may arrive after the oldest one in it and still not
 * count against the limit: the sandbox stamps a request when its event loop reaches it, which under load
 * comes 150 to 600 ms after the client sent it, and not by the same delay for every request. A tenth of
 * the window, and at most a second (10/min: 1 s; 5/s: 100 ms).
 */
export function rateToleranceMs(rate: RateLimit): number {
  return Math.min(1000, rate.windowMs / 10);
}

/**
 * The sliding window of a session: the arrival times of the requests it let through. A request counts
 * against the ones that arrived less than the window, less the tolerance (rateToleranceMs), before it:
 * a client that keeps exactly to the limit is never over it by the sandbox's own scheduling.
 */
export class RateWindow {
  private readonly times: number[] = [];
  readonly toleranceMs: number;
  constructor(readonly rate: RateLimit) {
    this.toleranceMs = rateToleranceMs(rate);
  }

  /** Whether a request arriving at `at` fits (it is counted then); otherwise how long until one would. */
  take(at: number): { inWindow: number; exceeded: boolean; retryAfterMs: number } {
    const span = this.rate.windowMs - this.toleranceMs;
    // Arrival stamps may come out of order (bodies finish in another order than heads arrive).
    const within = this.times.filter((t) => t > at - span && t <= at);
    // Forgotten only well past the window: a request processed a little late may still arrive before `at`.
    while (this.times.length > 0 && (this.times[0] ?? 0) <= at - 2 * this.rate.windowMs) this.times.shift();
    const inWindow = within.length + 1;
    if (inWindow <= this.rate.limit) {
      const index = this.times.findIndex((t) => t > at);
      this.times.splice(index < 0 ? this.times.length : index, 0, at);
      return { inWindow, exceeded: false, retryAfterMs: 0 };
    }
    return { inWindow, exceeded: true, retryAfterMs: (within[0] ?? at) + span - at };
  }
}
