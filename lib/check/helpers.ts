import { bodyShape, carriesText, contentTypeOf, describeAnswer, runIdOf, statusOf } from '../contract/answer.ts';
import type { OperationId } from '../contract/operations.ts';
import { operation } from '../contract/operations.ts';
import type { Because } from '../generate/expectations.ts';
import type { JudgeInput, Judgement } from './types.ts';

/** Small shared pieces of checks: verdict builders, the documented refusal, status-set judges, observations. */

export const pass = (expected: string, received: string): Judgement => ({ verdict: 'pass', expected, received });
export const fail = (expected: string, received: string): Judgement => ({ verdict: 'fail', expected, received });

export function opSection(opId: OperationId | null): string {
  return opId ? operation(opId).section : '?';
}

/** The refusal an operation documents, for a request where more than one of its error statuses fits. */
export function refusal(opId: OperationId | null): { statuses: number[]; label: string } {
  const errors = opId ? operation(opId).statuses.filter((s) => s >= 400) : [];
  return { statuses: errors, label: `a refusal: ${errors.join(' or ')} (section ${opSection(opId)}, 7; which one is recorded, never a success)` };
}

/**
 * The refusal of a request without a valid key (section 5): 401 where the document states it (the run
 * notification); elsewhere the answer is not shown (5.3), so any of the operation's documented error
 * statuses, or one of the answers the contract lists as not shown (401, 403).
 */
export function keyRefusal(opId: OperationId | null, badRequestFits?: 'an empty key' | 'a body without agencyCode'): { statuses: number[]; label: string } {
  const op = opId ? operation(opId) : null;
  // A header without a value is a missing key to one reader and a malformed request to another (ASP.NET Core's
  // [FromHeader, Required]), and a server may validate a body before it looks at the key: on the run
  // notification both statuses are documented, and either refuses it.
  if (badRequestFits !== undefined && op?.statuses.includes(401) && op.statuses.includes(400)) return { statuses: [401, 400], label: `401 or 400 (sections 4.1, 5.2: ${badRequestFits} may be refused as a missing key or as a bad request; which one is recorded)` };
  if (!op || op.statuses.includes(401)) return { statuses: [401], label: '401 (sections 4.1, 5.2)' };
  const statuses = [...op.statuses.filter((s) => s >= 400), ...op.notShownStatuses];
  return { statuses, label: `${statuses.join(', ')} (section 5.3: the answer is not shown for this operation; which one is recorded)` };
}

/**
 * The refusal of a request without the key sent in another shape (issue 38: no Content-Type, a query
 * parameter given twice, an Accept of the other format): the key's refusal, or 400, 406 or 415, since a
 * server may refuse the shape for itself before it looks at the key. Only a success shows the key skipped.
 */
export function shapeKeyRefusal(opId: OperationId | null, shape: string): { statuses: number[]; label: string } {
  const base = keyRefusal(opId);
  const statuses = [...new Set([...base.statuses, 400, 406, 415])];
  return { statuses, label: `${statuses.join(', ')} (section 5: the key is missing whatever the shape of the request; ${shape} may be refused for itself first, 400, 406 or 415; which one is recorded, never a success)` };
}

/**
 * A request without the key on another spelling of an operation's path (a trailing slash, capitals), which a
 * router may take for the operation's path or not route at all: only the operation's own success (its success
 * status; on the run notification, a run's runId) shows it served without the key. Any other answer passes: a
 * refusal, or the path not routed (a server answering every unknown path 200 is http.unknown-path's fault, not
 * the key's).
 */
export function otherPathJudge<P extends Because>(input: JudgeInput<P>, shape: string): Judgement {
  const op = input.operation ? operation(input.operation) : null;
  const expected = `no success of the operation (section 5: the key is missing, however the path is spelled; ${shape} may be refused or not routed, 403, 404 or 405) because ${input.params.because}`;
  const status = statusOf(input.exchange);
  if (status === null) return fail(expected, describeAnswer(input.exchange));
  const served = op !== null && status === op.successStatus && (op.id !== 'notifyAgentRun' || runIdOf(input.exchange) !== undefined);
  return { verdict: served ? 'fail' : 'pass', expected, received: describeAnswer(input.exchange) };
}

/**
 * A judge that passes when the answer's status is one of `allowed`; with `foreignAgencyOk`, 401 or 403
 * also pass where the request acts for another agency (5.3: which agency a key may act for is not shown).
 * A missing answer fails.
 */
export function statusJudge<P extends Because>(allowed: (input: JudgeInput<P>) => { statuses: number[]; label: string }, foreignAgencyOk = false) {
  return (input: JudgeInput<P>): Judgement => {
    const { statuses, label } = allowed(input);
    const foreign = foreignAgencyOk && input.foreignAgency === true;
    const expected = `${label}${foreign ? " (or 401/403: another agency than the profile's, 5.3)" : ''} because ${input.params.because}`;
    const status = statusOf(input.exchange);
    if (status === null) return fail(expected, describeAnswer(input.exchange));
    const ok = statuses.includes(status) || (foreign && (status === 401 || status === 403));
    return { verdict: ok ? 'pass' : 'fail', expected, received: describeAnswer(input.exchange) };
  };
}

/** The judge of an `observed` check: records status, content type, body shape and the request's facts. */
export function observe({ exchange, params }: JudgeInput<Because>): Judgement {
  const status = statusOf(exchange);
  const observation = {
    status: status ?? exchange.error?.code ?? null,
    contentType: contentTypeOf(exchange) ?? null,
    body: bodyShape(exchange),
    ...(exchange.response?.encoding !== undefined ? { encoding: exchange.response.encoding } : {}),
    ...(params.facts ? { request: params.facts } : {}),
  };
  return {
    verdict: 'observed',
    expected: `not shown by the document: ${params.because}`,
    received: `${observation.status} ${observation.contentType ?? ''} ${observation.body}`.replace(/\s+/g, ' '),
    observation,
  };
}

/** A judge for a status whose text the document states (400 "Bad Request", 401 "Not Authorized"). */
export function statedText(status: number) {
  return ({ operation: opId, exchange }: JudgeInput<Because>): Judgement | null => {
    const response = exchange.response;
    if (!opId || !response || exchange.error || response.status !== status) return null;
    const text = operation(opId).texts[status];
    if (text === undefined) return null;
    const expected = `the text ${JSON.stringify(text)} as the body, a JSON string value or an XML text node (sections ${operation(opId).section}, 7)`;
    return carriesText(response.body, text) ? pass(expected, describeAnswer(exchange)) : fail(expected, describeAnswer(exchange));
  };
}
