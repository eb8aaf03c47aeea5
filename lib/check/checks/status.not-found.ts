import { opSection, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * Sections 4.2 and 7: 404 where the document ties it to the case: the preferred ISWC a merge names does not
 * exist and everything else (the ISWCs or agency works of its body, the agency) names existing data ("ISWC
 * not found"). A demerge naming an unknown preferred ISWC never gets this demand: its metadata is either
 * merged into another preferred ISWC or merged nowhere, a second fault a server that looks the work up
 * first refuses with 400, so a demerge demands a refusal (`status.refused`).
 */
export default defineCheck({
  id: 'status.not-found',
  level: 'spec',
  sections: ['4.2', '7'],
  reading: 'Not found',
  description: 'A merge naming a preferred ISWC that does not exist, everything else naming existing data, gets 404 (ISWC not found).',
  scope: 'targeted',
  judge: statusJudge(({ operation: opId }) => ({ statuses: [404], label: `404 (section ${opSection(opId)}, 7)` }), true),
});
