import { documentedOperationAt } from './agency.ts';
import { resourceSchema } from './constraints.ts';
import type { RequestSpec } from './exchange.ts';
import { operations } from './operations.ts';

/**
 * A base URL under which the API's operations are not: every documented path answers 404. Found from
 * the run's own first answers, never by a request of its own: a run start (a run notification naming no
 * runId) has no 404 on any reading of the document (4.1 lists 200, 400 and 401; a server answers 404 only
 * for a run it never issued), so a run start answered 404, with every other documented path answered 404
 * too and nothing else answered yet, is a path that leads nowhere: a prefix missing, or one too many.
 */

/** Answers at documented paths, all 404, before the run stops on a wrong base path (one of them a run start). */
export const WRONG_BASE_AFTER = 2;

/** The run's answer to say whether the base path leads to the API: a run start, another documented operation, or neither. */
export function routeEvidence(spec: RequestSpec): 'run-start' | 'documented' | undefined {
  const op = documentedOperationAt(spec.method, spec.path);
  if (op === undefined) return undefined;
  return op === 'notifyAgentRun' && !namesRun(spec.body) ? 'run-start' : 'documented';
}

/** The field of the run notification that names a run (2.2: the runId). */
function runIdField(): string {
  const required = resourceSchema('CsnNotification').required;
  return Array.isArray(required) && typeof required[0] === 'string' ? required[0] : 'runId';
}

/** Whether a run notification's body names a run (in any letter case: a lenient server reads names so). */
function namesRun(body: RequestSpec['body']): boolean {
  if (body === undefined) return false;
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  return text.toLowerCase().includes(runIdField().toLowerCase());
}

/** API Management's answer to a path it has no operation for: 404 {"statusCode": 404, "message": "Resource not found"}. */
export function isGatewayNotFound(body: string): boolean {
  return /"message"\s*:\s*"Resource not found"/i.test(body);
}

/** What the run says when it stops on a wrong base path: the likely cause first, then what came and what to check. */
export function wrongBasePathReason(baseUrl: string, seen: { count: number; paths: readonly string[]; gateway: boolean }): string {
  let prefix = '';
  try {
    prefix = new URL(baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    // the base URL was checked when the run started
  }
  const documented = [...new Set(operations().map((op) => op.path))];
  const cause = prefix === '' ? `the base URL ${baseUrl} has no path: a prefix is likely missing (the API's own path under its host or gateway)` : `the base URL's path ${prefix} is likely wrong: a prefix missing, or one too many`;
  const what = seen.gateway ? '404 "Resource not found" (a gateway with no operation there)' : '404';
  // The first answers, counted when the run stopped: requests in flight then are answered after, and sent figures count them.
  return `${cause}. The run's first ${seen.count} requests to the API's operations were all answered ${what} (to ${seen.paths.join(' and ')}), a run start among them, which the document never answers 404. The base URL is what comes before ${documented.slice(0, -1).join(', ')} and ${documented[documented.length - 1] ?? ''}: check it against the API's documentation or developer portal`;
}
