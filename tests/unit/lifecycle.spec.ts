/**
 * How a run ends, as a user and a CI see it: real `npx iswc-conformance` processes against targets on this
 * machine that the tests start and stop (a closed port, the reference server with another key, a slow
 * target signalled mid-way). Exit codes, the headline, conformance.json's outcome and both JUnit files.
 * The only timing asserted is the one the issue demands, with its generous bound (a closed port: < 60 s).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { EXIT } from '../../lib/cli/command.ts';
import { readReport } from '../../lib/report/validate.ts';
import { startReferenceServer } from '../../server/index.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { startCli } from '../support/cli.ts';
import { closedPort } from '../../server/hostile/servers.ts';
import { childEnv, runPlaywright } from '../support/run-playwright.ts';
import { startSlowTarget } from '../support/slow-target.ts';
import { errorCases, junit } from '../support/junit.ts';

test.describe.configure({ mode: 'parallel', timeout: 180_000 });

const KEY = 'lifecycle-key-5e1b7c';

function env(dir: string, overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return childEnv({ ISWC_REPORT_DIR: dir, ISWC_SEED: '7', ISWC_RUNS: '5', ISWC_TARGET: undefined, ISWC_WAIVERS: undefined, ISWC_BASE_URL: undefined, ISWC_RATE: undefined, ISWC_MAX_DURATION: undefined, CI: '1', ...overrides });
}

let dirs: string[] = [];
test.afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'iswc-lifecycle-'));
  dirs.push(d);
  return d;
}

// The real command for every kind of unusable target (unusable-target.spec.ts proves each kind's reason
// through the run's pipeline in process): in seconds at the remote rate, 10 requests a minute.
test('a closed port exits 3 within 60 s at 10 requests a minute: "target unusable" is the headline, three attempts, no check fails, no test passed, both JUnit files carry an error', { tag: '@e2e' }, async () => {
  const dir = tempDir();
  const port = await closedPort();
  const started = Date.now();
  const run = startCli(['--base-url', `http://127.0.0.1:${port}`], { env: env(dir, { ISWC_SUBSCRIPTION_KEY: KEY, ISWC_RATE: '10/min' }) });
  const result = await run.done;
  console.log(`a closed port: the whole command took ${Date.now() - started} ms`);
  expect(Date.now() - started).toBeLessThan(60_000);
  expect(result.code, result.out).toBe(EXIT.TARGET_UNUSABLE);
  expect(result.out).toContain(`✗ TARGET UNUSABLE: the target could not be reached (3 attempts): the connection to 127.0.0.1:${port} was refused (ECONNREFUSED): nothing listens there`);
  expect(result.out).toContain('exit code: 3 (target unusable)');
  // Having no answer is not a conformance failure: auth.required and the others are not listed as failing.
  expect(result.out).not.toContain('failing checks');
  const report = readReport(path.join(dir, 'conformance.json'));
  expect(report.summary.outcome).toMatchObject({ status: 'target-unusable', exitCode: 3 });
  expect(report.summary.verdict).toBe('target unusable');
  expect(report.summary.verdictText).toMatch(/^target unusable: the target could not be reached .*ECONNREFUSED/);
  expect(report.summary.gatingFailures).toBe(0);
  expect(report.executions.filter((e) => e.verdict === 'pass' || e.verdict === 'fail')).toEqual([]);
  expect(result.out).toMatch(/\ntests: 0 passed, 1 failed, \d+ skipped\n/);
  // The run ended at once: the tests left were not run one by one only to be skipped.
  expect(Number(/(\d+) did not run/.exec(result.out)?.[1] ?? 0)).toBeGreaterThan(100);
  // Three attempts (the first and two unpaced retries), then nothing more; none answered by the target.
  expect(report.meta.requests).toBe(3);
  expect(report.meta.retries).toBe(2);
  expect(report.meta.answered).toBe(0);
  expect(errorCases(path.join(dir, 'conformance-junit.xml')).map((c) => c.error?.type)).toEqual(['TargetUnusable']);
  expect(errorCases(path.join(dir, 'junit.xml')).map((c) => c.error?.type)).toEqual(['TargetUnusable']);
  expect(readFileSync(path.join(dir, 'conformance.html'), 'utf8')).toContain('data-status="target-unusable"');
  expect(result.out + readFileSync(path.join(dir, 'conformance.json'), 'utf8')).not.toContain(KEY);
});

test('a key the target refuses on every request exits 3, naming ISWC_SUBSCRIPTION_KEY and the agency; the key appears nowhere', { tag: '@e2e' }, async () => {
  const dir = tempDir();
  const server = await startReferenceServer({ profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), key: 'the-target-s-own-key' });
  try {
    const result = await startCli(['--base-url', server.url], { env: env(dir, { ISWC_SUBSCRIPTION_KEY: KEY }) }).done;
    expect(result.code, result.out).toBe(EXIT.TARGET_UNUSABLE);
    expect(result.out).toContain('the target refused the key on every request: check ISWC_SUBSCRIPTION_KEY, and that it may act for agency 128');
    const report = readReport(path.join(dir, 'conformance.json'));
    expect(report.summary.outcome).toMatchObject({ status: 'target-unusable', exitCode: 3 });
    expect(report.summary.outcome?.reason).toContain('ISWC_SUBSCRIPTION_KEY');
    // It stopped after the first keyed requests, not at the end of the suite.
    expect(report.meta.requests).toBeLessThan(40);
    expect(result.out + readFileSync(path.join(dir, 'conformance.json'), 'utf8') + readFileSync(path.join(dir, 'junit.xml'), 'utf8')).not.toContain(KEY);
  } finally {
    await server.close();
  }
});

// SIGINT as a terminal's Ctrl-C sends it, to every process of the group (the command, Playwright's runner,
// its workers): it must count once. A signal to the command alone (SIGTERM as `kill` sends it, which the
// command forwards) is signals.spec.ts's, through npm and npx as CI systems and supervisors start it.
{
  const signal = 'SIGINT';
  test(`${signal} to the whole group mid-run stops sending at once, writes every report marked interrupted and exits 130`, { tag: '@e2e' }, async () => {
    const dir = tempDir();
    const target = await startSlowTarget({ key: KEY, delayMs: 150 });
    try {
      const run = startCli(['--base-url', target.url], { env: env(dir, { ISWC_SUBSCRIPTION_KEY: KEY }), group: true });
      // Mid-way: the run has sent a few dozen of its 2,000-odd requests.
      await expect.poll(() => target.arrivals.length, { timeout: 90_000, intervals: [200] }).toBeGreaterThanOrEqual(60);
      const signalledAt = Date.now();
      run.signal(signal);
      const result = await run.done;
      expect(result.code, result.out).toBe(EXIT.INTERRUPTED);
      // Nothing is sent once the signal is handled (a generous second for it to travel through two processes).
      expect(target.arrivals.filter((t) => t > signalledAt + 1_000)).toEqual([]);
      expect(result.out).toContain(`iswc-conformance: ${signal}: stopping; no new request is sent`);
      expect(result.out).not.toContain('exiting at once');
      expect(result.out).toContain(`✗ INTERRUPTED: interrupted by ${signal}`);
      expect(result.out).toContain('exit code: 130 (interrupted)');
      // The test the signal cut short is counted as interrupted, never as failed (when its end reaches the
      // reporter before the runner stops; otherwise it is not counted at all).
      expect(result.out).toMatch(/\ntests: \d+ passed, 0 failed, (?:\d+ interrupted, )?\d+ skipped\n/);
      const report = readReport(path.join(dir, 'conformance.json'));
      expect(report.summary.outcome).toMatchObject({ status: 'interrupted', reason: `interrupted by ${signal}`, exitCode: 130 });
      expect(report.summary.verdict).toBe('interrupted');
      expect(report.summary.verdictText).toMatch(new RegExp(`^interrupted by ${signal} after \\d+ requests \\(so far: `));
      expect(report.executions.some((e) => e.verdict === 'pass')).toBe(true);
      expect(errorCases(path.join(dir, 'conformance-junit.xml')).map((c) => c.error?.type)).toEqual(['Interrupted']);
      const html = readFileSync(path.join(dir, 'conformance.html'), 'utf8');
      expect(html).toContain('data-verdict="interrupted"');
      expect(html).toContain('data-status="interrupted"');
      // Playwright's junit.xml never reads as a clean run: the tests the signal cut short are errors.
      const pw = junit(path.join(dir, 'junit.xml')).testsuites;
      expect(Number(pw.errors) + Number(pw.failures)).toBeGreaterThan(0);
    } finally {
      await target.close();
    }
  });
}

test('a second signal exits at once with 130', { tag: '@e2e' }, async () => {
  const dir = tempDir();
  const target = await startSlowTarget({ key: KEY, delayMs: 150 });
  try {
    const run = startCli(['--base-url', target.url], { env: env(dir, { ISWC_SUBSCRIPTION_KEY: KEY }) });
    await expect.poll(() => target.arrivals.length, { timeout: 90_000, intervals: [200] }).toBeGreaterThanOrEqual(10);
    run.signal('SIGINT');
    // Signals within a second of the first count as the same one (a terminal's Ctrl-C reaches npm too).
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    run.signal('SIGINT');
    const result = await run.done;
    expect(result.code, result.out).toBe(EXIT.INTERRUPTED);
    // Unless the run had ended already when the second came.
    if (!result.out.includes('exit code: 130 (interrupted)')) expect(result.out).toContain('second signal (SIGINT): exiting at once');
  } finally {
    await target.close();
  }
});

test('plain `npx playwright test` with a base URL and no key is refused plainly, exit 2, before anything starts', { tag: '@e2e' }, async () => {
  const dir = tempDir();
  const port = await closedPort();
  const run = await runPlaywright(['test', '--project=json', '--reporter=list'], env(dir, { ISWC_BASE_URL: `http://127.0.0.1:${port}`, ISWC_SUBSCRIPTION_KEY: undefined }), { timeoutMs: 120_000 });
  expect(run.code, run.stdout + run.stderr).toBe(EXIT.USAGE);
  expect(run.stderr).toContain(`iswc-conformance: ISWC_SUBSCRIPTION_KEY is not set: the base URL http://127.0.0.1:${port} (even one on this machine) needs the subscription key`);
  expect(run.stdout + run.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
});
