import { defineCheck } from '../types.ts';

/** Sections 4.2, 4.3, 4.4: "204 No Content ... no body". */
export default defineCheck({
  id: 'response.no-body-204',
  level: 'spec',
  sections: ['4.2', '4.3', '4.4'],
  reading: 'Statuses and bodies',
  description: 'A 204 answer carries no body.',
  scope: 'every-exchange',
  judge({ exchange }) {
    const response = exchange.response;
    // A transport error after a 204 head still leaves the head to judge (undici refuses a 204 that announces a body).
    if (!response || response.status !== 204 || (exchange.error && exchange.error.code !== 'PROTOCOL')) return null;
    if (response.bodyBytes > 0) return { verdict: 'fail', expected: 'no body', received: `${response.bodyBytes} bytes: ${JSON.stringify(response.body.slice(0, 80))}` };
    // HTTP/1.1 parsers drop bytes sent after a 204, but a Content-Length other than 0 announces that many
    // (RFC 9110 §8.6). Transfer-Encoding announces no length: a 204 framed chunked with no bytes carries no
    // body, and the framing rule it breaks (RFC 9112 §6.1) is HTTP's, not the document's (docs/readings.md).
    const length = response.headers['content-length'];
    if (length !== undefined && length.trim() !== '0') return { verdict: 'fail', expected: 'no body', received: `204 announcing a body (Content-Length: ${length})` };
    return { verdict: 'pass', expected: 'no body', received: 'no body' };
  },
});
