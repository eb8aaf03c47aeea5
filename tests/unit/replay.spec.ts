import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { runSuiteInProcess } from '../../lib/engine/pipeline.ts';
import { findFailure, replayFailure } from '../../lib/cli/replay.ts';
import { buildConformanceReport } from '../../lib/report/build.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import type { CheckExecution } from '../../lib/run/execution.ts';
import type { PlannedCase } from '../../lib/run/planned.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';
import type { RunningServer } from '../../server/index.ts';
import { cliInProcess, runCliAsync } from '../support/cli.ts';
import { httpServer } from '../../server/hostile/servers.ts';
import { childEnv } from '../support/run-playwright.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';
import { forwardProxy } from '../support/forward-proxy.ts';
import { DIRECT } from '../../lib/config/proxy.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

/**
 * Issue 15 point 9: one failure replayed by its id. A fixed case sends its steps; a generated failure
 * sends exactly its shrunk counterexample (fast-check's seed and path), not the whole property.
 */

const PROFILE_FILE = fromRoot('fixtures', 'targets', 'embedded.json');
const profile = loadProfile(PROFILE_FILE);
const SEED = 7;
const RUNS = 25;
const ENV = { ISWC_SUBSCRIPTION_KEY: EMBEDDED_KEY };

let dir: string;
const servers: Array<{ close(): Promise<void> }> = [];

test.beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-replay-'));
});

test.afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function server(faults: readonly string[] = []): Promise<RunningServer> {
  const s = await startReferenceServer({ profile, key: EMBEDDED_KEY, faults });
  servers.push(s);
  return s;
}

/** A run of some cases against a faulty reference server on this machine, as the reporter would write it; the server stays up. */
async function faultyRun(faults: readonly string[], filter: (p: PlannedCase) => boolean): Promise<{ report: ConformanceReport; file: string; target: RunningServer }> {
  const target = await server(faults);
  const startedAt = new Date();
  const executions = await runSuiteInProcess({ baseUrl: target.url, key: EMBEDDED_KEY, profile, destructive: true, timeoutMs: REQUEST_TIMEOUT_MS, settings: { seed: SEED, runs: RUNS, strict: false }, filter });
  const report = buildConformanceReport({
    executions,
    stats: { requests: 0, retries: 0, waitedMs: 0 },
    baseUrl: target.url,
    embedded: false,
    profile: profile.name,
    targetProfile: profile,
    seed: SEED,
    runs: RUNS,
    strict: false,
    destructive: true,
    startedAt,
    finishedAt: new Date(),
    plan: { name: 'full', budget: null },
  });
  const file = path.join(dir, `${faults.join('+')}.json`);
  writeFileSync(file, JSON.stringify(report));
  return { report, file, target };
}

function failureOf(report: ConformanceReport, where: (e: CheckExecution) => boolean): CheckExecution {
  const failure = report.executions.find((e) => e.verdict === 'fail' && where(e));
  if (!failure?.failureId) throw new Error(`fixture: no such failure among ${report.executions.filter((e) => e.verdict === 'fail').map((e) => `${e.checkId} ${e.caseId}`).join(', ')}`);
  return failure;
}

const replayOptions = { profileSource: 'embedded.json', settings: { key: EMBEDDED_KEY, timeoutMs: REQUEST_TIMEOUT_MS, maxBodyBytes: 1 << 20, headers: [], network: DIRECT }, allowDestructive: false, rate: null };

/** The target a caller names (here: the report's own base URL, or another server). */
function at(baseUrl: string | null | undefined): { target: { baseUrl: string; named: string } } {
  return { target: { baseUrl: baseUrl ?? '', named: '--base-url' } };
}

test('a shrunk property failure replays its counterexample alone of the generated inputs, with the case\'s fixed steps: the same request as in the run', async () => {
  const { report, file, target } = await faultyRun(['array-tail-unchecked'], (p) => p.key === 'property.merge.invalid@json');
  const failure = failureOf(report, (e) => e.checkId === 'limit.rejected');
  // What changes with the seed (runs, shrinks) is kept out of the step, whose text feeds the failure id.
  expect(failure.step).toMatch(/: minimal failing input$/);
  expect(failure.generated).toMatch(/^minimal failing input after \d+ runs and \d+ shrinks$/);
  expect(failure.path).toMatch(/:/); // shrunk
  const result = await replayFailure({ ...replayOptions, ...at(report.meta.baseUrl), report, failure, profile });
  // The counterexample alone of the generated inputs, the very request the run recorded for the failure,
  // between the case's two fixed steps (an unknown ISWC beside disposable ones first, one ISWC twice last).
  expect(result.exchanges).toHaveLength(3);
  const [, sentAgain] = result.exchanges;
  expect(sentAgain?.attempts).toBe(1);
  expect(sentAgain?.request.url).toBe(failure.exchange?.request.url);
  expect(sentAgain?.request.body).toBe(failure.exchange?.request.body);
  expect(result.code).toBe(1);
  const text = result.lines.join('\n');
  expect(text).toContain(`only the one at seed ${SEED}, path ${failure.path ?? ''} is sent`);
  expect(text).toContain('sent 3 requests:');
  expect(text).toContain('verdict: the failure happens again: limit.rejected');
  expect(text).toContain('the same answer as in the run');

  // The command: by id, from the report, against the run's base URL named by ISWC_BASE_URL (the faulty server), then a fixed one.
  const again = await cliInProcess(['replay', failure.failureId ?? '', '--report', file], { env: { ...ENV, ISWC_BASE_URL: target.url } });
  expect(again.code, again.out).toBe(1);
  expect(again.stdout).toContain(`replay failure ${failure.failureId ?? ''}: limit.rejected`);
  expect(again.stdout).toMatch(/1\. POST \/iswc\/merge\?.* → \d{3} /);
  expect(again.stdout).toContain('the same answer as in the run');
  expect(again.stdout).toContain('✗ limit.rejected [spec');
  const fixed = await server();
  const cleared = await cliInProcess(['replay', (failure.failureId ?? '').slice(0, 5), '--report', file, '--base-url', fixed.url], { env: ENV });
  expect(cleared.code, cleared.out).toBe(0);
  expect(cleared.stdout).toContain('verdict: the failure does not happen any more: limit.rejected passes');
  expect(target.url).not.toBe(fixed.url);
});

test('a fixed case replays its steps in order; a clean target clears it', async () => {
  const { report, file, target } = await faultyRun(['run-bad-request-text'], (p) => p.def.operation === 'notifyAgentRun' && !p.def.id.startsWith('property.') && p.format === 'xml');
  const failure = failureOf(report, (e) => e.checkId === 'text.bad-request' && e.format === 'xml');
  const steps = [...new Set(report.executions.filter((e) => e.caseId === failure.caseId && e.format === failure.format).map((e) => e.step))];
  const result = await replayFailure({ ...replayOptions, ...at(target.url), report, failure, profile });
  expect(result.code).toBe(1);
  expect(result.exchanges).toHaveLength(steps.length);
  expect(result.lines.join('\n')).toContain('fixed case: its steps in order');
  expect(result.lines.join('\n')).toContain(`[${failure.step}]`);
  const clean = await server();
  expect((await replayFailure({ ...replayOptions, ...at(clean.url), report, failure, profile })).code).toBe(0);
  // Usage mistakes: an unknown id (the ids it holds are listed), another profile, an unusable target.
  const named = { ...ENV, ISWC_BASE_URL: target.url };
  const unknown = await cliInProcess(['replay', 'ffff0000', '--report', file], { env: named });
  expect(unknown.code).toBe(2);
  expect(unknown.out).toContain('no failure with id "ffff0000" in the report');
  expect(unknown.out).toContain(failure.failureId ?? '?');
  const other = path.join(dir, 'other.json');
  writeFileSync(other, JSON.stringify({ ...JSON.parse(readFileSync(PROFILE_FILE, 'utf8')), agency: '021' }));
  const refused = await cliInProcess(['replay', failure.failureId ?? '', '--report', file, '--target', other], { env: named });
  expect(refused.code).toBe(2);
  expect(refused.out).toMatch(/the run was made with profile "embedded" sha256:[0-9a-f]{16}…, not "embedded" sha256:/);
  const noKey = await cliInProcess(['replay', failure.failureId ?? '', '--report', file, '--base-url', target.url], { env: {} });
  expect(noKey.code).toBe(2);
  expect(noKey.out).toContain('ISWC_SUBSCRIPTION_KEY is not set');
  const gone = await cliInProcess(['replay', failure.failureId ?? '', '--report', file, '--base-url', 'http://127.0.0.1:9'], { env: ENV });
  expect(gone.code, gone.out).toBe(3);
  expect(gone.out).toContain('the target is unusable');
});

test('a failure whose answer differs from the run only in new GUIDs (a runId) happens again with the same answer, and says so', async () => {
  const { report, target } = await faultyRun(['run-end-new-run-id'], (p) => p.key === 'run.start-and-end@json');
  const failure = failureOf(report, (e) => e.checkId === 'outcome.run-end-same-id');
  const result = await replayFailure({ ...replayOptions, ...at(target.url), report, failure, profile });
  expect(result.code).toBe(1);
  const text = result.lines.join('\n');
  expect(text).toContain('the same answer as in the run, but for the GUIDs (a runId) a target gives anew on every call');
  expect(text).not.toContain('differently from the run');
});

test('a destructive case replays with the entries the run gave it; a target not reset answers differently, and says why', async () => {
  // The delete does not check the key: the run's keyless delete removed the submission (204).
  const { report, file, target } = await faultyRun(['auth-missing-delete'], (p) => p.key === 'delete.success-then-repeat@none');
  const failure = failureOf(report, (e) => e.checkId === 'auth.key-checked');
  expect(failure.received).toMatch(/^204/);
  // Against the run's server, whose entry the run consumed: warned, and the answer differs (404: nothing left
  // to delete, a refusal), so the failure seems gone. The warning says why not to trust that.
  const stale = await cliInProcess(['replay', failure.failureId ?? '', '--report', file], { env: { ...ENV, ISWC_BASE_URL: target.url } });
  expect(stale.out).toContain('! this case changes data: it consumes disposable entries, the same ones the run gave it: submissions [{"preferredIswc"');
  expect(stale.out).toContain('a target not reset since may answer differently');
  expect(stale.code, stale.out).toBe(0);
  expect(stale.out).toMatch(/1\. DELETE \/submission\?.* → 404/);
  // A fresh faulty server (the target restarted): exactly what the run sent, the same failure.
  const fresh = await server(['auth-missing-delete']);
  const again = await cliInProcess(['replay', failure.failureId ?? '', '--report', file, '--base-url', fresh.url], { env: ENV });
  expect(again.code, again.out).toBe(1);
  expect(again.out).toContain('the same answer as in the run');
  // Not on this machine: refused without --destructive, before anything is sent.
  const remote = await cliInProcess(['replay', failure.failureId ?? '', '--report', file, '--base-url', 'https://api.example.invalid'], { env: ENV });
  expect(remote.code).toBe(2);
  expect(remote.out).toContain('is not on this machine: pass --destructive to replay it there');
  expect(remote.out).toContain('may change data (it consumes disposable entries');
});

test('a shrunk sequence of the model test sends the very requests of the run, from the model the run had', async () => {
  const { report, target } = await faultyRun(['demerge-no-effect'], (p) => p.key === 'model.merge-demerge-delete@json');
  const failure = failureOf(report, (e) => e.checkId === 'outcome.sequence');
  expect(failure.replayPath).toBeDefined();
  expect(failure.modelState).toBeDefined();
  const steps = [...new Set(report.executions.filter((e) => e.caseId === failure.caseId && e.path === failure.path).map((e) => e.step))];
  // Against the run's own target, which holds what the earlier sequences did: the same requests, the same failure.
  const result = await replayFailure({ ...replayOptions, ...at(report.meta.baseUrl), report, failure, profile, allowDestructive: true });
  expect(result.exchanges).toHaveLength(steps.length);
  expect(result.exchanges.at(-1)?.request.url).toBe(failure.exchange?.request.url);
  expect(result.code, result.lines.join('\n')).toBe(1);
  const text = result.lines.join('\n');
  expect(text).toContain(`(replayPath ${failure.replayPath ?? ''})`);
  expect(text).toContain("from the model the run had before it");
  expect(target.url).toBe(report.meta.baseUrl);
  // On a fresh target the same requests go out; the answers may differ (the run's earlier sequences are missing).
  const fresh = await server(['demerge-no-effect']);
  const elsewhere = await replayFailure({ ...replayOptions, ...at(fresh.url), report, failure, profile });
  expect(elsewhere.exchanges.map((x) => new URL(x.request.url).search)).toEqual(result.exchanges.map((x) => new URL(x.request.url).search));
});

test('a failure of an embedded run replays against a fresh embedded server', async () => {
  const report = await inProcessReport({ filter: (p) => p.key === 'run.start-and-end@json' });
  const passing = report.executions.find((e) => e.verdict === 'pass' && e.checkId === 'status.success');
  if (!passing) throw new Error('fixture: no passing status.success');
  // A failure the embedded server does not make: the replay clears it.
  const planted = JSON.parse(JSON.stringify(report)) as ConformanceReport;
  const target = planted.executions.find((e) => e.verdict === 'pass' && e.checkId === 'status.success');
  if (!target) throw new Error('fixture');
  Object.assign(target, { verdict: 'fail', received: '500 text/plain', failureId: 'abcdef12' });
  expect(findFailure(planted, 'abcdef12')).toBe(target);
  const file = path.join(dir, 'embedded.json');
  writeFileSync(file, JSON.stringify(planted));
  const result = await cliInProcess(['replay', 'abcdef12', '--report', file], { env: {} });
  expect(result.code, result.out).toBe(0);
  expect(result.stdout).toContain('target: a fresh embedded reference server');
});

test('a target that always throttles: the replay waits out Retry-After, says so and exits 3 (the wait keeps the process alive)', async () => {
  // A case of one request: a replay sends a fixed case's steps in order.
  const report = await inProcessReport({ filter: (p) => p.key === 'scenario.merge.unknown-iswc-in-the-body@json' });
  const planted = JSON.parse(JSON.stringify(report)) as ConformanceReport;
  const passing = planted.executions.find((e) => e.verdict === 'pass' && e.checkId === 'status.refused');
  if (!passing) throw new Error('fixture: no passing status.refused');
  Object.assign(passing, { verdict: 'fail', received: '415 text/plain', failureId: 'c0ffee42' });
  const throttling = await httpServer((_req, res) => {
    res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' });
    res.end('slow down');
  });
  servers.push(throttling);
  Object.assign(planted.meta, { embedded: false, baseUrl: throttling.url });
  const file = path.join(dir, 'throttled.json');
  writeFileSync(file, JSON.stringify(planted));
  // A process of its own: in this one, the test's timers would keep Node alive whatever the client does.
  const result = await runCliAsync(['replay', 'c0ffee42', '--report', file, '--base-url', throttling.url], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: 'throttled-key-1' }), timeoutMs: 60_000 });
  expect(result.code, result.out).toBe(3);
  expect(result.stdout).toContain('sent 1 request:');
  expect(result.stdout).toMatch(/verdict: cannot tell: .*throttled/);
  // Each request was tried again after its Retry-After: 1 + 3 retries.
  expect(throttling.seen).toHaveLength(4);
});

test("a report's base URL alone never receives the key: the caller names the target, and the request goes as a run sends it", async () => {
  // A case of one request: a replay sends a fixed case's steps in order.
  const report = await inProcessReport({ filter: (p) => p.key === 'scenario.merge.unknown-iswc-in-the-body@json' });
  const planted = JSON.parse(JSON.stringify(report)) as ConformanceReport;
  const passing = planted.executions.find((e) => e.verdict === 'pass' && e.checkId === 'status.refused');
  if (!passing) throw new Error('fixture: no passing status.refused');
  Object.assign(passing, { verdict: 'fail', received: '415 text/plain', failureId: 'feed0123' });
  // The report someone handed over names their own server.
  const collector = await httpServer((_req, res) => {
    res.writeHead(415, { 'content-type': 'text/plain' });
    res.end('no');
  });
  servers.push(collector);
  Object.assign(planted.meta, { embedded: false, baseUrl: `${collector.url}/api` });
  const file = path.join(dir, 'handed-over.json');
  writeFileSync(file, JSON.stringify(planted));
  const KEY = 'replay-secret-key-0001';
  const unnamed = await cliInProcess(['replay', 'feed0123', '--report', file], { env: { ISWC_SUBSCRIPTION_KEY: KEY } });
  expect(unnamed.code, unnamed.out).toBe(2);
  expect(unnamed.out).toContain(`the run was made against ${collector.url}/api: the subscription key is sent only to a target you name`);
  expect(unnamed.out).toContain(`pass --base-url ${collector.url}/api`);
  const elsewhere = await cliInProcess(['replay', 'feed0123', '--report', file], { env: { ISWC_SUBSCRIPTION_KEY: KEY, ISWC_BASE_URL: 'http://127.0.0.1:9/api' } });
  expect(elsewhere.code, elsewhere.out).toBe(2);
  expect(elsewhere.out).toContain(`ISWC_BASE_URL is http://127.0.0.1:9, but the run was made against ${collector.url}`);
  expect(collector.seen).toHaveLength(0);
  // Named: the key goes there, with the run's extra headers (values written nowhere) and through the run's proxy.
  const proxy = await forwardProxy();
  servers.push(proxy);
  const named = await cliInProcess(['replay', 'feed0123', '--report', file, '--header', 'X-Gateway-Token: gateway-secret-0002'], {
    env: { ISWC_SUBSCRIPTION_KEY: KEY, ISWC_BASE_URL: `${collector.url}/api`, HTTP_PROXY: proxy.uri(), ISWC_HEADERS: JSON.stringify({ 'X-Trace-Id': 'trace-secret-0003' }) },
  });
  expect(named.code, named.out).toBe(1);
  expect(named.out).toContain(`target: ${collector.url}/api (ISWC_BASE_URL, the run's origin)`);
  expect(collector.seen).toHaveLength(1);
  const seen = collector.seen[0]?.headers ?? {};
  expect(seen['ocp-apim-subscription-key']).toBe(KEY);
  expect(seen['x-gateway-token']).toBe('gateway-secret-0002');
  expect(seen['x-trace-id']).toBe('trace-secret-0003');
  expect(seen['user-agent']).toMatch(/^iswc-conformance\//);
  expect(proxy.log.map((e) => e.kind)).toEqual(['request']);
  for (const secret of [KEY, 'gateway-secret-0002', 'trace-secret-0003']) expect(named.out).not.toContain(secret);
  // --base-url names any target, whatever the report says.
  const flagged = await cliInProcess(['replay', 'feed0123', '--report', file, '--base-url', `${collector.url}/other`], { env: { ISWC_SUBSCRIPTION_KEY: KEY, ISWC_BASE_URL: 'http://127.0.0.1:9' } });
  expect(flagged.code, flagged.out).toBe(1);
  expect(collector.seen.at(-1)?.url).toMatch(/^\/other\//);
});
