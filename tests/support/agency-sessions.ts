import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AgencyClient } from '../../examples/agency-client/client.ts';
import type { BodyFormat, ClientFaultSwitch } from '../../examples/agency-client/client.ts';
import { loadAgencyData } from '../../examples/agency-client/data.ts';
import { agencyDay } from '../../examples/agency-client/flow.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { SESSION_FILE } from '../../lib/sandbox/recorder.ts';
import { startSandbox } from '../../lib/sandbox/run.ts';

/**
 * Agencies' sessions for the compatibility tests, recorded as an agency would: the example agency client
 * (examples/agency-client) runs one agency day through an in-process sandbox, which records every exchange
 * in client-session.jsonl beside its reports.
 */

export interface AgencyStandIn {
  /** The sandbox profile the agency's client takes its data from (its agency). */
  profile: string;
  format: BodyFormat;
  /** Habits of the client (the example client's switches: xml-namespace, counter-as-string, …). */
  habits?: ClientFaultSwitch[];
}

/** Three agencies: IMRO (128) in JSON, BMI (021) in JSON, SACEM (058) in XML. */
export const THREE_AGENCIES: Record<string, AgencyStandIn> = {
  '128': { profile: 'fixtures/targets/sandbox-client.json', format: 'json' },
  '021': { profile: 'fixtures/targets/sandbox-agency-021.json', format: 'json' },
  '058': { profile: 'fixtures/targets/sandbox-agency-058.json', format: 'xml' },
};

/** Records one agency day of the example client in a sandbox; returns the session file. */
export async function recordAgencyDay(dir: string, standIn: AgencyStandIn, key: string, extraArgs: readonly string[] = []): Promise<string> {
  const parsed = parseSandboxArgs(['--port', '0', '--report-dir', dir, '--target', fromRoot(standIn.profile), ...extraArgs], { ISWC_SANDBOX_KEY: key });
  if (parsed.kind !== 'run') throw new Error('bad sandbox arguments');
  const running = await startSandbox(parsed.options);
  const client = new AgencyClient({ baseUrl: running.url, key, format: standIn.format, faults: standIn.habits ?? [] });
  try {
    await agencyDay(client, loadAgencyData(fromRoot(standIn.profile)), true);
  } finally {
    await client.close();
    await running.stop();
  }
  return path.join(dir, SESSION_FILE);
}

/** The lines of a JSON-lines file, parsed. */
export function jsonLines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The subscription key header's value as a HAR writer that redacts it leaves it. */
const harHeaders = (h: unknown): Array<{ name: string; value: string }> => Object.entries(h as Record<string, string>).map(([name, value]) => ({ name, value: /subscription-key/i.test(name) ? '<redacted>' : value }));

/** A sandbox session's exchanges as a HAR file writes them (as seen at https://staging.example.org/agency/v1): no word of the server's choices. */
export function sessionAsHar(sessionFile: string): string {
  const lines = jsonLines(sessionFile).slice(1);
  const entries = lines.map((l) => ({
    startedDateTime: l.time,
    time: 5,
    request: { method: l.method, url: `https://staging.example.org/agency/v1${String(l.url)}`, httpVersion: 'HTTP/1.1', headers: harHeaders(l.requestHeaders), cookies: [], queryString: [], ...(l.requestBody !== undefined ? { postData: { mimeType: 'application/json', text: l.requestBody } } : {}), headersSize: -1, bodySize: -1 },
    response: { status: l.status, statusText: '', httpVersion: 'HTTP/1.1', headers: harHeaders(l.responseHeaders), cookies: [], content: { size: -1, mimeType: 'x', ...(l.responseBody !== undefined ? { text: l.responseBody } : {}) }, redirectURL: '', headersSize: -1, bodySize: -1 },
    cache: {},
    timings: { send: 0, wait: 5, receive: 0 },
  }));
  return JSON.stringify({ log: { version: '1.2', creator: { name: 'Playwright', version: '1.65.1' }, entries } });
}
