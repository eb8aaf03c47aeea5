import { describeAnswer, statusOf } from '../../contract/answer.ts';
import type { Because } from '../../generate/expectations.ts';
import { defineCheck } from '../types.ts';

interface AcceptParams extends Because {
  /**
   * The status the same request got with a nominal value in place of the one at the limit (null when it
   * got no answer). Both name data that exists, or both not, so only the value can make them differ.
   */
  nominalStatus: number | null;
  /**
   * The status the nominal request must get for the comparison to show anything: a valid agent run has no
   * reason to be refused (200), so a refused nominal run leaves nothing to compare.
   */
  success?: number;
}

/**
 * Sections 2 and 8: a value at a stated limit is not refused because of that limit. Shown differentially,
 * so that it holds whatever the server answers for the data named: the same request with a nominal value
 * got some status, and the request with the value at the limit must get the same one.
 */
export default defineCheck<AcceptParams>({
  id: 'limit.accepted',
  level: 'spec',
  sections: ['8'],
  reading: 'Acceptance',
  description: 'A realistic value at a stated limit gets the same answer as the same request with a nominal value (it is not refused because of the limit).',
  scope: 'targeted',
  params: { type: 'object', properties: { nominalStatus: { type: ['integer', 'null'], minimum: 100, maximum: 599 }, success: { type: 'integer', minimum: 200, maximum: 299 } }, required: ['nominalStatus'] },
  judge({ exchange, params }) {
    const nominal = params.nominalStatus;
    const expected = `${nominal ?? '?'}, the status of the same request with a nominal value, because ${params.because}`;
    if (nominal === null || nominal >= 500) {
      return { verdict: 'skip', expected, received: `the nominal request got ${nominal === null ? 'no answer' : `a ${nominal}`}: nothing to compare with` };
    }
    // A 429 is the pace, never the value (a target throttling without Retry-After, past the run's resends).
    if (nominal === 429) {
      return { verdict: 'skip', expected, received: 'the nominal request was still throttled (429) after its resends: nothing to compare with' };
    }
    if (params.success !== undefined && nominal !== params.success) {
      return { verdict: 'skip', expected, received: `the nominal request itself was refused (${nominal}, where ${params.success} was due): comparing with it shows nothing` };
    }
    const status = statusOf(exchange);
    if (status === 429) return { verdict: 'skip', expected, received: `${describeAnswer(exchange)}: still throttled after its resends, so not judged` };
    return { verdict: status === nominal ? 'pass' : 'fail', expected, received: describeAnswer(exchange) };
  },
});
