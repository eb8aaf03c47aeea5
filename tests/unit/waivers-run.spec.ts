import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot, repoRoot } from '../../lib/foundation/paths.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import type { ChildRun } from '../support/run-playwright.ts';
import { childEnv, runPlaywright } from '../support/run-playwright.ts';
import { readReport } from '../../lib/report/validate.ts';
import { startReferenceServer } from '../../server/index.ts';

test.describe.configure({ timeout: 240_000 });

const KEY = 'local-dev-key';
const EXAMPLE = fromRoot('fixtures', 'waivers', 'production-deviations.yaml');
/** A case the merge 404/400 deviation fails (nested runs are kept short). */
const DEVIATION_CASES = '\\[merge\\.unknown-preferred\\]';
const UNKNOWN_ISWC_CASE = '\\[merge\\.unknown-iswc\\]';

let dir = '';

test.beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-waivers-run-'));
});

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * A nested conformance run (Playwright, the conformance reporter) of a few merge cases against a fresh
 * reference server that answers a merge into an unknown ISWC with 400, as production does.
 */
async function runAgainstDeviation(name: string, extra: Record<string, string>, grep: string): Promise<ChildRun & { reports: string }> {
  const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  const server = await startReferenceServer({ profile, key: KEY, faults: ['merge-404-as-400'] });
  const reports = path.join(dir, name);
  try {
    const env = childEnv({ ISWC_BASE_URL: server.url, ISWC_SUBSCRIPTION_KEY: KEY, ISWC_REPORT_DIR: reports, ISWC_RUNS: '10', ISWC_WORKERS: '1', ISWC_SEED: '7', ...extra });
    // JSON only: the cases chosen fail the same way in XML, and a nested run costs mostly its start.
    const run = await runPlaywright(['test', '--project=json', `--grep=${grep}`, '--output', path.join(dir, `${name}-results`)], env);
    return { ...run, reports };
  } finally {
    await server.close();
  }
}

test('live waivers: the failures of the deviation are waived in the tests and in every report; the run passes', { tag: '@e2e' }, async () => {
  const run = await runAgainstDeviation('live', { ISWC_WAIVERS: EXAMPLE }, DEVIATION_CASES);
  const out = run.stdout + run.stderr;
  expect(run.code, out).toBe(0);
  expect(out).toContain('waivers fixtures/waivers/production-deviations.yaml (1 entry)');
  expect(out).toMatch(/waived checks \(known deviations, not gating\):\n {2}~ status\.not-found \[spec, section [^\]]+\] ×\d+ — waiver 0 \(status\.not-found on mergeIswcMetadata in case merge\.unknown-preferred or scenario\.merge\.unknown-preferred-iswc answering 400\): Production answers a merge into an ISWC that does not exist/);
  // Only a few cases ran: a partial run, and it says so.
  expect(out).toMatch(/verdict: conformant on \d+ of \d+ spec checks with 1 waiver\b/);

  const report = readReport(path.join(run.reports, 'conformance.json'));
  expect(report.summary.gatingFailures).toBe(0);
  expect(report.summary.waivers?.entries.map((e) => e.status)).toEqual(['used']);
  const waived = report.executions.filter((e) => e.verdict === 'waived');
  expect(waived.length).toBeGreaterThan(0);
  expect(report.summary.waivers?.entries.reduce((n, e) => n + e.count, 0)).toBe(waived.length);
  const junit = readFileSync(path.join(run.reports, 'conformance-junit.xml'), 'utf8');
  expect(junit.match(/<skipped message="waived: /g)).toHaveLength(waived.length);
  // Playwright's own junit.xml: the tests passed, and the waived failures are listed on them.
  const playwrightJunit = readFileSync(path.join(run.reports, 'junit.xml'), 'utf8');
  expect(playwrightJunit).not.toContain('<failure');
  expect(playwrightJunit).toContain('waived (known deviations, not gating)');
});

test('expired waivers: the same failures gate again and the waivers are reported expired', { tag: '@e2e' }, async () => {
  const expired = path.join(dir, 'expired.yaml');
  writeFileSync(expired, readFileSync(EXAMPLE, 'utf8').replaceAll('until: 2027-06-30', 'until: 2026-01-31'));
  const run = await runAgainstDeviation('expired', { ISWC_WAIVERS: expired }, DEVIATION_CASES);
  const out = run.stdout + run.stderr;
  expect(run.code, out).toBe(1);
  // Said when the run starts, before anything is sent, and again in the summary.
  const start = out.indexOf('! 1 waiver has expired (today is ');
  expect(start, out).toBeGreaterThanOrEqual(0);
  expect(start).toBeLessThan(out.indexOf('Running '));
  expect(out).toMatch(/! 1 waiver has expired \(today is \d{4}-\d\d-\d\d UTC\): its failures gate again; renew or remove it in .*expired\.yaml\n {4}entry 0 \(line 12\) status\.not-found on mergeIswcMetadata in case merge\.unknown-preferred or scenario\.merge\.unknown-preferred-iswc answering 400, until 2026-01-31: /);
  expect(out).toContain('failing checks:');
  expect(out).toMatch(/expired waivers in .*expired\.yaml \(their failures gate again\):\n {2}! waiver 0 \(line 12\) status\.not-found on mergeIswcMetadata in case merge\.unknown-preferred or scenario\.merge\.unknown-preferred-iswc answering 400, until 2026-01-31/);
  expect(out).toContain('verdict: not conformant');
  const report = readReport(path.join(run.reports, 'conformance.json'));
  expect(report.summary.waivers?.entries.map((e) => e.status)).toEqual(['expired']);
  expect(report.executions.filter((e) => e.verdict === 'waived')).toEqual([]);
  expect(report.summary.gatingFailures).toBeGreaterThan(0);
});

test('ISWC_REQUIRE_ALL=1: a partial run fails, naming the spec checks it did not exercise', { tag: '@e2e' }, async () => {
  const run = await runAgainstDeviation('require-all', { ISWC_WAIVERS: EXAMPLE, ISWC_REQUIRE_ALL: '1' }, UNKNOWN_ISWC_CASE);
  const out = run.stdout + run.stderr;
  expect(run.code, out).toBe(1);
  const report = readReport(path.join(run.reports, 'conformance.json'));
  const missing = report.summary.coverage.notExercised.map((n) => n.checkId);
  expect(missing).toEqual(expect.arrayContaining(['outcome.merge', 'outcome.delete', 'text.not-authorized']));
  expect(out).toContain(`✗ ISWC_REQUIRE_ALL=1: ${missing.length} spec check(s) not exercised: ${missing.join(', ')}`);
  expect(out).toMatch(/ {2}- outcome\.delete \[section [^\]]+\]: no case ran it/);
  expect(report.summary.gatingFailures).toBe(0);
});

test('a malformed waivers file stops the run in the global setup and the CLI, before any request', { tag: '@e2e' }, async () => {
  const bad = path.join(dir, 'bad.yaml');
  writeFileSync(bad, '- check: status.not-found\n  operation: mergeIswcMetadata\n  statuses: [400]\n  reason: production answers 400\n  until: 2027-02-30\n');
  const reports = path.join(dir, 'malformed');
  const run = await runPlaywright(['test', '--project=json', '--output', path.join(dir, 'malformed-results')], childEnv({ ISWC_WAIVERS: bad, ISWC_REPORT_DIR: reports }));
  const out = run.stdout + run.stderr;
  expect(run.code, out).not.toBe(0);
  expect(out).toContain(`${bad}:5:10 entry 0 (until): "2027-02-30" is not a date of the calendar`);
  // The setup stopped before it started the embedded server: no test ran, no report was written.
  expect(out).not.toContain('iswc-conformance: target');
  expect(existsSync(path.join(reports, 'conformance.json'))).toBe(false);

  const cli = await promisify(execFile)(process.execPath, [fromRoot('bin', 'iswc-conformance.mjs'), '--waivers', bad], { cwd: repoRoot }).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
  expect(cli.code).toBe(2);
  expect(cli.stderr).toContain(`${bad}:5:10 entry 0 (until): "2027-02-30" is not a date of the calendar`);
});
