import { defineClientCheck, fail, PASSED } from '../types.ts';

/** The most a request may be sent again in a row after trouble (429, 5xx, a reset) before the client gives up. */
export const MAX_RETRIES = 5;

/** RFC 9110 §9.2.2 (automatic retries), RFC 6585 §4: a client that retries gives up after a bounded number of attempts. */
export default defineClientCheck({
  id: 'client.retries-bounded',
  level: 'http',
  sections: ['RFC 9110 §9.2.2', 'RFC 6585 §4'],
  reading: 'HTTP conventions',
  description: `A request that met trouble (429, 503 or another 5xx, a reset connection) is sent again at most ${MAX_RETRIES} times in a row: a client that retries without bound turns an outage of the shared service into a flood.`,
  judge({ request, session }) {
    const r = session.retry;
    if (!r) return null;
    const expected = `at most ${MAX_RETRIES} retries of a request that met trouble`;
    return r.attempt > MAX_RETRIES ? fail(expected, `request ${request.seq} is retry ${r.attempt} of request ${r.of}`) : PASSED;
  },
});
