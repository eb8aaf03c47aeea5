import { describeAnswer, statusOf } from '../../contract/answer.ts';
import type { Because } from '../../generate/expectations.ts';
import { refusal } from '../helpers.ts';
import { defineCheck } from '../types.ts';

interface SequenceParams extends Because {
  /** What the model predicts from what was merged, demerged and deleted before: a status, or a refusal. */
  status: number | 'refused';
}

/** Section 3: the outcomes of merge, demerge and delete, over a sequence of commands. */
export default defineCheck<SequenceParams>({
  id: 'outcome.sequence',
  level: 'spec',
  sections: ['3', '4.2', '4.3', '4.4'],
  reading: 'Outcomes',
  description: 'Over a generated sequence of merges, demerges and deletes, each answer is the one a model of the stated outcomes predicts (204, or a refusal with a documented error status).',
  scope: 'targeted',
  params: { type: 'object', properties: { status: { anyOf: [{ type: 'integer', minimum: 100, maximum: 599 }, { const: 'refused' }] } }, required: ['status'] },
  judge({ operation: opId, exchange, params }) {
    const status = statusOf(exchange);
    if (params.status === 'refused') {
      const { statuses, label } = refusal(opId);
      return { verdict: status !== null && statuses.includes(status) ? 'pass' : 'fail', expected: `${label} because ${params.because}`, received: describeAnswer(exchange) };
    }
    return { verdict: status === params.status ? 'pass' : 'fail', expected: `${params.status} because ${params.because}`, received: describeAnswer(exchange) };
  },
});
