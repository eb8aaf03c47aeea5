import { refusal, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * Sections 4.2-4.4 and 7: where the document lists more than one error status that fits (a demerge of
 * metadata never merged, a delete naming another agency, work code or source database, an ISWC of the
 * merge body that does not exist), any of the operation's documented error statuses is conformant, and
 * a success never is. Which one came is recorded by `observed.refusal`.
 */
export default defineCheck({
  id: 'status.refused',
  level: 'spec',
  sections: ['4.2', '4.3', '4.4', '7'],
  reading: 'Refusal',
  description: "A request naming what does not exist, where the document lets 400 or 404 answer it, is refused with one of the operation's documented error statuses, never a success.",
  scope: 'targeted',
  judge: statusJudge(({ operation: opId }) => refusal(opId), true),
});
