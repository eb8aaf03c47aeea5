import { defineClientCheck, fail, PASSED } from '../types.ts';

/** RFC 9110 §10.2.3 (Retry-After), RFC 6585 §4 (429): how long the client ought to wait before a follow-up request. */
export default defineClientCheck({
  id: 'client.retry-after',
  level: 'http',
  sections: ['RFC 9110 §10.2.3', 'RFC 6585 §4'],
  reading: 'HTTP conventions',
  description: 'After a 429 or 503 with Retry-After, no request before the delay has elapsed (the production gateway throttles at 10 requests a minute and answers 503 during maintenance).',
  judge({ request, session }) {
    const t = session.throttle;
    if (!t) return null;
    const expected = `no request before the Retry-After: ${t.retryAfter} of request ${t.setBy} (${t.status}) has elapsed (RFC 9110 §10.2.3)`;
    const early = t.notBefore - request.at;
    return early > 0 ? fail(expected, `request ${request.seq} came ${(early / 1000).toFixed(2)} s early`) : PASSED;
  },
});
