/**
 * A signal sent to the process a CI, `docker stop` or a supervisor knows, npm or npx, and only to it
 * (never to the group): the run stops sending, writes its reports marked interrupted and exits 130; the
 * server and the sandbox close and free their port; no process of the tool is left. SIGHUP kills npm at
 * once (it forwards only SIGINT and SIGTERM): the tool notices that the process that started it is gone
 * and stops as on SIGHUP. Also the command process killed outright: the run it started stops too.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { expect, _baseTest as test } from '@playwright/test';
import { EXIT } from '../../lib/cli/command.ts';
import { fromRoot, repoRoot } from '../../lib/foundation/paths.ts';
import { readReport } from '../../lib/report/validate.ts';
import { killMarked, launch, markedProcesses, MARKER_VARIABLE, portIsFree, waitForOutput } from '../support/launch.ts';
import type { Launched, Launcher } from '../support/launch.ts';
import { childEnv } from '../support/run-playwright.ts';
import { startSlowTarget } from '../support/slow-target.ts';
import { errorCases, junit } from '../support/junit.ts';

test.describe.configure({ mode: 'parallel', timeout: 240_000 });

const KEY = 'signals-key-4c7d1e';

let dirs: string[] = [];
test.afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'iswc-signals-'));
  dirs.push(d);
  return d;
}

function env(dir: string, overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return childEnv({ ISWC_REPORT_DIR: dir, ISWC_SEED: '7', ISWC_RUNS: '5', ISWC_TARGET: undefined, ISWC_WAIVERS: undefined, ISWC_BASE_URL: undefined, ISWC_RATE: undefined, ISWC_MAX_DURATION: undefined, CI: '1', ...overrides });
}

/** npm and npx exit the way the tool did (130); SIGHUP kills them at once (the shell's 129). */
function expectEnded(result: { code: number | null; signal: NodeJS.Signals | null; out: string }, signal: NodeJS.Signals): void {
  if (signal === 'SIGHUP') expect(result.signal, result.out).toBe('SIGHUP');
  else expect(result.code, result.out).toBe(EXIT.INTERRUPTED);
}

/** Nothing of the tree is left: polled, since the tool may outlive npm by the time it takes to stop. */
async function expectNoneLeft(launched: Launched): Promise<void> {
  await expect.poll(() => markedProcesses(launched.marker), { timeout: 30_000, intervals: [200] }).toEqual([]);
}

const RUNS: ReadonlyArray<readonly [Launcher, NodeJS.Signals]> = [
  ['npm', 'SIGINT'],
  ['npx', 'SIGTERM'],
  ['npx', 'SIGHUP'],
  ['npm', 'SIGHUP'],
];

for (const [launcher, signal] of RUNS) {
  test(`run: ${signal} to ${launcher} alone stops sending within a second, the reports say interrupted, exit 130, nothing left`, { tag: '@e2e' }, async () => {
    const dir = tempDir();
    const target = await startSlowTarget({ key: KEY, delayMs: 150 });
    let launched: Launched | undefined;
    try {
      launched = launch(launcher, 'conformance', ['--base-url', target.url], env(dir, { ISWC_SUBSCRIPTION_KEY: KEY }));
      // Mid-way, as lifecycle.spec.ts signals it: a few dozen requests sent, the first cases judged.
      await expect.poll(() => target.arrivals.length, { timeout: 120_000, intervals: [200] }).toBeGreaterThanOrEqual(60);
      const signalledAt = Date.now();
      process.kill(launched.pid, signal);
      const result = await launched.done;
      expectEnded(result, signal);
      await expectNoneLeft(launched);
      // Nothing is sent a second after the signal (it travels through npm, the command and the runner).
      expect(target.arrivals.filter((t) => t > signalledAt + 1_000)).toEqual([]);
      const report = readReport(path.join(dir, 'conformance.json'));
      expect(report.summary.outcome?.status).toBe('interrupted');
      expect(report.summary.outcome?.exitCode).toBe(EXIT.INTERRUPTED);
      expect(report.summary.outcome?.reason).toMatch(signal === 'SIGHUP' ? /^interrupted(: the process that started it \(npm, pid \d+\) (is gone|has ended)| by SIGHUP)$/ : new RegExp(`^interrupted by ${signal}$`));
      expect(report.summary.verdict).toBe('interrupted');
      expect(report.summary.verdictText).toMatch(/^interrupted.* after \d+ requests \(so far: /);
      // What reached the target is what the report counts (the requests the signal cut short included).
      expect(report.meta.requests).toBe(target.arrivals.length);
      const verdicts = report.executions.filter((e) => !e.skipReason?.startsWith('not sent')).map((e) => `${e.caseId}@${e.format} ${e.step} ${e.checkId}: ${e.verdict}${e.skipReason ? ` (${e.skipReason})` : ''}`);
      expect(report.executions.some((e) => e.verdict === 'pass'), `no check passed before the signal, of ${report.executions.length}:\n${verdicts.slice(0, 20).join('\n')}`).toBe(true);
      const html = readFileSync(path.join(dir, 'conformance.html'), 'utf8');
      expect(html).toContain('data-status="interrupted"');
      expect(html).toContain('data-verdict="interrupted"');
      expect(errorCases(path.join(dir, 'conformance-junit.xml')).map((c) => c.error?.type)).toEqual(['Interrupted']);
      // Playwright's junit.xml never reads as a clean run: the tests the signal cut short are errors.
      const pw = junit(path.join(dir, 'junit.xml')).testsuites;
      expect(Number(pw.errors) + Number(pw.failures)).toBeGreaterThan(0);
      // SIGINT and SIGTERM reach the command through npm or npx, as `kill` sends them to the command alone
      // (lifecycle.spec.ts sends SIGINT to the whole group, as a terminal's Ctrl-C does); SIGHUP kills the
      // launcher, and what the tool prints after that has nobody to read it.
      if (signal !== 'SIGHUP') {
        expect(result.out).toContain(`iswc-conformance: ${signal}: stopping; no new request is sent`);
        expect(result.out).not.toContain('exiting at once');
        expect(result.out).toContain(`✗ INTERRUPTED: interrupted by ${signal}`);
        expect(result.out).toContain('exit code: 130 (interrupted)');
      }
    } finally {
      if (launched) killMarked(launched.marker);
      await target.close();
    }
  });
}

test('run: the command process killed outright (SIGKILL): the run it started stops sending and ends too', { tag: '@e2e' }, async () => {
  const dir = tempDir();
  const target = await startSlowTarget({ key: KEY, delayMs: 150 });
  const marker = randomUUID();
  const child = spawn(process.execPath, [fromRoot('bin', 'iswc-conformance.mjs'), '--base-url', target.url], {
    cwd: repoRoot,
    env: { ...env(dir, { ISWC_SUBSCRIPTION_KEY: KEY }), [MARKER_VARIABLE]: marker },
    stdio: 'ignore',
  });
  try {
    await expect.poll(() => target.arrivals.length, { timeout: 120_000, intervals: [200] }).toBeGreaterThanOrEqual(20);
    const killedAt = Date.now();
    child.kill('SIGKILL');
    await expect.poll(() => markedProcesses(marker), { timeout: 30_000, intervals: [200] }).toEqual([]);
    expect(target.arrivals.filter((t) => t > killedAt + 1_000)).toEqual([]);
    // The run wrote its reports, marked interrupted, although nobody waits for its exit code.
    expect(readReport(path.join(dir, 'conformance.json')).summary.outcome?.status).toBe('interrupted');
  } finally {
    killMarked(marker);
    await target.close();
  }
});

for (const launcher of ['npm', 'npx'] as const) {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    test(`server: ${signal} to ${launcher} alone closes it (exit 130), frees the port, nothing left`, { tag: '@e2e' }, async () => {
      const launched = launch(launcher, 'server', ['--port', '0'], env(tempDir()));
      try {
        const port = Number((await waitForOutput(launched, /listening http:\/\/127\.0\.0\.1:(\d+)/))[1]);
        expect(await portIsFree(port)).toBe(false);
        process.kill(launched.pid, signal);
        expectEnded(await launched.done, signal);
        await expectNoneLeft(launched);
        expect(await portIsFree(port)).toBe(true);
      } finally {
        killMarked(launched.marker);
      }
    });

    test(`sandbox: ${signal} to ${launcher} alone ends the session with its reports (exit 130), frees the port, nothing left`, { tag: '@e2e' }, async () => {
      const dir = tempDir();
      const launched = launch(launcher, 'sandbox', ['--port', '0', '--report-dir', dir], env(dir, { ISWC_SANDBOX_KEY: KEY }));
      try {
        const url = (await waitForOutput(launched, /listening (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
        const answer = await fetch(`${url}/agent/run`, { method: 'POST', headers: { 'content-type': 'application/json', 'Ocp-Apim-Subscription-Key': KEY }, body: '{}' });
        expect(answer.status).toBeGreaterThan(0);
        process.kill(launched.pid, signal);
        const result = await launched.done;
        expectEnded(result, signal);
        await expectNoneLeft(launched);
        expect(await portIsFree(Number(new URL(url).port))).toBe(true);
        const file = path.join(dir, 'client-conformance.json');
        await expect.poll(() => existsSync(file), { timeout: 10_000 }).toBe(true);
        const report = JSON.parse(readFileSync(file, 'utf8')) as { endedBy: string; requests: number };
        expect(report.endedBy).toBe('signal');
        expect(report.requests).toBe(1);
        if (signal !== 'SIGHUP') expect(result.out).toContain("ended by a signal: exit code 130 (the verdict above is the session's, in its reports; --idle SECONDS or --requests N end a session with the verdict as its exit status)");
      } finally {
        killMarked(launched.marker);
      }
    });
  }
}
