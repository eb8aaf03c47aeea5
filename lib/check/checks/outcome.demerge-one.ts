import { statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Section 4.4: "the demerge operation removes one set of metadata from exactly one preferred ISWC". */
export default defineCheck({
  id: 'outcome.demerge-one',
  level: 'spec',
  sections: ['4.4', '3'],
  reading: 'Outcomes',
  description: 'A demerge removes one set of metadata from exactly one preferred ISWC: another work merged into the same preferred ISWC by a request of its own, and metadata merged into another preferred ISWC, can still be demerged (204).',
  scope: 'targeted',
  judge: statusJudge(() => ({ statuses: [204], label: '204 (section 4.4: a demerge removes one set of metadata)' })),
});
