import { statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Section 7: bytes no JSON or XML parser accepts are a bad request. What lenient parsers accept (single
 * quotes, comments, trailing content, an XML root of another name) is only observed. */
export default defineCheck({
  id: 'body.malformed',
  level: 'spec',
  sections: ['2.1', '2.3', '7'],
  reading: 'Syntax',
  description: 'A body no JSON or XML parser accepts (cut short, not JSON at all, unclosed or mismatched elements) is refused with 400.',
  scope: 'targeted',
  judge: statusJudge(() => ({ statuses: [400], label: '400 (section 7)' })),
});
