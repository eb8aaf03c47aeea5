import { defineClientCheck, fail, PASSED } from '../types.ts';

/** RFC 6585 §4 (429 Too Many Requests): the session's rate limit, as the production gateway enforces its published one. */
export default defineClientCheck({
  id: 'client.rate-limit',
  level: 'http',
  sections: ['RFC 6585 §4'],
  reading: 'HTTP conventions',
  description: 'With a rate limit on the session (--rate-limit, as the production gateway publishes 10 requests a minute), the client paces itself: no request over the limit, which the sandbox answers 429 with Retry-After.',
  judge({ request, session }) {
    const r = session.rate;
    if (!r) return null;
    const expected = `at most ${r.text} (RFC 6585 §4)`;
    return r.exceeded ? fail(expected, `request ${request.seq} is request ${r.inWindow} within ${(r.windowMs / 1000).toFixed(0)} s`) : PASSED;
  },
});
