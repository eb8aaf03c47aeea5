import { describeAnswer, statusOf } from '../../contract/answer.ts';
import { operation } from '../../contract/operations.ts';
import { defineCheck } from '../types.ts';

/** RFC 9110 section 15.5.14: an oversized body is refused, or taken, but never breaks the server. */
export default defineCheck({
  id: 'http.payload-too-large',
  level: 'http',
  sections: ['RFC 9110 §15.5.14'],
  reading: 'HTTP conventions',
  description: 'An oversized body is refused with 413 or 400 (the connection may be closed), or taken with a documented answer; never 5xx.',
  scope: 'targeted',
  judge({ operation: opId, exchange, params }) {
    const expected = `413 or 400, or a documented answer, because ${params.because}`;
    const status = statusOf(exchange);
    if (status === null) {
      const closed = exchange.error?.code === 'CONNECTION_RESET';
      return { verdict: closed ? 'pass' : 'fail', expected, received: describeAnswer(exchange) };
    }
    const documented = opId ? operation(opId).statuses : [];
    const ok = status === 413 || status === 400 || documented.includes(status);
    return { verdict: ok ? 'pass' : 'fail', expected, received: describeAnswer(exchange) };
  },
});
