import { refusal, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Section 3: a successful delete removes the submission, so repeating it finds nothing to delete. */
export default defineCheck({
  id: 'outcome.delete',
  level: 'spec',
  sections: ['3', '4.3'],
  reading: 'Refusal',
  description: 'After a successful submission delete, the same delete is refused (400 or 404, never a success): the submission is gone.',
  scope: 'targeted',
  judge: statusJudge(({ operation: opId }) => refusal(opId)),
});
