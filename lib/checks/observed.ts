import { bodyShape, contentTypeOf, statusOf } from './answer.ts';
import type { Check } from './types.ts';

/**
 * `observed` checks: the document says "not shown", so the harness records what the server does (status,
 * content type, body shape) and never fails. Regression reports diff these records between builds.
 */
export interface ObservedParams {
  /** The question the request asks, e.g. 'agent run with all fields missing'. */
  because: string;
  sections?: string[];
  /** Facts about the request recorded with the answer (e.g. a value's length under each reading). */
  facts?: Record<string, unknown>;
}

function observedCheck(id: string, sections: string[], description: string, scope: Check['scope'] = 'targeted'): Check<ObservedParams> {
  return {
    id,
    level: 'observed',
    sections,
    description,
    scope,
    judge({ exchange, params }) {
      const status = statusOf(exchange);
      const observation = {
        status: status ?? exchange.error?.code ?? null,
        contentType: contentTypeOf(exchange) ?? null,
        body: bodyShape(exchange),
        ...(params.facts ? { request: params.facts } : {}),
      };
      return {
        verdict: 'observed',
        expected: `not shown by the document: ${params.because}`,
        received: `${observation.status} ${observation.contentType ?? ''} ${observation.body}`.replace(/\s+/g, ' '),
        observation,
      };
    },
  };
}

export const observedRequiredness = observedCheck('observed.requiredness', ['4'], 'What the server does with missing fields, null values and extra fields (required-ness is not shown).');
export const observedResponseFormat = observedCheck('observed.response-format', ['4.1'], 'Which representation (JSON or XML) answers, for each request format and Accept header (not shown).');
export const observedAuthAnswer = observedCheck('observed.auth-answer', ['5'], 'Which status and body answer a missing or wrong key on the operations other than the run notification (not shown).');
export const observedIswcHandling = observedCheck('observed.iswc-handling', ['2.5', '4.2', '4.3', '4.4'], 'What a malformed preferredIswc or a wrong check digit gets (the document states no pattern for the parameter).');
export const observedReasonCode = observedCheck('observed.reason-code', ['4.3'], 'What the submission delete does with a missing or blank reasonCode (allowed values are not shown).');
export const observedRunId = observedCheck('observed.run-id', ['2.2', '4.1'], 'Which runId answers a run notification that ends a run, and what a runId the server never issued gets (not shown).');
export const observedRefusal = observedCheck(
  'observed.refusal',
  ['4.2', '4.3', '4.4', '7'],
  'Which documented error status (400 or 404) refuses a request where the document lets either answer it.',
);
export const observedCharacters = observedCheck(
  'observed.characters',
  ['2.1', '2.4', '8'],
  'What a value at or past a length limit gets when the readings of "characters" (code points, UTF-16 units, grapheme clusters, bytes) count it differently: astral, combining, right-to-left, full-width characters.',
);
export const observedCoercion = observedCheck(
  'observed.coercion',
  ['2.1', '2.3', '2.4'],
  'What a value of another type gets when a lenient deserializer converts it without loss ("5" for an integer, a number or boolean for a string, a boolean for an integer) or, in XML, an element where text is expected.',
);
export const observedLenientSyntax = observedCheck(
  'observed.lenient-syntax',
  ['2.1', '2.3', '7'],
  'What a body gets that a strict JSON parser refuses and a lenient one accepts (single quotes, comments, trailing content).',
);
export const observedEdgeValues = observedCheck(
  'observed.edge-values',
  ['2.1', '2.3', '2.4', '4.3', '8'],
  'What values within or near the limits but unrealistic get: empty strings, control, NUL and bidi characters, negative or extreme counters and sourceDb, edge whitespace, ISWCs in lower case, with separators or full-width digits, duplicates.',
);

/** Every error answer's shape, where the document states no text: error body format is not shown (7). */
export const observedErrorBody: Check<undefined> = {
  id: 'observed.error-body',
  level: 'observed',
  sections: ['7'],
  description: 'The content type and shape of error answers for which the document states no text (error body format is not shown).',
  scope: 'every-exchange',
  judge({ exchange }) {
    const status = statusOf(exchange);
    if (status === null || status < 400) return null;
    const observation = { status, contentType: contentTypeOf(exchange) ?? null, body: bodyShape(exchange) };
    return {
      verdict: 'observed',
      expected: 'not shown by the document (section 7: error body format)',
      received: `${status} ${observation.contentType ?? ''} ${observation.body}`.replace(/\s+/g, ' '),
      observation,
    };
  },
};
