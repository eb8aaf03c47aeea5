import { describeAnswer } from '../../contract/answer.ts';
import { fail, pass } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** RFC 9112 section 6: every request gets a complete HTTP answer within the timeout. */
export default defineCheck({
  id: 'http.answered',
  level: 'http',
  sections: ['RFC 9112 §6'],
  reading: 'HTTP conventions',
  description: 'Every request gets a complete HTTP answer within the timeout and the size limit.',
  scope: 'every-exchange',
  judge({ exchange, connectionMayClose }) {
    if (exchange.error?.code === 'THROTTLED') return null;
    if (connectionMayClose && exchange.error?.code === 'CONNECTION_RESET') return pass('a complete HTTP answer, or the connection closed', 'connection closed');
    return exchange.error ? fail('a complete HTTP answer', describeAnswer(exchange)) : pass('a complete HTTP answer', String(exchange.response?.status));
  },
});
