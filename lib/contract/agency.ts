import { decodeBody, sniffFormat } from './codec/index.ts';
import type { RequestSpec } from './exchange.ts';
import { operations } from './operations.ts';
import type { OperationId } from './operations.ts';

/**
 * Which agency a request acts for, and whether its answer says anything about the key: which agency a
 * key may act for is not shown (5.3), so a refusal of another agency's request proves nothing about it.
 */

/**
 * Does the request act for another agency than the profile's: the query `agency` of merge, delete and
 * demerge, the agencyCode of an agent run, or an agency work's agencyCode in a merge?
 */
export function actsForAnotherAgency(operationId: OperationId | null | undefined, request: Pick<RequestSpec, 'query' | 'body'>, agency: string): boolean {
  const queried = request.query?.find(([name]) => name === 'agency')?.[1];
  if (queried !== undefined && queried !== agency) return true;
  const body = request.body;
  if (typeof body !== 'string' || (operationId !== 'notifyAgentRun' && operationId !== 'mergeIswcMetadata')) return false;
  const format = sniffFormat(body);
  if (!format) return false;
  // Whitespace after the document is insignificant in JSON and XML; an oversized body padded with it (the
  // 2 MiB of http.payload-too-large) made the XML parser build megabytes of text for every look.
  const decoded = decodeBody(format, operationId === 'notifyAgentRun' ? 'AgentRun' : 'MergeRequest', body.trimEnd());
  if (!decoded.ok || decoded.value === null || typeof decoded.value !== 'object') return false;
  const value = decoded.value as Record<string, unknown>;
  if (operationId === 'notifyAgentRun') return value.agencyCode !== undefined && value.agencyCode !== agency;
  const works = Array.isArray(value.agencyWorks) ? (value.agencyWorks as unknown[]) : [];
  return works.some((w) => w !== null && typeof w === 'object' && (w as Record<string, unknown>).agencyCode !== undefined && (w as Record<string, unknown>).agencyCode !== agency);
}

/**
 * The source databases a key is known to act for, from the profile: its submissions' and the numeric form
 * of its agency (an agency that integrates directly submits under its own code). The portal ties a key to
 * agencies and source databases (5.3 does not show it), so a delete naming another may be refused 401/403.
 */
export function keySourceDbs(profile: { agency: string; submissions: ReadonlyArray<{ sourceDb: number }> }): number[] {
  return [...new Set([...profile.submissions.map((s) => s.sourceDb), ...(/^[0-9]+$/.test(profile.agency) ? [Number(profile.agency)] : [])])];
}

/** Does a submission delete name a source database the key is not known to act for (see keySourceDbs)? */
export function actsForAnotherSource(operationId: OperationId | null | undefined, request: Pick<RequestSpec, 'query'>, sourceDbs: readonly number[] | undefined): boolean {
  if (operationId !== 'deleteSubmission' || sourceDbs === undefined) return false;
  const named = request.query?.find(([name]) => name === 'sourceDb')?.[1];
  return named !== undefined && /^[+-]?[0-9]+$/.test(named) && !sourceDbs.includes(Number(named));
}

/** The documented operation at this method and path, written exactly as the document writes them; else undefined. */
export function documentedOperationAt(method: string, path: string): OperationId | undefined {
  return operations().find((op) => op.method === method && op.path === path)?.id;
}

/**
 * Does the answer to this request say whether the target accepts the key? Only a request sent with the
 * run's own key, to a documented operation (a gateway may refuse unknown paths and methods with 403), for
 * the profile's own agency (another agency may be refused with 401 or 403 by design, 5.3).
 */
export function showsKeyAcceptance(spec: RequestSpec, agency: string): boolean {
  if ((spec.auth ?? 'key') !== 'key') return false;
  const op = documentedOperationAt(spec.method, spec.path);
  return op !== undefined && !actsForAnotherAgency(op, spec, agency);
}

/** How many keyed requests for the profile's agency, all refused with 401/403, stop the run (see showsKeyAcceptance). */
export const KEY_REFUSED_AFTER = 5;

/** The reason a run stops when the target refuses the key: it names the variable and the agency. */
export function keyRefusedReason(agency: string, after = KEY_REFUSED_AFTER): string {
  return `the target refused the key on every request: check ISWC_SUBSCRIPTION_KEY, and that it may act for agency ${agency} (the first ${after} requests sent with it for that agency were answered 401 or 403)`;
}
