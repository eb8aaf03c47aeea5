import { describeAnswer, runIdOf } from '../../contract/answer.ts';
import type { Because } from '../../generate/expectations.ts';
import { fail, pass } from '../helpers.ts';
import { defineCheck } from '../types.ts';

interface DistinctParams extends Because {
  /** The runId the server answered to the start of another run (empty when it answered an empty one: two empty ones are the same). */
  otherRunId: string;
}

/** Sections 2.2 and 4.1: the answer to a run start identifies that run, so two runs never share one. */
export default defineCheck<DistinctParams>({
  id: 'outcome.run-ids-distinct',
  level: 'spec',
  sections: ['2.2', '4.1'],
  reading: 'Outcomes',
  description: 'Two agent runs started one after the other from the same body (the first ended before the second starts) are answered two different runIds; so are any two starts of one conformance run, in whatever case or format (a start answered a runId another start was answered first fails here: lib/run/run-id-ledger.ts).',
  scope: 'targeted',
  params: { type: 'object', properties: { otherRunId: { type: 'string' } }, required: ['otherRunId'] },
  judge({ exchange, params }) {
    const expected = `a runId other than ${JSON.stringify(params.otherRunId)}, because ${params.because}`;
    const runId = runIdOf(exchange);
    // No runId to compare (not a 200, or no identifier): status.success and response.schema say why.
    if (runId === undefined) return { verdict: 'skip', expected, received: `no runId to compare: ${describeAnswer(exchange)}` };
    return runId === params.otherRunId ? fail(expected, `the same runId ${JSON.stringify(runId)}`) : pass(expected, `runId ${JSON.stringify(runId)}`);
  },
});
