import { operation } from '../../contract/operations.ts';
import { statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Section 4: Content-Type is optional, so a body without it is still understood. */
export default defineCheck({
  id: 'content-type.optional',
  level: 'spec',
  sections: ['4.1', '4.2'],
  reading: 'Acceptance',
  description: 'A JSON body sent without Content-Type (optional, section 4) is understood: the documented success status.',
  scope: 'targeted',
  judge: statusJudge(({ operation: opId }) => {
    const status = opId ? operation(opId).successStatus : 200;
    return { statuses: [status], label: `${status} (section 4: Content-Type is optional)` };
  }),
});
