/**
 * A budget is a cap on what reaches the target, resends included, and one set of figures (planned, sent,
 * retried, answered, the wall time waited) is given alike by the console, conformance.json, the HTML
 * and the certificate. The real command against a gateway on loopback that throttles every third request
 * (429 with Retry-After), as API Management does at its rate limit.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { readReport } from '../../lib/report/validate.ts';
import { figuresOf, figuresText } from '../../lib/report/figures.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { cliInProcess, runCliAsync } from '../support/cli.ts';
import { startGateway } from '../support/gateway.ts';
import { childEnv } from '../support/run-playwright.ts';

test.describe.configure({ mode: 'parallel', timeout: 240_000 });

const KEY = 'budget-key-2b8e6f1d';

let dirs: string[] = [];
test.afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'iswc-budget-'));
  dirs.push(d);
  return d;
}

test('--budget 60 against a gateway that throttles every third request: at most 60 requests reach it, and every output gives the same figures', { tag: '@e2e' }, async () => {
  const gateway = await startGateway({
    key: KEY,
    answer: (n) => (n % 3 === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: '{"statusCode":429,"message":"Rate limit is exceeded. Try again in 1 seconds."}' } : undefined),
  });
  const dir = tempDir();
  try {
    const run = await runCliAsync(['run', '--base-url', gateway.url, '--budget', '60', '--destructive', '--seed', '7'], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_REPORT_DIR: dir }) });
    expect([0, 1], run.out).toContain(run.code);
    // The cap: what reached the gateway, resends after 429 included.
    expect(gateway.arrivals.length).toBeLessThanOrEqual(60);
    const throttled = gateway.arrivals.filter((a) => a.answeredBy === 'gateway').length;
    expect(throttled).toBeGreaterThan(5);
    const report = readReport(path.join(dir, 'conformance.json'));
    const { meta } = report;
    // conformance.json counts what reached the target.
    expect(meta.requests).toBe(gateway.arrivals.length);
    expect(meta.answered).toBe(gateway.arrivals.length);
    // Every 429 is resent, but for those the spent budget left no room for (the last, at most one per case in flight).
    expect(meta.retries).toBeLessThanOrEqual(throttled);
    expect(throttled - meta.retries).toBeLessThanOrEqual(4);
    expect(meta.planned).toBeLessThanOrEqual(60);
    expect(meta.plan).toMatchObject({ name: 'full', budget: 60, slice: 0 });
    // What the gate tried of the catalogue, for the ledger: the cases it sent whole (a case whose 429 the budget left no room to resend claims nothing).
    expect(meta.plan?.tried?.length).toBeGreaterThan(10);
    // Waited on throttling: wall time, never more than the run lasted.
    expect(meta.waitedMs).toBeGreaterThan(900);
    expect(meta.waitedMs).toBeLessThan(Date.parse(meta.finishedAt) - Date.parse(meta.startedAt));
    // One text of the figures, in the console, the HTML and the certificate.
    const text = figuresText(figuresOf(meta));
    expect(text).toBe(`planned ${meta.planned} · sent ${gateway.arrivals.length} (${meta.retries} resends) · answered ${gateway.arrivals.length} · ${text.split(' · ').at(-1) ?? ''}`);
    expect(run.stdout).toContain(`requests: ${text}`);
    expect(readFileSync(path.join(dir, 'conformance.html'), 'utf8')).toContain(text);
    // The cases the budget could not cover after the resends are listed with that reason, none cut halfway;
    // the partial run's line counts what reached the gateway, as every other figure does (a case that did
    // not fit in what was left may leave a request or two of the budget unspent).
    if (report.summary.outcome?.status === 'budget') expect(run.stdout).toContain(`! PARTIAL RUN: the request budget is used up: ${gateway.arrivals.length} of 60 requests sent, resends included (ISWC_BUDGET=60)`);
    const certify = await cliInProcess(['certify', '--report', path.join(dir, 'conformance.json'), '--target', fromRoot('fixtures', 'targets', 'embedded.json'), '--out', dir], { env: childEnv({ ISWC_REPORT_DIR: dir }) });
    expect([0, 1], certify.out).toContain(certify.code);
    const certificate = JSON.parse(readFileSync(path.join(dir, 'certificate.json'), 'utf8')) as { run: Record<string, number> };
    expect(certificate.run).toMatchObject({ requests: meta.requests, retries: meta.retries, answered: meta.answered, planned: meta.planned, waitedMs: meta.waitedMs });
    expect(readFileSync(path.join(dir, 'certificate.html'), 'utf8')).toContain(text);
  } finally {
    await gateway.close();
  }
});

test('a sharded run keeps to the whole budget and the whole rate: each shard takes its share', { tag: '@e2e' }, async () => {
  const gateway = await startGateway({
    key: KEY,
    answer: (n) => (n % 3 === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: '{"statusCode":429}' } : undefined),
  });
  try {
    const shards = [];
    for (const shard of ['1/2', '2/2']) {
      const dir = tempDir();
      const run = await runCliAsync(['run', '--base-url', gateway.url, '--budget', '60', '--destructive', '--seed', '7', '--shard', shard, '--rate', '1200/min'], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_REPORT_DIR: dir }) });
      expect([0, 1], run.out).toContain(run.code);
      expect(run.stdout).toContain(`rate 10.000/s (shard ${shard}: its share of 1200/min, and of the budget of 60)`);
      shards.push(readReport(path.join(dir, 'conformance.json')).meta);
    }
    // Both shards together: no more than the budget reached the gateway, and each counted what it sent.
    expect(gateway.arrivals.length).toBeLessThanOrEqual(60);
    expect(shards.reduce((n, m) => n + m.requests, 0)).toBe(gateway.arrivals.length);
  } finally {
    await gateway.close();
  }
});
