import { describeAnswer, runIdOf } from '../../contract/answer.ts';
import { guidDigits } from '../../contract/guid.ts';
import type { Because } from '../../generate/expectations.ts';
import { fail, pass } from '../helpers.ts';
import { defineCheck } from '../types.ts';

interface SameIdParams extends Because {
  /** The runId the server answered to the start of the run this notification ends. */
  runId: string;
  /**
   * The notification may be refused (the run ended again, or named with another agency: whether it is taken is
   * not shown): a refusal (4xx) passes, as the expectation is "refused, or answered that run's runId".
   */
  orRefused?: boolean;
}

/**
 * A runId as a server may spell it again: a GUID parsed and written back (.NET's Guid.ToString) loses its
 * braces or hyphens and changes its letters' case, and names the same run. Anything else is compared as sent.
 */
export function sameRunId(a: string, b: string): boolean {
  if (a === b) return true;
  const digits = guidDigits(a);
  return digits !== undefined && digits === guidDigits(b);
}

/**
 * Sections 2.2 and 4.1: the 200 of the run notification is the identifier of the run it names, so the end of
 * a run the server started answers that run's runId. Another runId (a new one, another run's) names another
 * run; the same GUID spelled otherwise (case, braces, hyphens) is the same run.
 */
export default defineCheck<SameIdParams>({
  id: 'outcome.run-end-same-id',
  level: 'spec',
  sections: ['2.2', '4.1'],
  reading: 'Outcomes',
  description: 'The end of a run the server started is answered that run\'s runId (the same GUID in any spelling: case, braces, hyphens), not another one; so is the same end sent again or naming another agency, unless it is refused.',
  scope: 'targeted',
  params: { type: 'object', properties: { runId: { type: 'string' }, orRefused: { type: 'boolean' } }, required: ['runId'] },
  judge({ exchange, params }) {
    const expected = `${params.orRefused === true ? 'a refusal, or ' : ''}the runId ${JSON.stringify(params.runId)}, because ${params.because}`;
    // A start answered an empty runId, so the notification carrying it started a run rather than ending one.
    if (params.runId === '') return { verdict: 'skip', expected, received: 'the start answered an empty runId: this notification ends no run' };
    const status = exchange.response?.status;
    if (params.orRefused === true && status !== undefined && status >= 400 && status < 500) return pass(expected, `${status}: refused`);
    const runId = runIdOf(exchange);
    // No runId to compare (not a 200, or no identifier): status.success and response.schema say why.
    if (runId === undefined) return { verdict: 'skip', expected, received: `no runId to compare: ${describeAnswer(exchange)}` };
    return sameRunId(runId, params.runId) ? pass(expected, `runId ${JSON.stringify(runId)}`) : fail(expected, `runId ${JSON.stringify(runId)}, which names another run`);
  },
});
