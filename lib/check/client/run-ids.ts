import { resourceSchema } from '../../contract/constraints.ts';
import type { ClientRequest, RequestView } from './types.ts';

/** The field of a run notification that names the run: the required field of the answer (2.2, CsnNotification). */
export function runIdField(): string {
  const required = resourceSchema('CsnNotification').required;
  const field = Array.isArray(required) ? (required[0] as string | undefined) : undefined;
  if (!field) throw new Error('schemas/openapi.yaml: CsnNotification has no required field (its runId)');
  return field;
}

/** The runId a run notification carries (it ends that run), or undefined for a start (none, or empty). */
export function runIdOfRequest(request: ClientRequest, view: RequestView): string | undefined {
  if (request.operation?.body?.resource !== 'AgentRun' || !view.parsed?.ok) return undefined;
  const value = view.parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const runId = (value as Record<string, unknown>)[runIdField()];
  return typeof runId === 'string' && runId !== '' ? runId : undefined;
}
