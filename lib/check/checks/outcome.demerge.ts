import { refusal, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Section 3: a successful demerge removes the metadata, so repeating it finds nothing to remove. */
export default defineCheck({
  id: 'outcome.demerge',
  level: 'spec',
  sections: ['3', '4.4'],
  reading: 'Refusal',
  description: 'After a successful demerge, the same demerge is refused (400 or 404, never a success): the metadata is gone.',
  scope: 'targeted',
  judge: statusJudge(({ operation: opId }) => refusal(opId)),
});
