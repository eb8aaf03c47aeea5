/**
 * Runs the example client through an in-process sandbox session: clean (the agency day, honouring the
 * trouble it meets) or with one fault of the catalogue switched on, and returns the session's report.
 * Used by the example's tests and by `npm run expectations:update:client`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { ClientReport } from '../../lib/report/client/model.ts';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { startSandbox } from '../../lib/sandbox/run.ts';
import type { AgencyClientOptions, BodyFormat } from './client.ts';
import { AgencyClient } from './client.ts';
import { loadAgencyData } from './data.ts';
import type { ClientFault } from './faults.ts';
import { driveFault } from './faults.ts';
import { agencyDay } from './flow.ts';

export const TARGET = fromRoot('fixtures', 'targets', 'sandbox-client.json');
/** The key of catalogue sessions: it must appear in no report. */
export const CATALOGUE_KEY = 'catalogue-key-6f1d2c9b8a7e';

export interface SessionOutcome {
  report: ClientReport;
  exitCode: number;
  /** Checks that failed or recorded an observation, sorted. */
  flagged: string[];
  /** The report files' directory (removed unless `keep`). */
  dir: string;
}

/** One sandbox session with the client doing `drive`; the sandbox ends when the client is done. */
export async function session(args: readonly string[], format: BodyFormat, drive: (client: AgencyClient) => Promise<void>, options: { keep?: boolean; clientOptions?: Pick<AgencyClientOptions, 'maxRetries' | 'faults'>; cancelAfterRequests?: number } = {}): Promise<SessionOutcome> {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-client-'));
  const parsed = parseSandboxArgs(['--port', '0', '--target', TARGET, '--report-dir', dir, ...args], { ISWC_SANDBOX_KEY: CATALOGUE_KEY });
  if (parsed.kind !== 'run') throw new Error(`sandbox arguments ${args.join(' ')}: ${parsed.kind === 'usage' ? parsed.message : 'help'}`);
  const running = await startSandbox(parsed.options);
  const cancel = new AbortController();
  const client = new AgencyClient({ baseUrl: running.url, key: CATALOGUE_KEY, format, userAgent: 'example-agency-client/1.0 (catalogue)', timeoutMs: 20_000, signal: cancel.signal, ...options.clientOptions });
  const limit = options.cancelAfterRequests;
  const watch = limit === undefined ? undefined : setInterval(() => (client.sent >= limit ? cancel.abort() : undefined), 50);
  try {
    await drive(client);
  } finally {
    if (watch) clearInterval(watch);
    await client.close();
  }
  const result = await running.stop('stop');
  const flagged = result.report.checks.exercised.filter((c) => c.failed > 0 || c.observed > 0).map((c) => c.id).sort();
  if (!options.keep) rmSync(dir, { recursive: true, force: true });
  return { report: result.report, exitCode: result.exitCode, flagged, dir };
}

/** The clean example client's agency day through the sandbox, with the trouble of `args`. */
export function cleanSession(format: BodyFormat, args: readonly string[] = [], options: { keep?: boolean } = {}): Promise<SessionOutcome> {
  const data = loadAgencyData(TARGET);
  return session(args, format, async (client) => {
    await agencyDay(client, data);
  }, options);
}

/** A session of the catalogue: the fault's client, its sandbox arguments, its drive. */
export function faultSession(fault: ClientFault, options: { keep?: boolean } = {}): Promise<SessionOutcome> {
  const data = loadAgencyData(TARGET);
  return session(fault.sandbox, fault.format, (client) => driveFault(fault, client, data), { ...options, clientOptions: { ...fault.client, faults: fault.switches }, ...(fault.cancelAfterRequests !== undefined ? { cancelAfterRequests: fault.cancelAfterRequests } : {}) });
}
