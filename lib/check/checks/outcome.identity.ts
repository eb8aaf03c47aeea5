import { statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Section 2.5: a submission is identified by preferred ISWC, agency, work code and source database together. */
export default defineCheck({
  id: 'outcome.identity',
  level: 'spec',
  sections: ['2.5', '4.3'],
  reading: 'Outcomes',
  description: 'A delete or demerge naming another value than the stored one (source database, agency, work code, preferred ISWC) leaves the data in place: naming it rightly afterwards still succeeds (204).',
  scope: 'targeted',
  judge: statusJudge(() => ({ statuses: [204], label: '204 (section 2.5: the submission is identified by all four values)' })),
});
