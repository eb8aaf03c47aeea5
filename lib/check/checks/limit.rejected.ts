import { statusJudge } from '../helpers.ts';
import type { Because } from '../../generate/expectations.ts';
import { defineCheck } from '../types.ts';

/**
 * Sections 2 and 8: a body value past a stated limit, as every reading counts it, is a bad request. An
 * item of a merge body past its limits names nothing the target has: a server that looks items up before it
 * validates them answers 404 "ISWC not found", documented for the merge and then true, so there a refusal
 * (400 or 404) is demanded.
 */
interface RejectParams extends Because {
  /**
   * The body names data the target does not have (an item of a merge past its limits, agency works of no
   * submission): a server that looks each item up as it reads it may answer 404 "not found" first, a
   * documented refusal of the operation.
   */
  notFoundFits?: boolean;
}

export default defineCheck<RejectParams>({
  id: 'limit.rejected',
  level: 'spec',
  sections: ['8'],
  reading: 'Characters',
  description: 'A body value one past a stated limit (length in characters every reading counts alike, pattern, 32-bit range) is refused with 400; an item of a merge body, which then names nothing that exists, with 400 or 404.',
  scope: 'targeted',
  params: { type: 'object', properties: { notFoundFits: { type: 'boolean' } }, required: [] },
  // A broken agency code is another agency than the key's: 401 or 403 may refuse it first (5.3).
  judge: statusJudge(({ params }) => (params.notFoundFits === true ? { statuses: [400, 404], label: '400 (section 8) or 404 (the body names data the target does not have)' } : { statuses: [400], label: '400 (section 8)' }), true),
});
