import { defineClientCheck, fail, PASSED } from '../types.ts';

/** Clock and timer resolution: a request this close to the end of the delay is not early. */
export const RETRY_AFTER_TOLERANCE_MS = 100;

/** RFC 9110 §10.2.3 (Retry-After), RFC 6585 §4 (429): how long the client ought to wait before sending the request again. */
export default defineClientCheck({
  id: 'client.retry-after',
  level: 'http',
  sections: ['RFC 9110 §10.2.3', 'RFC 6585 §4'],
  reading: 'HTTP conventions',
  description: `After a 429 or 503 with Retry-After, the same request (its method, target and body) is not sent again before the delay has elapsed (the production gateway throttles at 10 requests a minute and answers 503 during maintenance). Judged by the retry's arrival, with ${RETRY_AFTER_TOLERANCE_MS} ms for clock resolution, whatever connection carries it: a new connection for each request, or any connection of a pool. A different request is never judged against another's Retry-After (concurrent operations each wait their own), and a request is judged only if it was sent after that answer: one the sandbox read before the answer was written, or in the same turn of its event loop (two identical requests sent at once on two connections), was already on its way.`,
  judge({ request, session }) {
    const t = session.throttle;
    if (!t) return null;
    const expected = `request ${t.setBy} not sent again before its Retry-After: ${t.retryAfter} (${t.status}) has elapsed (RFC 9110 §10.2.3)`;
    const early = t.notBefore - request.at;
    return early > RETRY_AFTER_TOLERANCE_MS ? fail(expected, `request ${request.seq} (request ${t.setBy} again) came ${(early / 1000).toFixed(2)} s early`) : PASSED;
  },
});
