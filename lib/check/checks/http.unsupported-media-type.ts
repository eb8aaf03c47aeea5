import { statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** RFC 9110 section 15.5.16: a body in a media type the API does not take is refused. */
export default defineCheck({
  id: 'http.unsupported-media-type',
  level: 'http',
  sections: ['RFC 9110 §15.5.16'],
  reading: 'HTTP conventions',
  description: 'A body in a media type other than JSON or XML is refused with 415 or 400.',
  scope: 'targeted',
  judge: statusJudge(() => ({ statuses: [415, 400], label: '415 or 400' })),
});
