import { refusal, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * Sections 2.3, 2.4, 4.2 and 8: an item a merge cannot take (an agency work or an ISWC past its limits, an
 * ISWC that does not exist) sent next to data that does not exist may get 404 whatever the server did with
 * it. So it is sent next to a disposable entry's valid data: a refusal is demanded (400, or 404 from a
 * server that looks items up before it validates them: "ISWC not found" is then true), never a success. A
 * refused request may still have kept part of what it named (section 1 shows no effect of a refused
 * request: a server that merges item by item, or one that merges all it found), so it is sent after the
 * entry's data is merged, where merging it again changes nothing.
 */
export default defineCheck({
  id: 'status.item-refused',
  level: 'spec',
  sections: ['2.3', '2.4', '4.2', '8'],
  reading: 'Refusal',
  description: "A merge carrying a disposable entry's valid data, merged just before, and one item it cannot take (an agency work or ISWC past its limits, an ISWC that does not exist) is refused with a documented error status (400 or 404), never a success.",
  scope: 'targeted',
  // A broken agency code is another agency than the key's: 401 or 403 may refuse it first (5.3).
  judge: statusJudge(({ operation: opId }) => refusal(opId), true),
});
