import { describeAnswer } from '../../contract/answer.ts';
import { fail, pass } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** RFC 9112 section 6: every request gets a complete HTTP answer within the timeout. */
export default defineCheck({
  id: 'http.answered',
  level: 'http',
  sections: ['RFC 9112 §6'],
  reading: 'HTTP conventions',
  description: 'Every request gets a complete HTTP answer within the timeout (ISWC_TIMEOUT_MS) and the size limit; a late answer from a target not on this machine is judged by the spec checks as any answer, and failed here.',
  scope: 'every-exchange',
  judge({ exchange, connectionMayClose }) {
    if (exchange.error?.code === 'THROTTLED') return null;
    if (connectionMayClose && exchange.error?.code === 'CONNECTION_RESET') return pass('a complete HTTP answer, or the connection closed', 'connection closed');
    if (exchange.error) return fail('a complete HTTP answer', describeAnswer(exchange));
    // A late answer is judged by the spec checks as any answer (the document states no response time); here it is late.
    if (exchange.lateAfterMs !== undefined) return fail(`a complete HTTP answer within ${exchange.lateAfterMs} ms (ISWC_TIMEOUT_MS)`, `${String(exchange.response?.status)}, answered after ${exchange.durationMs} ms`);
    return pass('a complete HTTP answer', String(exchange.response?.status));
  },
});
