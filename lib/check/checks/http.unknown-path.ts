import { statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * RFC 9110 section 15.5.5: a path the API does not have is not found. A gateway may refuse it instead
 * (403, section 15.5.4: Amazon API Gateway answers "Missing Authentication Token"); either refuses it.
 */
export default defineCheck({
  id: 'http.unknown-path',
  level: 'http',
  sections: ['RFC 9110 §15.5.5', 'RFC 9110 §15.5.4'],
  reading: 'HTTP conventions',
  description: 'A path the document does not define gets 404 (or 403 from a gateway that refuses unknown routes).',
  scope: 'targeted',
  judge: statusJudge(() => ({ statuses: [404, 403], label: '404 (or 403)' })),
});
