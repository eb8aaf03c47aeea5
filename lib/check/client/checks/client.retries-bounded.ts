import { defineClientCheck, fail, PASSED } from '../types.ts';

/** The most a request may be sent again in a row after trouble (429, 5xx, a reset) before the client gives up. */
export const MAX_RETRIES = 5;

/**
 * How long after the trouble its last attempt met a request sent again still counts as a retry of it: a
 * client that sends the same request the next day (a scheduled job) is not retrying. Generous on purpose:
 * a backoff of minutes is still a retry.
 */
export const RETRY_WINDOW_MS = 15 * 60_000;

/** RFC 9110 §9.2.2 (automatic retries), RFC 6585 §4: a client that retries gives up after a bounded number of attempts. */
export default defineClientCheck({
  id: 'client.retries-bounded',
  level: 'http',
  sections: ['RFC 9110 §9.2.2', 'RFC 6585 §4'],
  reading: 'HTTP conventions',
  description: `A request that met trouble (429, 503 or another 5xx, a reset connection) is sent again at most ${MAX_RETRIES} times in a row (each within ${RETRY_WINDOW_MS / 60_000} minutes of the trouble the last attempt met, without a success between): a client that retries without bound turns an outage of the shared service into a flood.`,
  judge({ request, session }) {
    const r = session.retry;
    if (!r) return null;
    const expected = `at most ${MAX_RETRIES} retries of a request that met trouble`;
    return r.attempt > MAX_RETRIES ? fail(expected, `request ${request.seq} is retry ${r.attempt} of request ${r.of}`) : PASSED;
  },
});
