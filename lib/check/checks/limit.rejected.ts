import { statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Sections 2 and 8: a body value past a stated limit, as every reading counts it, is a bad request. */
export default defineCheck({
  id: 'limit.rejected',
  level: 'spec',
  sections: ['8'],
  reading: 'Characters',
  description: 'A body value one past a stated limit (length in characters every reading counts alike, pattern, 32-bit range) is refused with 400.',
  scope: 'targeted',
  // A broken agency code is another agency than the key's: 401 or 403 may refuse it first (5.3).
  judge: statusJudge(() => ({ statuses: [400], label: '400 (section 8)' }), true),
});
