import { decodeBody, formatOfContentType, sniffFormat } from '../codec/index.ts';
import { operation } from '../contract/operations.ts';
import { validateResource } from '../contract/validators.ts';
import { resourceSchema } from '../contract/constraints.ts';
import { bodyMismatch, carriesText, contentTypeOf, describeAnswer, statusOf } from './answer.ts';
import type { Check, Judgement } from './types.ts';

/** Checks applied to every answer the harness gets. */

const pass = (expected: string, received: string): Judgement => ({ verdict: 'pass', expected, received });
const fail = (expected: string, received: string): Judgement => ({ verdict: 'fail', expected, received });

/** Sections 4 and 7: an answer uses a status the document lists for the operation. */
export const statusDocumented: Check = {
  id: 'status.documented',
  level: 'spec',
  sections: ['4', '7'],
  description: 'Every answer uses a status the document lists for the operation (401/403 also where the key is missing or wrong).',
  scope: 'every-exchange',
  judge({ operation: opId, exchange, extraStatuses }) {
    const status = statusOf(exchange);
    if (!opId || status === null) return null;
    const op = operation(opId);
    const allowed = new Set([...op.statuses, ...extraStatuses]);
    const expected = `one of ${[...allowed].sort().join(', ')} (section ${op.section}, 7)`;
    return allowed.has(status) ? pass(expected, String(status)) : fail(expected, describeAnswer(exchange));
  },
};

/** RFC 9110 section 15.6: no input makes the server fail. */
export const no5xx: Check = {
  id: 'http.no-5xx',
  level: 'http',
  sections: ['RFC 9110 §15.6'],
  description: 'No request, valid or not, gets a 5xx answer.',
  scope: 'every-exchange',
  judge({ exchange }) {
    const status = statusOf(exchange);
    if (status === null) return null;
    return status < 500 ? pass('a status below 500', String(status)) : fail('a status below 500', describeAnswer(exchange));
  },
};

/** Every request gets a complete HTTP answer within the timeout. */
export const answered: Check = {
  id: 'http.answered',
  level: 'http',
  sections: ['RFC 9112 §6'],
  description: 'Every request gets a complete HTTP answer within the timeout and the size limit.',
  scope: 'every-exchange',
  judge({ exchange, connectionMayClose }) {
    if (exchange.error?.code === 'THROTTLED') return null;
    if (connectionMayClose && exchange.error?.code === 'CONNECTION_RESET') return pass('a complete HTTP answer, or the connection closed', 'connection closed');
    return exchange.error ? fail('a complete HTTP answer', describeAnswer(exchange)) : pass('a complete HTTP answer', String(exchange.response?.status));
  },
};

/** RFC 9110 section 8.3: content comes with a Content-Type that says what it is. */
export const contentTypeMatches: Check = {
  id: 'http.content-type',
  level: 'http',
  sections: ['RFC 9110 §8.3'],
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
};

const INTERNALS: readonly RegExp[] = [
  /\n\s*at [\w$.<>[\] ]+ \(?(?:[A-Za-z]:)?[\\/][^)\n]*:\d+(?::\d+)?\)?/, // Node/JS stack frame
  /\bat [\w.<>`]+\(.*\) in [^\n]*:line \d+/, // .NET stack frame
  /Traceback \(most recent call last\)/, // Python
  /\bnode_modules[\\/]/,
  /(?:^|[\s"'(])\/(?:srv|home|usr|var|opt|app)\/[\w./-]+\.(?:js|ts|cs|py|java|go)\b/,
  /[A-Za-z]:\\(?:[\w .-]+\\)+[\w .-]+\.(?:cs|js|dll|exe)\b/,
  /\bSystem\.[A-Z]\w+Exception\b/,
];

/** Safe handling: error answers do not leak stack traces or internal paths. */
export const noInternals: Check = {
  id: 'http.no-internals',
  level: 'http',
  sections: ['RFC 9110 §17'],
  description: 'Error answers carry no stack trace and no internal file path.',
  scope: 'every-exchange',
  judge({ exchange }) {
    const response = exchange.response;
    if (!response || response.status < 400 || response.bodyBytes === 0) return null;
    const hit = INTERNALS.find((re) => re.test(response.body));
    const expected = 'an error body without stack traces or internal paths';
    return hit ? fail(expected, `body matches ${hit.source.slice(0, 40)}…: ${describeAnswer(exchange)}`) : pass(expected, 'none found');
  },
};

/** Sections 4.2, 4.3, 4.4: "204 No Content ... no body". */
export const noBodyOn204: Check = {
  id: 'response.no-body-204',
  level: 'spec',
  sections: ['4.2', '4.3', '4.4'],
  description: 'A 204 answer carries no body.',
  scope: 'every-exchange',
  judge({ exchange }) {
    const response = exchange.response;
    // A transport error after a 204 head still leaves the head to judge (undici refuses a 204 that announces a body).
    if (!response || response.status !== 204 || (exchange.error && exchange.error.code !== 'PROTOCOL')) return null;
    if (response.bodyBytes > 0) return fail('no body', `${response.bodyBytes} bytes: ${JSON.stringify(response.body.slice(0, 80))}`);
    // HTTP/1.1 parsers drop bytes sent after a 204, but the framing headers that announce them stay
    // visible (RFC 9110 §8.6: no Content-Length other than 0 on a 204; RFC 9112 §6.1: no Transfer-Encoding).
    const length = response.headers['content-length'];
    const encoding = response.headers['transfer-encoding'];
    if ((length !== undefined && length.trim() !== '0') || encoding !== undefined) {
      return fail('no body', `204 announcing a body (${length !== undefined ? `Content-Length: ${length}` : `Transfer-Encoding: ${encoding}`})`);
    }
    return pass('no body', 'no body');
  },
};

/** Sections 2.2 and 4.1: the 200 of the run notification carries an agent run identifier, JSON or XML. */
export const runResponseBody: Check = {
  id: 'response.schema',
  level: 'spec',
  sections: ['2.2', '4.1'],
  description: 'The 200 of the run notification carries an agent run identifier (CsnNotification) in JSON or XML, valid against its schema, with a non-empty runId.',
  scope: 'every-exchange',
  judge({ operation: opId, exchange }) {
    const response = exchange.response;
    if (!opId || !response || exchange.error) return null;
    const op = operation(opId);
    const resource = op.responseResource[response.status];
    if (!resource) return null;
    const expected = `a ${resource} (section 2.2) as JSON or XML`;
    const declared = formatOfContentType(contentTypeOf(exchange));
    if (declared === 'text' || declared === 'other') return fail(expected, `Content-Type ${contentTypeOf(exchange)} is neither JSON nor XML`);
    const format = declared ?? sniffFormat(response.body);
    if (!format) return fail(expected, `a body that is neither JSON nor XML: ${describeAnswer(exchange)}`);
    const decoded = decodeBody(format, resource, response.body);
    if (!decoded.ok) return fail(expected, `${format.toUpperCase()} that does not decode: ${decoded.error}`);
    const violations = validateResource(resource, decoded.value);
    if (violations.length > 0) {
      return fail(expected, `${format.toUpperCase()} ${JSON.stringify(decoded.value)}: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`);
    }
    // Section 4.1: the 200 body *is* the agent run identifier, so its fields (runId) must be there and
    // not empty. Required-ness is open only for request bodies (section 4).
    const fields = Object.keys(resourceSchema(resource).properties ?? {});
    const value = decoded.value as Record<string, unknown>;
    const missing = fields.filter((f) => value[f] === undefined || value[f] === null || value[f] === '');
    if (missing.length > 0) return fail(expected, `${format.toUpperCase()} ${JSON.stringify(decoded.value)}: no ${missing.join(', ')}`);
    return pass(expected, `${format.toUpperCase()} ${JSON.stringify(decoded.value)}`);
  },
};

function statedText(id: string, status: number, sections: string[]): Check {
  return {
    id,
    level: 'spec',
    sections,
    description: `A ${status} of an operation for which the document states a text carries that text as a whole string: the body itself, a JSON string value (a problem+json title, a message) or an XML text node; the format is free (section 7).`,
    scope: 'every-exchange',
    judge({ operation: opId, exchange }) {
      const response = exchange.response;
      if (!opId || !response || exchange.error || response.status !== status) return null;
      const text = operation(opId).texts[status];
      if (text === undefined) return null;
      const expected = `the text ${JSON.stringify(text)} as the body, a JSON string value or an XML text node (sections ${operation(opId).section}, 7)`;
      return carriesText(response.body, text) ? pass(expected, describeAnswer(exchange)) : fail(expected, describeAnswer(exchange));
    },
  };
}

/** Section 4.1: 400 Bad Request, text "Bad Request". */
export const textBadRequest = statedText('text.bad-request', 400, ['4.1', '7']);
/** Sections 4.1 and 5.2: 401 Unauthorized, text "Not Authorized". */
export const textNotAuthorized = statedText('text.not-authorized', 401, ['4.1', '5']);
