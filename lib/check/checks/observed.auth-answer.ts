import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Which status and body answer a missing or wrong key on the operations other than the run notification (not shown). */
export default defineCheck({
  id: 'observed.auth-answer',
  level: 'observed',
  sections: ['5'],
  reading: 'Authentication',
  description: 'Which status and body answer a missing or wrong key on the operations other than the run notification (not shown).',
  scope: 'targeted',
  judge: observe,
});
