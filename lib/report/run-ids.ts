import { runIdOf } from '../contract/answer.ts';
import { decodeBody, sniffFormat } from '../contract/codec/index.ts';
import type { CheckExecution } from '../run/execution.ts';

/** Does this run notification start a run: a body without a runId (the harness starts runs that way)? */
function startsARun(body: string | undefined): boolean {
  if (body === undefined) return false;
  const format = sniffFormat(body);
  if (!format) return false;
  const decoded = decodeBody(format, 'AgentRun', body);
  if (!decoded.ok || decoded.value === null || typeof decoded.value !== 'object') return false;
  const runId = (decoded.value as { runId?: unknown }).runId;
  return runId === undefined || runId === null || runId === '';
}

/**
 * The run identifiers the target itself issued during the run: the runId of each 200 answer to a run
 * notification that started a run (its request carried no runId), in the order the report lists them,
 * each once. Only exchanges the report keeps count (failures and observations; a passing check keeps
 * none), so this is a sample of the runs started, never an invented one: the API team can find each in
 * its own records of the agency's runs, which binds a certificate to the target that answered.
 */
export function issuedRunIds(executions: readonly CheckExecution[]): string[] {
  const out = new Set<string>();
  for (const e of executions) {
    const x = e.exchange;
    if (e.operation !== 'notifyAgentRun' || !x || x.response?.status !== 200 || x.request.bodyTruncated) continue;
    if (!startsARun(x.request.body)) continue;
    const runId = runIdOf(x);
    if (runId) out.add(runId);
  }
  return [...out];
}
