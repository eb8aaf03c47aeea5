import type { TroubleKind } from '../report/client/model.ts';

/**
 * Trouble on purpose (--inject KIND@N,...): the N-th request of the session (1-based) gets it instead of
 * its answer. 429 and 503 carry Retry-After; `reset` closes the connection without an answer; `slow`
 * answers after a delay; 401 is the gateway's refusal of the key.
 */
export type InjectKind = Exclude<TroubleKind, 'rate-limit'>;
export const INJECT_KINDS: readonly InjectKind[] = ['429', '503', 'reset', 'slow', '401'];

export interface Injection {
  kind: InjectKind;
  /** The request number (1-based) that gets it. */
  at: number;
}

/** Parses `429@2,503@4` (several flags allowed); throws an Error with what is wrong. */
export function parseInjections(specs: readonly string[]): Injection[] {
  const out: Injection[] = [];
  for (const spec of specs) {
    for (const part of spec.split(',')) {
      const item = part.trim();
      if (item === '') continue;
      const m = /^([a-z0-9]+)@([0-9]+)$/i.exec(item);
      if (!m) throw new Error(`--inject: "${item}" is not KIND@N (for example 429@2)`);
      const kind = m[1]?.toLowerCase() as InjectKind;
      const at = Number(m[2]);
      if (!INJECT_KINDS.includes(kind)) throw new Error(`--inject: unknown kind "${m[1]}" in "${item}"; kinds: ${INJECT_KINDS.join(', ')}`);
      if (!Number.isSafeInteger(at) || at < 1) throw new Error(`--inject: "${item}": N counts requests from 1`);
      const clash = out.find((i) => i.at === at);
      if (clash) throw new Error(`--inject: request ${at} is given two kinds of trouble (${clash.kind} and ${kind})`);
      out.push({ kind, at });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** A rate limit over a sliding window: at most `limit` requests within any `windowMs`. */
export interface RateLimit {
  limit: number;
  windowMs: number;
  /** As given (10/min). */
  text: string;
}

const UNIT_MS: Record<string, number> = { s: 1000, sec: 1000, second: 1000, m: 60_000, min: 60_000, minute: 60_000, h: 3_600_000, hr: 3_600_000, hour: 3_600_000 };

/** `10/min`, `5/s`, `600/h`, or a number of requests per second (`5`, `0.5`); `0` is no limit (null). */
export function parseRateLimit(text: string): RateLimit | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*([a-z]+))?\s*$/i.exec(text);
  if (!m) throw new Error(`--rate-limit: "${text}" is not a rate (10/min, 5/s, 600/h, or requests per second such as 0.5)`);
  const count = Number(m[1]);
  if (count === 0) return null;
  if (m[2] !== undefined) {
    const unit = m[2].toLowerCase();
    const ms = UNIT_MS[unit] ?? UNIT_MS[unit.replace(/s$/, '')];
    if (ms === undefined) throw new Error(`--rate-limit: unknown unit "${m[2]}" (use s, min or h)`);
    if (!Number.isInteger(count)) throw new Error(`--rate-limit: "${text}": a count per ${m[2]} is a whole number`);
    return { limit: count, windowMs: ms, text: `${count}/${m[2]}` };
  }
  return count >= 1 ? { limit: Math.floor(count), windowMs: 1000, text: `${Math.floor(count)}/s` } : { limit: 1, windowMs: Math.round(1000 / count), text: `${count}/s` };
}

/** The sliding window of a session: the arrival times of the requests it let through. */
export class RateWindow {
  private readonly times: number[] = [];
  constructor(readonly rate: RateLimit) {}

  /** Whether a request arriving at `at` fits (it is counted then); otherwise how long until one would. */
  take(at: number): { inWindow: number; exceeded: boolean; retryAfterMs: number } {
    while (this.times.length > 0 && (this.times[0] ?? 0) <= at - this.rate.windowMs) this.times.shift();
    const inWindow = this.times.length + 1;
    if (inWindow <= this.rate.limit) {
      this.times.push(at);
      return { inWindow, exceeded: false, retryAfterMs: 0 };
    }
    return { inWindow, exceeded: true, retryAfterMs: (this.times[0] ?? at) + this.rate.windowMs - at };
  }
}
