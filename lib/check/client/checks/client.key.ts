import { defineClientCheck, fail, pass } from '../types.ts';

/** Section 5.1: every operation requires the header Ocp-Apim-Subscription-Key, carrying the subscription key. */
export default defineClientCheck({
  id: 'client.key',
  level: 'spec',
  sections: ['4', '5'],
  reading: 'Key',
  description: 'Every request carries the header Ocp-Apim-Subscription-Key with the key the client was given (5.1: every operation requires it).',
  judge({ request, session }) {
    const expected = `the header ${headerName(session.keyHeader)} with the subscription key (section 5.1)`;
    const sent = request.headers[session.keyHeader];
    if (sent === undefined) return fail(expected, `no ${headerName(session.keyHeader)} header`);
    if (sent.trim() === '') return fail(expected, `an empty ${headerName(session.keyHeader)} header`);
    if (sent !== session.key) return fail(expected, 'a key that is not the one the client was given');
    return pass(expected, 'the key');
  },
});

function headerName(lower: string): string {
  return lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => `${dash}${c.toUpperCase()}`);
}
