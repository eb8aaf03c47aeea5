import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { executionKey } from '../../lib/report/build.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { readReport } from '../../lib/report/validate.ts';
import { childEnv, runPlaywright } from '../support/run-playwright.ts';
import { SLOW_TEST_TIMEOUT_MS } from '../support/timeouts.ts';

test.describe.configure({ timeout: SLOW_TEST_TIMEOUT_MS });

function verdicts(report: ConformanceReport): string[] {
  return report.executions.map((e) => `${executionKey(e)}\u0001${e.verdict}`);
}

/**
 * Sharded runs (`--shard i/n --reporter=blob`) merged with `npx playwright merge-reports` feed the same
 * reporter (it reads the attachments, which blob reports keep) and give the verdicts of an unsharded run.
 */
test('merge-reports of two blob shards yields the verdicts of an unsharded run', { tag: '@e2e' }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-merge-'));
  try {
    // The smoke plan (every spec check once, fixed and generated cases; about 2,000 check executions in 37
    // tests), five runs of each generated case: sharding and merging see every kind of test, for a tenth
    // of a full run's time.
    const env = (extra: Record<string, string>) => childEnv({ ISWC_SEED: '4242', ISWC_RUNS: '5', ISWC_PLAN: 'smoke', ...extra });
    const [whole, ...shards] = await Promise.all([
      runPlaywright(['test', '--project=json', '--project=xml', '--output', path.join(dir, 'out-whole')], env({ ISWC_REPORT_DIR: path.join(dir, 'whole') })),
      ...[1, 2].map((i) =>
        runPlaywright(['test', '--project=json', '--project=xml', `--shard=${i}/2`, '--reporter=blob', '--output', path.join(dir, `out-${i}`)], env({ PLAYWRIGHT_BLOB_OUTPUT_DIR: path.join(dir, `blob-${i}`) })),
      ),
    ]);
    for (const s of shards) expect(s.code, s.stdout + s.stderr).toBe(0);
    if (whole === undefined) throw new Error('the unsharded run did not start');
    expect(whole.code, whole.stdout + whole.stderr).toBe(0);

    const blobs = path.join(dir, 'blobs');
    mkdirSync(blobs);
    for (const i of [1, 2]) for (const f of readdirSync(path.join(dir, `blob-${i}`))) cpSync(path.join(dir, `blob-${i}`, f), path.join(blobs, f));
    expect(readdirSync(blobs)).toHaveLength(2);
    const merged = await runPlaywright(['merge-reports', '--reporter', './reporters/conformance-reporter.ts', blobs], env({ ISWC_REPORT_DIR: path.join(dir, 'merged') }));
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);

    const a = readReport(path.join(dir, 'merged', 'conformance.json'));
    const b = readReport(path.join(dir, 'whole', 'conformance.json'));
    expect(a.executions.length).toBeGreaterThan(1000);
    expect(verdicts(a)).toEqual(verdicts(b));
    expect(a.summary).toEqual(b.summary);
    expect(a.meta.seed).toBe(4242);
    expect(a.meta.requests).toBe(b.meta.requests);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
