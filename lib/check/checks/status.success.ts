import { operation } from '../../contract/operations.ts';
import { opSection, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Section 4: a valid request on existing data gets the documented success status. */
export default defineCheck({
  id: 'status.success',
  level: 'spec',
  sections: ['4'],
  reading: 'Acceptance',
  description: 'A valid request on data that exists gets the documented success status (200 for the run notification, 204 for the others).',
  scope: 'targeted',
  judge: statusJudge(({ operation: opId }) => {
    const status = opId ? operation(opId).successStatus : 200;
    return { statuses: [status], label: `${status} (section ${opSection(opId)})` };
  }, true),
});
