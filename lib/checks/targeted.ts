import type { OperationId } from '../contract/operations.ts';
import { methodsOnPath, operation } from '../contract/operations.ts';
import { describeAnswer, statusOf } from './answer.ts';
import type { Check, JudgeInput, Judgement, Level } from './types.ts';

/**
 * Checks a case asks for, with parameters: each says which status (or answer) the document requires
 * for the request the case built. Every one of them fails on a missing answer.
 */

/** Parameters shared by targeted checks: what the request was built to show, for the report. */
export interface Because {
  /** One line: why this answer is expected (e.g. 'agencyCode "1234" is 4 characters, the limit is exactly 3'). */
  because: string;
  /** Sections to report instead of the check's own (e.g. the field's sections for a limit). */
  sections?: string[];
}

function opSection(opId: OperationId | null): string {
  return opId ? operation(opId).section : '?';
}

/** The error statuses the document lists for an operation (400 and 404 for merge, delete and demerge). */
function documentedErrors(opId: OperationId | null): number[] {
  return opId ? operation(opId).statuses.filter((s) => s >= 400) : [];
}

/** The refusal an operation documents, for a request where more than one of its error statuses fits. */
function refusal(opId: OperationId | null): { statuses: number[]; label: string } {
  const errors = documentedErrors(opId);
  return { statuses: errors, label: `a refusal: ${errors.join(' or ')} (section ${opSection(opId)}, 7; which one is recorded, never a success)` };
}

function statusCheck<P extends Because>(
  id: string,
  level: Level,
  sections: string[],
  description: string,
  allowed: (input: JudgeInput<P>) => { statuses: number[]; label: string },
  /** Accept 401/403 where the request acts for another agency (5.3: not shown which agency a key may act for). */
  foreignAgencyOk = false,
): Check<P> {
  return {
    id,
    level,
    sections,
    description,
    scope: 'targeted',
    judge(input): Judgement {
      const { statuses, label } = allowed(input);
      const foreign = foreignAgencyOk && input.foreignAgency === true;
      const expected = `${label}${foreign ? ' (or 401/403: another agency than the profile\'s, 5.3)' : ''} because ${input.params.because}`;
      const status = statusOf(input.exchange);
      if (status === null) return { verdict: 'fail', expected, received: describeAnswer(input.exchange) };
      const ok = statuses.includes(status) || (foreign && (status === 401 || status === 403));
      return { verdict: ok ? 'pass' : 'fail', expected, received: describeAnswer(input.exchange) };
    },
  };
}

/** Section 4: a valid request on existing data gets the documented success status. */
export const success = statusCheck<Because>(
  'status.success',
  'spec',
  ['4'],
  'A valid request on data that exists gets the documented success status (200 for the run notification, 204 for the others).',
  ({ operation: opId }) => {
    const status = opId ? operation(opId).successStatus : 200;
    return { statuses: [status], label: `${status} (section ${opSection(opId)})` };
  },
  true,
);

/**
 * Sections 4.2-4.4 and 7: 404 where the document ties it to the case: the preferred ISWC named does not
 * exist and everything else names existing data ("ISWC not found", "submission not found").
 */
export const notFound = statusCheck<Because>(
  'status.not-found',
  'spec',
  ['4.2', '4.3', '4.4', '7'],
  'A request naming a preferred ISWC that does not exist, everything else naming existing data, gets 404.',
  ({ operation: opId }) => ({ statuses: [404], label: `404 (section ${opSection(opId)}, 7)` }),
  true,
);

/**
 * Sections 4.2-4.4 and 7: where the document lists more than one error status that fits (a demerge of
 * metadata never merged, a delete naming another agency, work code or source database, an ISWC of the
 * merge body that does not exist), any of the operation's documented error statuses is conformant, and
 * a success never is. Which one came is recorded by `observed.refusal`.
 */
export const refused = statusCheck<Because>(
  'status.refused',
  'spec',
  ['4.2', '4.3', '4.4', '7'],
  'A request naming what does not exist, where the document lets 400 or 404 answer it, is refused with one of the operation\'s documented error statuses, never a success.',
  ({ operation: opId }) => refusal(opId),
  true,
);

/**
 * Sections 4.2-4.4 and 8: a query parameter that breaks the length or type of the field it names (agency,
 * workcode, sourceDb) can never name existing data. The document lets "bad request" and "not found"
 * answer it, so either refuses it; a success never does.
 */
export const queryRefused = statusCheck<Because>(
  'query.refused',
  'spec',
  ['4.2', '4.3', '4.4', '8'],
  'A merge, delete or demerge whose query parameter breaks the length or type of the field it names (agency, workcode, sourceDb) is refused with a documented error status (400 or 404), never a success.',
  ({ operation: opId }) => refusal(opId),
  true,
);

/**
 * Section 5: every operation requires the subscription key. The run notification documents 401 (4.1,
 * 5.2); for the others the answer is not shown (5.3), so 401, 403 or a bad request (400) refuse it. A
 * 404 or a success shows the request was served without the key.
 */
export const authRequired = statusCheck<Because>(
  'auth.required',
  'spec',
  ['5', '4.1'],
  'A request without the key, or with a wrong key, is refused: 401 on the run notification; 400, 401 or 403 on the others (the answer is not shown for them).',
  ({ operation: opId }) => {
    const op = opId ? operation(opId) : null;
    // Where the document states 401 (the run notification), 401; elsewhere a bad request or one of the
    // answers the contract lists as not shown (401, 403).
    if (!op || op.statuses.includes(401)) return { statuses: [401], label: '401 (sections 4.1, 5.2)' };
    const statuses = [...op.statuses.filter((s) => s === 400), ...op.notShownStatuses];
    return { statuses, label: `${statuses.join(', ')} (section 5.3: the answer is not shown for this operation; which one is recorded)` };
  },
);

/** Sections 2 and 8: a value past a stated limit is a bad request. */
export const limitRejected = statusCheck<Because>(
  'limit.rejected',
  'spec',
  ['8'],
  'A body value one past a stated limit (length in characters every reading counts alike, pattern, 32-bit range) is refused with 400.',
  () => ({ statuses: [400], label: '400 (section 8)' }),
);

export interface AcceptParams extends Because {
  /**
   * The status the same request got with a nominal value in place of the one at the limit (null when it
   * got no answer). Both name data that exists, or both not, so only the value can make them differ.
   */
  nominalStatus: number | null;
}

/**
 * Sections 2 and 8: a value at a stated limit is not refused because of that limit. Shown differentially,
 * so that it holds whatever the server answers for the data named: the same request with a nominal value
 * got some status, and the request with the value at the limit must get the same one.
 */
export const limitAccepted: Check<AcceptParams> = {
  id: 'limit.accepted',
  level: 'spec',
  sections: ['8'],
  description: 'A realistic value at a stated limit gets the same answer as the same request with a nominal value (it is not refused because of the limit).',
  scope: 'targeted',
  judge({ exchange, params }) {
    const nominal = params.nominalStatus;
    const expected = `${nominal ?? '?'}, the status of the same request with a nominal value, because ${params.because}`;
    if (nominal === null || nominal >= 500) {
      return { verdict: 'skip', expected, received: `the nominal request got ${nominal === null ? 'no answer' : `a ${nominal}`}: nothing to compare with` };
    }
    const status = statusOf(exchange);
    return { verdict: status === nominal ? 'pass' : 'fail', expected, received: describeAnswer(exchange) };
  },
};

/**
 * Section 2: a value no reading can take as its field's type is a bad request. Values a lenient
 * deserializer converts without loss ("5" for an integer, a number for a string) are only observed.
 */
export const typeRejected = statusCheck<Because>(
  'type.rejected',
  'spec',
  ['2.1', '2.3', '2.4', '7'],
  'A body value no reading can take as its field\'s type (a non-numeric string or a fraction for an int32, an object or array for a scalar, a body that is not an object) is refused with 400.',
  () => ({ statuses: [400], label: '400 (sections 2, 7)' }),
);

/**
 * Section 7: bytes no JSON or XML parser accepts, or XML whose root is not the one the document names, are
 * a bad request. What lenient parsers accept (single quotes, comments, trailing content) is only observed.
 */
export const malformedRejected = statusCheck<Because>(
  'body.malformed',
  'spec',
  ['2.1', '2.3', '7'],
  'A body no JSON or XML parser accepts (cut short, not JSON at all, unclosed elements), or XML with another root element than the document names, is refused with 400.',
  () => ({ statuses: [400], label: '400 (section 7)' }),
);

/** Section 4: Content-Type is optional, so a body without it is still understood. */
export const contentTypeOptional = statusCheck<Because>(
  'content-type.optional',
  'spec',
  ['4.1', '4.2'],
  'A JSON or XML body sent without Content-Type (optional, section 4) is understood: the documented success status.',
  ({ operation: opId }) => {
    const status = opId ? operation(opId).successStatus : 200;
    return { statuses: [status], label: `${status} (section 4: Content-Type is optional)` };
  },
);

/** Section 3: a successful merge makes the merged metadata part of the preferred ISWC (demergeable). */
export const outcomeMerge = statusCheck<Because>(
  'outcome.merge',
  'spec',
  ['3', '4.2', '4.4'],
  'After a successful merge, the merged agency work can be demerged from the preferred ISWC (204).',
  () => ({ statuses: [204], label: '204 (sections 3, 4.4)' }),
);

/** Section 3: a successful demerge removes the metadata, so repeating it finds nothing to remove. */
export const outcomeDemerge = statusCheck<Because>(
  'outcome.demerge',
  'spec',
  ['3', '4.4'],
  'After a successful demerge, the same demerge is refused (400 or 404, never a success): the metadata is gone.',
  ({ operation: opId }) => refusal(opId),
);

/** Section 4.4: "the demerge operation removes one set of metadata from exactly one preferred ISWC". */
export const outcomeDemergeOne = statusCheck<Because>(
  'outcome.demerge-one',
  'spec',
  ['4.4', '3'],
  'A demerge removes one set of metadata: another work merged into the same preferred ISWC can still be demerged (204).',
  () => ({ statuses: [204], label: '204 (section 4.4: a demerge removes one set of metadata)' }),
);

/** Section 3: a successful delete removes the submission, so repeating it finds nothing to delete. */
export const outcomeDelete = statusCheck<Because>(
  'outcome.delete',
  'spec',
  ['3', '4.3'],
  'After a successful submission delete, the same delete is refused (400 or 404, never a success): the submission is gone.',
  ({ operation: opId }) => refusal(opId),
);

/** Section 2.5: a submission is identified by preferred ISWC, agency, work code and source database together. */
export const outcomeIdentity = statusCheck<Because>(
  'outcome.identity',
  'spec',
  ['2.5', '4.3'],
  'A delete or demerge naming another value than the stored one (source database, agency, work code, preferred ISWC) leaves the data in place: naming it rightly afterwards still succeeds (204).',
  () => ({ statuses: [204], label: '204 (section 2.5: the submission is identified by all four values)' }),
);

export interface MethodParams extends Because {
  path: string;
}

/**
 * RFC 9110 sections 15.5.6 and 10.2.1: a method the resource does not support is refused, and a 405 must
 * list the allowed methods. A gateway that knows no such operation may answer 404 (Azure API Management
 * does), or 501 for a method it does not recognise; neither is a failure.
 */
export const methodNotAllowed: Check<MethodParams> = {
  id: 'http.method-not-allowed',
  level: 'http',
  sections: ['RFC 9110 §15.5.6', 'RFC 9110 §10.2.1'],
  description: 'A method the document does not define on a documented path is refused: 405 with an Allow header naming the documented methods (or 404/501 from a gateway that knows no such operation).',
  scope: 'targeted',
  judge({ exchange, params }) {
    const methods = methodsOnPath(params.path);
    const expected = `405 with Allow: ${methods.join(', ')} (or 404/501) because ${params.because}`;
    const status = statusOf(exchange);
    if (status === 404 || status === 501) return { verdict: 'pass', expected, received: describeAnswer(exchange) };
    if (status !== 405) return { verdict: 'fail', expected, received: describeAnswer(exchange) };
    const allow = exchange.response?.headers.allow;
    if (!allow) return { verdict: 'fail', expected, received: '405 without an Allow header' };
    const listed = allow.split(',').map((m) => m.trim().toUpperCase());
    const missing = methods.filter((m) => !listed.includes(m));
    return missing.length > 0
      ? { verdict: 'fail', expected, received: `405 with Allow: ${allow} (missing ${missing.join(', ')})` }
      : { verdict: 'pass', expected, received: `405 with Allow: ${allow}` };
  },
};

/** RFC 9110 section 15.5.5: a path the API does not have is not found. */
export const unknownPath = statusCheck<Because>(
  'http.unknown-path',
  'http',
  ['RFC 9110 §15.5.5'],
  'A path the document does not define gets 404.',
  () => ({ statuses: [404], label: '404' }),
);

/** RFC 9110 section 15.5.16: a body in a media type the API does not take is refused. */
export const unsupportedMediaType = statusCheck<Because>(
  'http.unsupported-media-type',
  'http',
  ['RFC 9110 §15.5.16'],
  'A body in a media type other than JSON or XML is refused with 415 or 400.',
  () => ({ statuses: [415, 400], label: '415 or 400' }),
);

/** RFC 9110 section 15.5.14: an oversized body is refused, or taken, but never breaks the server. */
export const payloadTooLarge: Check<Because> = {
  id: 'http.payload-too-large',
  level: 'http',
  sections: ['RFC 9110 §15.5.14'],
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
};

export interface EntityParams extends Because {
  /** The text the declared entity stands for: it must never come back in an answer. */
  marker: string;
  /** The body is valid only if the entity is expanded: a success then proves expansion. */
  validOnlyIfExpanded?: boolean;
}

/** Safe handling (XXE): entities declared in a DOCTYPE are never expanded. */
export const xmlEntities: Check<EntityParams> = {
  id: 'http.xml-entities',
  level: 'http',
  sections: ['RFC 9110 §17', 'OWASP XXE'],
  description: 'XML with a DOCTYPE declaring entities is refused or taken without expanding them (the entity text never comes back).',
  scope: 'targeted',
  judge({ exchange, params }) {
    const expected = `400, or an answer without the entity's text, because ${params.because}`;
    const status = statusOf(exchange);
    if (status === null) return { verdict: 'fail', expected, received: describeAnswer(exchange) };
    const leaked = exchange.response?.body.includes(params.marker) ?? false;
    const expanded = params.validOnlyIfExpanded === true && status >= 200 && status < 300;
    return { verdict: leaked || expanded || status >= 500 ? 'fail' : 'pass', expected, received: describeAnswer(exchange) };
  },
};

export interface SequenceParams extends Because {
  /** What the model predicts from what was merged, demerged and deleted before: a status, or a refusal. */
  status: number | 'refused';
}

/** Section 3: the outcomes of merge, demerge and delete, over a sequence of commands. */
export const outcomeSequence: Check<SequenceParams> = {
  id: 'outcome.sequence',
  level: 'spec',
  sections: ['3', '4.2', '4.3', '4.4'],
  description: 'Over a generated sequence of merges, demerges and deletes, each answer is the one a model of the stated outcomes predicts (204, or a refusal with a documented error status).',
  scope: 'targeted',
  judge({ operation: opId, exchange, params }) {
    const status = statusOf(exchange);
    if (params.status === 'refused') {
      const { statuses, label } = refusal(opId);
      return { verdict: status !== null && statuses.includes(status) ? 'pass' : 'fail', expected: `${label} because ${params.because}`, received: describeAnswer(exchange) };
    }
    return { verdict: status === params.status ? 'pass' : 'fail', expected: `${params.status} because ${params.because}`, received: describeAnswer(exchange) };
  },
};
