import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot, shownPath } from '../../lib/foundation/paths.ts';
import { startReferenceServer } from '../../server/index.ts';
import { runCliAsync } from '../support/cli.ts';
import { childEnv } from '../support/run-playwright.ts';

/**
 * The run's processes start in the repository, not where the caller is: every path the caller gives
 * (flags or variables) is taken relative to the caller's directory, and the paths the run prints are
 * the caller's too.
 */

test('shownPath: relative under the caller\'s directory, absolute elsewhere', () => {
  expect(shownPath('/work/x/reports/conformance.json', '/work/x')).toBe(path.join('reports', 'conformance.json'));
  expect(shownPath('/elsewhere/conformance.json', '/work/x')).toBe('/elsewhere/conformance.json');
  expect(shownPath('/work/x', '/work/x')).toBe('.');
});

test('a run from another directory reads and writes its relative paths there, and prints them as the caller gave them', { tag: '@e2e' }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-cwd-'));
  const profileFile = fromRoot('fixtures', 'targets', 'embedded.json');
  const target = await startReferenceServer({ profile: loadProfile(profileFile), key: 'paths-key-0001', faults: ['run-bad-request-text'] });
  try {
    mkdirSync(path.join(dir, 'profiles'));
    copyFileSync(profileFile, path.join(dir, 'profiles', 'mine.json'));
    copyFileSync(fromRoot('fixtures', 'waivers', 'production-deviations.yaml'), path.join(dir, 'waivers.yaml'));
    const run = await runCliAsync(['run', '--base-url', target.url, '--smoke', '--seed', '1', '--report-dir', 'out', '--grep', 'run\\.'], {
      cwd: dir,
      env: childEnv({ ISWC_SUBSCRIPTION_KEY: 'paths-key-0001', ISWC_TARGET: 'profiles/mine.json', ISWC_WAIVERS: 'waivers.yaml' }),
      timeoutMs: 240_000,
    });
    expect(run.code, run.out).toBe(1);
    const report = JSON.parse(readFileSync(path.join(dir, 'out', 'conformance.json'), 'utf8')) as { meta: { profile: string } };
    expect(report.meta.profile).toBe('embedded');
    expect(existsSync(fromRoot('out'))).toBe(false);
    // Playwright's per-test files are with the reports, and only the folders that hold something are left.
    const testResults = path.join(dir, 'out', 'test-results');
    expect(existsSync(testResults)).toBe(true);
    const empty = readdirSync(testResults).filter((name) => statSync(path.join(testResults, name)).isDirectory() && readdirSync(path.join(testResults, name)).length === 0);
    expect(empty).toEqual([]);
    expect(run.out).toContain(`reports: ${path.join('out', 'conformance.json')}`);
    expect(run.out).toContain(`--report out/conformance.json --target profiles/mine.json --base-url ${target.url}`);
    expect(run.out).toMatch(/npx iswc-conformance replay [0-9a-f]{8} --report out\/conformance\.json/);
  } finally {
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a run with its own report directory keeps Playwright\'s per-test files there: runs side by side never empty each other\'s', () => {
  // Playwright empties its output folder when a run starts; one folder shared by two runs (shards on one
  // machine, parallel CI jobs, the CLI tests of npm test) lost a running test's files (ENOENT mid-test).
  const outputDir = (reportDir: string | undefined): string => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', "process.stdout.write((await import('./playwright.config.ts')).default.outputDir ?? '')"], {
      cwd: fromRoot(),
      env: childEnv({ ISWC_REPORT_DIR: reportDir }),
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    return child.stdout;
  };
  expect(outputDir('/runs/shard-1')).toBe('/runs/shard-1/test-results');
  expect(outputDir('/runs/shard-2')).toBe('/runs/shard-2/test-results');
  // A run the command line did not start (npm test, npx playwright test) writes apart from a user's reports/.
  expect(outputDir(undefined)).toBe('test-reports/test-results');
});
