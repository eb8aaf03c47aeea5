import { describeAnswer, statusOf } from '../../contract/answer.ts';
import { methodsOnPath } from '../../contract/operations.ts';
import type { Because } from '../../generate/expectations.ts';
import { defineCheck } from '../types.ts';

interface MethodParams extends Because {
  /** The documented path whose methods Allow must list. */
  path: string;
}

/** Statuses that refuse a request's content: the method itself is served on the path. */
const SERVED = new Set([400, 411, 415, 422]);

/**
 * RFC 9110 sections 15.5.6 and 10.2.1: a method the resource does not support is refused, and a 405 must
 * list the allowed methods. A gateway that knows no such operation may answer 404 (Azure API Management
 * does), or 501 for a method it does not recognise; neither is a failure.
 */
export default defineCheck<MethodParams>({
  id: 'http.method-not-allowed',
  level: 'http',
  sections: ['RFC 9110 §15.5.6', 'RFC 9110 §10.2.1'],
  reading: 'HTTP conventions',
  description: 'A method the document does not define on a documented path is refused: 405 with an Allow header naming the documented methods (or 404/501 from a gateway that knows no such operation); a refusal of the request\'s content (400, 411, 415, 422) shows the server serves the method there, outside the document, and is not judged.',
  scope: 'targeted',
  params: { type: 'object', properties: { path: { type: 'string', pattern: '^/' } }, required: ['path'] },
  judge({ exchange, params }) {
    const methods = methodsOnPath(params.path);
    const expected = `405 with Allow: ${methods.join(', ')} (or 404/501) because ${params.because}`;
    const status = statusOf(exchange);
    if (status === 404 || status === 501) return { verdict: 'pass', expected, received: describeAnswer(exchange) };
    // A refusal of the request's content (415, 411, 400, 422: a PATCH or PUT without a body) says the server serves
    // the method there, outside the document (production's Agency API serves PUT /submission): RFC 9110 asks 405
    // only of a method the resource does not support, so there is nothing to judge.
    if (status !== null && SERVED.has(status)) return { verdict: 'skip', expected, received: `${describeAnswer(exchange)}: the method is served on ${params.path}, outside the document` };
    if (status !== 405) return { verdict: 'fail', expected, received: describeAnswer(exchange) };
    const allow = exchange.response?.headers.allow;
    if (!allow) return { verdict: 'fail', expected, received: '405 without an Allow header' };
    const listed = allow.split(',').map((m) => m.trim().toUpperCase());
    const missing = methods.filter((m) => !listed.includes(m));
    return missing.length > 0
      ? { verdict: 'fail', expected, received: `405 with Allow: ${allow} (missing ${missing.join(', ')})` }
      : { verdict: 'pass', expected, received: `405 with Allow: ${allow}` };
  },
});
