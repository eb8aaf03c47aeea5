import { statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** RFC 9110 section 15.5.5: a path the API does not have is not found. */
export default defineCheck({
  id: 'http.unknown-path',
  level: 'http',
  sections: ['RFC 9110 §15.5.5'],
  reading: 'HTTP conventions',
  description: 'A path the document does not define gets 404.',
  scope: 'targeted',
  judge: statusJudge(() => ({ statuses: [404], label: '404' })),
});
