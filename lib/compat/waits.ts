import type { TrafficSession } from '../traffic/model.ts';

/**
 * How long an agency's client waits for an answer. A build whose answer comes later than the client met
 * it, but within what the client waits, is compatible, with the slower answer a finding of its own; past
 * the client's wait the client meets no answer: broken. The wait is read from the recording where it
 * shows (a client that gave up on an answer: the time it waited then), else what `--client-timeout`
 * says clients wait (default 30 s), and never less than the longest answer the client did wait for.
 */

export const DEFAULT_CLIENT_WAIT_MS = 30_000;

export interface ClientWait {
  ms: number;
  /** Where the figure comes from, for the reports. */
  source: string;
}

/** A recorded error that says the client stopped waiting (its own timeout, a closed connection, an abort). */
const GAVE_UP = /time[sd]?[ -]?out|closed before the answer|abort|cancel/i;

const seconds = (ms: number): string => `${+(ms / 1000).toFixed(1)} s`;

/** The wait of one session's client. `fallback` is what clients wait where the recording does not show it (--client-timeout). */
export function clientWaitOf(session: Pick<TrafficSession, 'exchanges'>, fallback: ClientWait): ClientWait {
  let gaveUp: number | undefined;
  let longest = 0;
  for (const x of session.exchanges) {
    if (x.durationMs === undefined) continue;
    if (x.response) longest = Math.max(longest, x.durationMs);
    else if (x.error !== null && GAVE_UP.test(x.error)) gaveUp = Math.max(gaveUp ?? 0, x.durationMs);
  }
  if (gaveUp !== undefined) return { ms: Math.round(Math.max(gaveUp, longest)), source: `the recording: the client gave up after ${seconds(gaveUp)}` };
  if (longest > fallback.ms) return { ms: Math.round(longest), source: `the recording: the client waited ${seconds(longest)} for an answer` };
  return fallback;
}

/** The waits of the sessions, by session id. */
export function clientWaits(sessions: readonly TrafficSession[], fallback: ClientWait): Map<string, ClientWait> {
  return new Map(sessions.map((s) => [s.id, clientWaitOf(s, fallback)]));
}

/** An answer at least this much later than recorded (and twice as long) is said as slower. */
const SLOWER_BY_MS = 1000;

/** How a replayed answer's time reads for one client: past its wait (broken), slower than recorded (a finding), or nothing to say. */
export function timingOf(replayedMs: number, recordedMs: number | undefined, wait: ClientWait): { broken?: string; finding?: string } {
  if (replayedMs > wait.ms) return { broken: `answered after ${seconds(replayedMs)}, past the ${seconds(wait.ms)} its client waits (${wait.source}): the client meets no answer` };
  if (recordedMs !== undefined && replayedMs - recordedMs >= SLOWER_BY_MS && replayedMs >= 2 * recordedMs) {
    return { finding: `slower: answered after ${seconds(replayedMs)} where the client met its answer after ${seconds(recordedMs)}; within the ${seconds(wait.ms)} its client waits (${wait.source})` };
  }
  return {};
}

export { seconds as secondsText };
