/**
 * Maintenance is no finding. Production answers it with a 503 that carries no Retry-After (docs/production.md):
 * the run waits it out with back-off and goes on, and stops with exit 3, "target unavailable", when it
 * does not end, never with a spec failure. The real command against a gateway on loopback that answers
 * every request with that 503, for a while, or for good. The wait is the run's --maintenance-wait
 * (ISWC_MAINTENANCE_WAIT, default 63 s), shortened here: its length proves nothing the shape of it does not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { EXIT } from '../../lib/cli/command.ts';
import { readReport } from '../../lib/report/validate.ts';
import { runCliAsync } from '../support/cli.ts';
import { startGateway } from '../support/gateway.ts';
import type { GatewayAnswer } from '../support/gateway.ts';
import { childEnv } from '../support/run-playwright.ts';

test.describe.configure({ mode: 'parallel', timeout: 300_000 });

const KEY = 'maintenance-key-6a1f0e3b';
const MAINTENANCE: GatewayAnswer = { status: 503, body: '{"code":"503","message":"The service is under maintenance."}' };

let dirs: string[] = [];
test.afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'iswc-maintenance-'));
  dirs.push(d);
  return d;
}

const WINDOW_MS = 3_000;

test('503 without Retry-After for a while, then a conforming server: the run waits it out (--maintenance-wait) and passes', { tag: '@e2e' }, async () => {
  let since: number | undefined;
  const gateway = await startGateway({
    key: KEY,
    answer: () => {
      since ??= Date.now();
      return Date.now() - since < WINDOW_MS ? MAINTENANCE : undefined;
    },
  });
  const dir = tempDir();
  try {
    const run = await runCliAsync(['run', '--base-url', gateway.url, '--smoke', '--seed', '7', '--maintenance-wait', '6s'], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_REPORT_DIR: dir }) });
    expect(run.code, run.out).toBe(EXIT.OK);
    const report = readReport(path.join(dir, 'conformance.json'));
    expect(report.summary.verdict).toBe('conformant');
    expect(report.summary.gatingFailures).toBe(0);
    // The 503s were resent, not judged, and the time spent on them is in the figures.
    const maintenance = gateway.arrivals.filter((a) => a.answeredBy === 'gateway').length;
    expect(maintenance).toBeGreaterThan(0);
    expect(report.meta.retries).toBeGreaterThanOrEqual(maintenance);
    expect(report.meta.requests).toBe(gateway.arrivals.length);
    expect(report.meta.waitedMs).toBeGreaterThan(WINDOW_MS * 0.8);
    expect(report.executions.some((e) => e.exchange?.response?.status === 503)).toBe(false);
  } finally {
    await gateway.close();
  }
});

test('503 without Retry-After for good: exit 3, "target unavailable" after ISWC_MAINTENANCE_WAIT, never a spec failure', { tag: '@e2e' }, async () => {
  const gateway = await startGateway({ key: KEY, answer: () => MAINTENANCE });
  const dir = tempDir();
  try {
    const run = await runCliAsync(['run', '--base-url', gateway.url, '--smoke', '--seed', '7'], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_REPORT_DIR: dir, ISWC_MAINTENANCE_WAIT: '4s' }) });
    expect(run.code, run.out).toBe(EXIT.TARGET_UNUSABLE);
    // Waited the whole of ISWC_MAINTENANCE_WAIT (six resends, doubling), not more than a few seconds past it.
    const waited = Number(/answered 503 without Retry-After \(maintenance\) for (\d+) s, through 6 resends/.exec(run.out)?.[1]);
    expect(waited, run.out).toBeGreaterThanOrEqual(4);
    expect(waited, run.out).toBeLessThan(10);
    expect(run.out).toContain('✗ TARGET UNUSABLE: the target is unavailable: every request was answered 503 without Retry-After (maintenance) for ');
    expect(run.out).not.toContain('failing checks');
    const report = readReport(path.join(dir, 'conformance.json'));
    expect(report.summary.outcome).toMatchObject({ status: 'target-unusable', exitCode: 3 });
    expect(report.summary.gatingFailures).toBe(0);
    expect(report.executions.filter((e) => e.verdict === 'fail')).toEqual([]);
    // Polite while it waits: the requests it did not know to be answered waited for the target, not resent each on its own.
    expect(gateway.arrivals.length).toBeLessThan(40);
  } finally {
    await gateway.close();
  }
});
