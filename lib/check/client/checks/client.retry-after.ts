import { defineClientCheck, fail, PASSED } from '../types.ts';

/**
 * A request on another connection than the answer with Retry-After that arrived less than this after the
 * answer was written may have been issued before the client could read it (requests sent together: a pool
 * opens its connections one after the other, and under load the sandbox reads a request 150 to 600 ms
 * after it came), so it is not judged against it. On the answer's own connection a later request was
 * sent after the answer was read (HTTP/1.1 answers in order), and is judged.
 */
export const IN_FLIGHT_MARGIN_MS = 1000;

/** Clock and timer resolution: a request this close to the end of the delay is not early. */
export const RETRY_AFTER_TOLERANCE_MS = 100;

/** RFC 9110 §10.2.3 (Retry-After), RFC 6585 §4 (429): how long the client ought to wait before a follow-up request. */
export default defineClientCheck({
  id: 'client.retry-after',
  level: 'http',
  sections: ['RFC 9110 §10.2.3', 'RFC 6585 §4'],
  reading: 'HTTP conventions',
  description: `After a 429 or 503 with Retry-After, no request before the delay has elapsed (the production gateway throttles at 10 requests a minute and answers 503 during maintenance). Judged by the request's arrival, with ${RETRY_AFTER_TOLERANCE_MS} ms for clock resolution. A request that may have been in flight before that answer was written is never judged against it: one that arrived before it, or on another connection within ${IN_FLIGHT_MARGIN_MS / 1000} s of it; a later request on the answer's own connection was sent after the answer was read, and is judged.`,
  judge({ request, session }) {
    const t = session.throttle;
    if (!t) return null;
    const expected = `no request before the Retry-After: ${t.retryAfter} of request ${t.setBy} (${t.status}) has elapsed (RFC 9110 §10.2.3)`;
    const early = t.notBefore - request.at;
    return early > RETRY_AFTER_TOLERANCE_MS ? fail(expected, `request ${request.seq} came ${(early / 1000).toFixed(2)} s early`) : PASSED;
  },
});
