import { subscriptionKeyHeader } from '../../../contract/openapi.ts';
import { defineClientCheck, fail, PASSED } from '../types.ts';

/** The header as the contract spells it (names are compared without case). */
const NAME = subscriptionKeyHeader();
const EXPECTED = `the header ${NAME} with the subscription key (section 5.1)`;

/** Section 5.1: every operation requires the header Ocp-Apim-Subscription-Key, carrying the subscription key. */
export default defineClientCheck({
  id: 'client.key',
  level: 'spec',
  sections: ['4', '5'],
  reading: 'Key',
  description: 'Every request carries the header Ocp-Apim-Subscription-Key with the key the client was given (5.1: every operation requires it).',
  judge({ request, session }) {
    const sent = request.headers[session.keyHeader];
    if (sent === session.key) return PASSED;
    if (sent === undefined) return fail(EXPECTED, `no ${NAME} header`);
    if (sent.trim() === '') return fail(EXPECTED, `an empty ${NAME} header`);
    return fail(EXPECTED, 'a key that is not the one the client was given');
  },
});
