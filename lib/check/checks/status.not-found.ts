import { opSection, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * Sections 4.2, 4.4 and 7: 404 where the document ties it to the case: the preferred ISWC named by a merge
 * or demerge does not exist and everything else names existing data ("ISWC not found").
 */
export default defineCheck({
  id: 'status.not-found',
  level: 'spec',
  sections: ['4.2', '4.4', '7'],
  reading: 'Not found',
  description: 'A merge or demerge naming a preferred ISWC that does not exist, everything else naming existing data, gets 404 (ISWC not found).',
  scope: 'targeted',
  judge: statusJudge(({ operation: opId }) => ({ statuses: [404], label: `404 (section ${opSection(opId)}, 7)` }), true),
});
