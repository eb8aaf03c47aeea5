import { describeAnswer, statusOf } from '../../contract/answer.ts';
import { operation } from '../../contract/operations.ts';
import { fail, pass } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Sections 4 and 7: an answer uses a status the document lists for the operation. */
export default defineCheck({
  id: 'status.documented',
  level: 'spec',
  sections: ['4', '7'],
  reading: 'Statuses and bodies',
  description: 'Every answer uses a status the document lists for the operation (401/403 also where the key is missing or wrong).',
  scope: 'every-exchange',
  judge({ operation: opId, exchange, extraStatuses }) {
    const status = statusOf(exchange);
    if (!opId || status === null) return null;
    const op = operation(opId);
    const allowed = new Set([...op.statuses, ...extraStatuses]);
    const expected = `one of ${[...allowed].sort().join(', ')} (section ${op.section}, 7)`;
    return allowed.has(status) ? pass(expected, String(status)) : fail(expected, describeAnswer(exchange));
  },
});
