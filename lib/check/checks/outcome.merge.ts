import { statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Section 3: a successful merge makes the merged metadata part of the preferred ISWC (demergeable). */
export default defineCheck({
  id: 'outcome.merge',
  level: 'spec',
  sections: ['3', '4.2', '4.4'],
  reading: 'Outcomes',
  description: 'After a successful merge, the merged agency work can be demerged from the preferred ISWC (204).',
  scope: 'targeted',
  judge: statusJudge(() => ({ statuses: [204], label: '204 (sections 3, 4.4)' })),
});
