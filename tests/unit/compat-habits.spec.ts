import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { CompatReport } from '../../lib/report/compat/model.ts';
import { startReferenceServer } from '../../server/index.ts';
import type { AgencyStandIn } from '../support/agency-sessions.ts';
import { recordAgencyDay } from '../support/agency-sessions.ts';
import { cliInProcess } from '../support/cli.ts';

/**
 * The issue's own case: a build can conform to the document and still break an agency. Agencies' clients
 * with habits (the example client's switches), recorded through the sandbox, which plays production
 * (a lenient reader: Newtonsoft.Json takes counters written as strings): IMRO (128) writes its counters as
 * strings, SACEM (058) sends its XML under a DataContract namespace, BMI (021) writes what the document
 * shows. Replayed against a build that reads as the sandbox did, nobody is broken; against the reference
 * server, which reads exactly what the document says, IMRO's run notifications are refused: broken, and
 * the reason says its client relied on values the contract refuses. The others are untouched.
 */

test.describe.configure({ mode: 'serial', timeout: 240_000 });

const SANDBOX_KEY = 'habits-sandbox-key-5b0d';
const BUILD_KEY = 'habits-build-key-of-the-api-team-2a';
const PROFILE = fromRoot('fixtures/targets/sandbox-client.json');
const WITH_HABITS: Record<string, AgencyStandIn> = {
  '128': { profile: 'fixtures/targets/sandbox-client.json', format: 'json', habits: ['counter-as-string'] },
  '021': { profile: 'fixtures/targets/sandbox-agency-021.json', format: 'json' },
  '058': { profile: 'fixtures/targets/sandbox-agency-058.json', format: 'xml', habits: ['xml-namespace'] },
};
let dir = '';

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-compat-habits-'));
  for (const [agency, standIn] of Object.entries(WITH_HABITS)) await recordAgencyDay(path.join(dir, 'sessions', agency), standIn, SANDBOX_KEY);
});

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function replayAgainst(name: string, choices: 'production' | undefined): Promise<{ code: number; out: string; report: CompatReport }> {
  const server = await startReferenceServer({ profile: loadProfile(PROFILE), key: BUILD_KEY, ...(choices ? { choices } : {}) });
  try {
    const out = path.join(dir, 'reports', name);
    const result = await cliInProcess(['compat', '--sessions', path.join(dir, 'sessions'), '--base-url', server.url, '--target', PROFILE, '--report-dir', out], { env: { ISWC_SUBSCRIPTION_KEY: BUILD_KEY }, cwd: dir });
    return { code: result.code, out: result.out, report: JSON.parse(readFileSync(path.join(out, 'compat.json'), 'utf8')) as CompatReport };
  } finally {
    await server.close();
  }
}

const verdicts = (report: CompatReport): Record<string, string> => Object.fromEntries(report.agencies.map((a) => [a.agency, a.verdict]));

test('the sessions hold the habits: counters as strings (128), an XML namespace (058)', () => {
  const lines = (agency: string) => readFileSync(path.join(dir, 'sessions', agency, 'client-session.jsonl'), 'utf8');
  expect(lines('128')).toContain('\\"overallSent\\":\\"0\\"');
  expect(lines('058')).toContain('xmlns=\\"http://schemas.datacontract.org/2004/07/Iswc.Api.Models\\"');
  expect(lines('021')).not.toMatch(/\\"overallSent\\":\\"|xmlns=/);
});

test('a build that reads as the sandbox did: no agency broken, the agency with counters as strings compatible', async () => {
  const { code, out, report } = await replayAgainst('as-recorded', 'production');
  expect(report.exchanges.filter((e) => e.verdict === 'broken'), out).toEqual([]);
  expect(verdicts(report)['128'], out).toBe('compatible');
  // Production's key acts for its own agency only: the others' requests were refused, so they are not judged (exit 3), never compatible.
  expect(verdicts(report), out).toEqual({ '021': 'skipped', '058': 'skipped', '128': 'compatible' });
  expect(code, out).toBe(3);
  expect(out).toContain('agency 058: not judged');
  // Its run notifications, counters as strings, were replayed and met what the client met.
  const runs = report.exchanges.filter((e) => e.agency === '128' && e.operation === 'notifyAgentRun');
  expect(runs.map((e) => e.verdict)).toEqual(['compatible', 'compatible']);
});

test('a build that reads only what the document says: broken for exactly the agency that relied on more, with the reason; exit 1', async () => {
  const { code, out, report } = await replayAgainst('strict-reader', undefined);
  expect(code, out).toBe(1);
  expect(verdicts(report)).toEqual({ '021': 'compatible', '058': 'compatible', '128': 'broken' });
  const cells = report.cells.filter((c) => c.verdict === 'broken').map((c) => `${c.agency} ${c.operation} ${c.format}`);
  expect(cells).toEqual(['128 notifyAgentRun json']);
  const start = report.exchanges.find((e) => e.agency === '128' && e.operation === 'notifyAgentRun' && e.verdict === 'broken');
  expect(start?.reasons[0]).toBe('a success became a refusal: 200 → 400');
  expect(start?.reasons[1]).toMatch(/^the request carries values the contract refuses \(.*\/overallSent type.*\), which the build before took: the client relies on a reading the document does not promise/);
  // The end of that run names a run the build never started: not replayed, with the reason.
  const end = report.exchanges.find((e) => e.agency === '128' && e.operation === 'notifyAgentRun' && e.verdict === 'skipped');
  expect(end?.reasons[0]).toMatch(/^the start of its run \(e\d+\) got no runId from the build \(400\)/);
  expect(out).toContain('compat: 1 of 3 agencies broken (128)');
  // The namespace SACEM's client writes is read as before: nothing of 058 changed.
  expect(report.exchanges.filter((e) => e.agency === '058').map((e) => e.verdict)).toEqual(['compatible', 'compatible', 'compatible', 'compatible', 'compatible']);
});
