import { describeAnswer, statusOf } from '../../contract/answer.ts';
import { fail, pass } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** RFC 9110 section 15.6: no input makes the server fail. */
export default defineCheck({
  id: 'http.no-5xx',
  level: 'http',
  sections: ['RFC 9110 §15.6'],
  reading: 'HTTP conventions',
  description: 'No request, valid or not, gets a 5xx answer.',
  scope: 'every-exchange',
  judge({ exchange }) {
    const status = statusOf(exchange);
    if (status === null) return null;
    return status < 500 ? pass('a status below 500', String(status)) : fail('a status below 500', describeAnswer(exchange));
  },
});
