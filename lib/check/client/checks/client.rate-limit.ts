import { defineClientCheck, fail, PASSED } from '../types.ts';

/** RFC 6585 §4 (429 Too Many Requests): the session's rate limit, as the production gateway enforces its published one. */
export default defineClientCheck({
  id: 'client.rate-limit',
  level: 'http',
  sections: ['RFC 6585 §4'],
  reading: 'HTTP conventions',
  description:
    'With a rate limit on the session (--rate-limit, as the production gateway publishes 10 requests a minute), the client paces itself: no request over the limit, which the sandbox answers 429 with Retry-After. Judged by each request\'s arrival, with a tolerance for the sandbox\'s own scheduling: a request counts against those that arrived within the window less a tenth of it, at most 1 s (10/min: 59 s), so a client that keeps exactly to the limit is never over it.',
  judge({ request, session }) {
    const r = session.rate;
    if (!r) return null;
    const expected = `at most ${r.text} (RFC 6585 §4; tolerance ${(r.toleranceMs / 1000).toFixed(1)} s)`;
    return r.exceeded ? fail(expected, `request ${request.seq} is request ${r.inWindow} within ${((r.windowMs - r.toleranceMs) / 1000).toFixed(1)} s`) : PASSED;
  },
});
