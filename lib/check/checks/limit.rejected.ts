import { statusJudge } from '../helpers.ts';
import type { Because } from '../../generate/expectations.ts';
import { defineCheck } from '../types.ts';

/** Sections 2 and 8: a body value past a stated limit, as every reading counts it, is a bad request. */
interface RejectParams extends Because {
  /**
   * The body also names data the target does not have (agency works of no submission): a server that looks
   * each item up as it reads it may answer 404 "not found" first, a documented refusal of the operation.
   */
  notFoundFits?: boolean;
}

export default defineCheck<RejectParams>({
  id: 'limit.rejected',
  level: 'spec',
  sections: ['8'],
  reading: 'Characters',
  description: 'A body value one past a stated limit (length in characters every reading counts alike, pattern, 32-bit range) is refused with 400.',
  scope: 'targeted',
  params: { type: 'object', properties: { notFoundFits: { type: 'boolean' } }, required: [] },
  // A broken agency code is another agency than the key's: 401 or 403 may refuse it first (5.3).
  judge: statusJudge(({ params }) => (params.notFoundFits === true ? { statuses: [400, 404], label: '400 (section 8) or 404 (the body names data the target does not have)' } : { statuses: [400], label: '400 (section 8)' }), true),
});
