/**
 * What an agency's software does in a day against the API, with the example client: notify that its run
 * starts, merge, demerge and delete what its data says, then end the run with the counters. The data is
 * the agency's own (here read from a target profile of the harness, which lists what exists).
 */
import type { AgencyClient, AgencyWork } from './client.ts';
import { ApiError } from './client.ts';

export interface AgencyData {
  agency: string;
  agentVersion: string;
  merge: { preferredIswc: string; iswcs?: string[]; agencyWorks?: AgencyWork[] };
  demerge: { preferredIswc: string; agency: string; workcode: string };
  submission: { preferredIswc: string; agency: string; workcode: string; sourceDb: number };
  reasonCode: string;
}

/** The outcome of each step: `ok`, or the status (or error) that stopped it. */
export type StepOutcome = Record<string, string>;

async function step(outcome: StepOutcome, name: string, fn: () => Promise<unknown>, tolerant: boolean): Promise<void> {
  try {
    await fn();
    outcome[name] = 'ok';
  } catch (e) {
    outcome[name] = e instanceof ApiError ? String(e.status) : (e as Error).message;
    if (!tolerant) throw e;
  }
}

/**
 * The day's work. `tolerant`: a step the API refuses is recorded and the day goes on (the fault catalogue
 * drives misbehaving clients this way); otherwise the first refusal is thrown.
 */
export async function agencyDay(client: AgencyClient, data: AgencyData, tolerant = false): Promise<StepOutcome> {
  const outcome: StepOutcome = {};
  let runId: string | undefined;
  await step(outcome, 'start', async () => (runId = await client.startRun(data.agency, data.agentVersion)), tolerant);
  await step(outcome, 'merge', () => client.merge(data.merge.preferredIswc, data.agency, data.merge), tolerant);
  await step(outcome, 'demerge', () => client.demerge(data.demerge.preferredIswc, data.demerge.agency, data.demerge.workcode), tolerant);
  await step(outcome, 'delete', () => client.deleteSubmission({ ...data.submission, reasonCode: data.reasonCode }), tolerant);
  const sent = 3;
  if (runId !== undefined) {
    const id = runId;
    await step(outcome, 'end', () => client.endRun(id, data.agency, data.agentVersion, { updateRecordCount: 0, newRecordCount: 0, overallRejected: 0, overallSent: sent, successfulCount: sent, businessRejectionCount: 0, technicalRejectionCount: 0 }), tolerant);
  }
  return outcome;
}
