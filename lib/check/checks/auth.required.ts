import { operation } from '../../contract/operations.ts';
import { statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * Section 5: every operation requires the subscription key. The run notification documents 401 (4.1,
 * 5.2); for the others the answer is not shown (5.3): any of the operation's documented error statuses
 * (400, 404: a server may look the data up first, since which agency a key may act for depends on it)
 * or 401, 403 refuse it. Only a success shows the request was served without the key; the cases that
 * prove it send the refused request again with the key and see it succeed (lib/generate/cases).
 */
export default defineCheck({
  id: 'auth.required',
  level: 'spec',
  sections: ['5', '4.1'],
  reading: 'Authentication',
  description: 'A request without the key, with a wrong key or an empty one, is refused: 401 on the run notification; on the others any documented error status, 401 or 403 (the answer is not shown for them).',
  scope: 'targeted',
  judge: statusJudge(({ operation: opId }) => {
    const op = opId ? operation(opId) : null;
    // Where the document states 401 (the run notification), 401; elsewhere a documented error status or
    // one of the answers the contract lists as not shown (401, 403).
    if (!op || op.statuses.includes(401)) return { statuses: [401], label: '401 (sections 4.1, 5.2)' };
    const statuses = [...op.statuses.filter((s) => s >= 400), ...op.notShownStatuses];
    return { statuses, label: `${statuses.join(', ')} (section 5.3: the answer is not shown for this operation; which one is recorded)` };
  }),
});
