import { bodyMismatch, contentTypeOf } from '../../contract/answer.ts';
import { fail, pass } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** RFC 9110 section 8.3: content comes with a Content-Type that says what it is. */
export default defineCheck({
  id: 'http.content-type',
  level: 'http',
  sections: ['RFC 9110 §8.3'],
  reading: 'HTTP conventions',
  description: 'An answer with a body declares its Content-Type, and a JSON or XML body parses as what it declares.',
  scope: 'every-exchange',
  judge({ exchange }) {
    const response = exchange.response;
    if (!response || exchange.error || response.bodyBytes === 0) return null;
    const type = contentTypeOf(exchange);
    const expected = 'a Content-Type matching the body';
    if (!type) return fail(expected, `${response.status} with a ${response.bodyBytes}-byte body and no Content-Type`);
    const mismatch = bodyMismatch(exchange);
    return mismatch ? fail(expected, `${type}: ${mismatch}`) : pass(expected, type);
  },
});
