import { refusal, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * Sections 4.2-4.4 and 8: a query parameter that breaks the length or type of the field it names (agency,
 * workcode, sourceDb) can never name existing data. The document lets "bad request" and "not found"
 * answer it, so either refuses it; a success never does.
 */
export default defineCheck({
  id: 'query.refused',
  level: 'spec',
  sections: ['4.2', '4.3', '4.4', '8'],
  reading: 'Refusal',
  description: 'A merge, delete or demerge whose query parameter breaks the length or type of the field it names (agency, workcode, sourceDb) is refused with a documented error status (400 or 404), never a success.',
  scope: 'targeted',
  judge: statusJudge(({ operation: opId }) => refusal(opId), true),
});
