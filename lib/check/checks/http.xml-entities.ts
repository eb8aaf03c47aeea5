import { describeAnswer, statusOf } from '../../contract/answer.ts';
import type { Because } from '../../generate/expectations.ts';
import { defineCheck } from '../types.ts';

interface EntityParams extends Because {
  /** The text the declared entity stands for: it must never come back in an answer. */
  marker: string;
  /**
   * The status of the same request whose entity stands for an invalid value. A success here where that one
   * was refused shows the entity's value was read, so expanded; the same answer to both shows it was not
   * (a server may drop the reference, keep it as text, or refuse the DOCTYPE).
   */
  invalidExpansionStatus?: number;
}

/** Safe handling (XXE): entities declared in a DOCTYPE are never expanded. */
export default defineCheck<EntityParams>({
  id: 'http.xml-entities',
  level: 'http',
  sections: ['RFC 9110 §17', 'OWASP XXE'],
  reading: 'HTTP conventions',
  description: 'XML with a DOCTYPE declaring entities is refused or taken without expanding them (the entity text never comes back).',
  scope: 'targeted',
  params: { type: 'object', properties: { marker: { type: 'string', minLength: 1 }, invalidExpansionStatus: { type: 'integer' } }, required: ['marker'] },
  judge({ exchange, params }) {
    const expected = `400, or an answer without the entity's text${params.invalidExpansionStatus !== undefined ? ` and the same as when the entity stands for an invalid value (${params.invalidExpansionStatus})` : ''}, because ${params.because}`;
    const status = statusOf(exchange);
    if (status === null) return { verdict: 'fail', expected, received: describeAnswer(exchange) };
    const leaked = exchange.response?.body.includes(params.marker) ?? false;
    const other = params.invalidExpansionStatus;
    const expanded = other !== undefined && status >= 200 && status < 300 && !(other >= 200 && other < 300);
    return { verdict: leaked || expanded || status >= 500 ? 'fail' : 'pass', expected, received: describeAnswer(exchange) };
  },
});
