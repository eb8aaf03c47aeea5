import { cliInProcess, runCli } from '../support/cli.ts';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { XMLParser } from 'fast-xml-parser';
import { readReport } from '../../lib/report/validate.ts';
import { outsideReferences } from '../../lib/cli/commands/allure.ts';
import { runAgainstFaultyServer } from '../support/faulty-run.ts';
import { childEnv, runPlaywright } from '../support/run-playwright.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';
import type { ChildRun } from '../support/run-playwright.ts';

/**
 * The files CI tools read, from a real run: the conformance projects against a reference server with three
 * faults, a few cases of each outcome (gating failures, non-gating http failures, passes). Every test reads
 * that run, so every test is of npm run test:e2e (the Allure messages themselves: allure-messages.spec.ts).
 */
test.describe.configure({ mode: 'serial', timeout: 300_000 });

const GREP = 'merge\\.unknown-preferred\\]|run\\.malformed\\]|run\\.start-and-end\\]';
const FAULTS = ['run-bad-request-text', 'merge-404-as-400', 'stack-trace-in-error'];
let dir = '';
let run: ChildRun;

interface Suite {
  name: string;
  hostname?: string;
  tests: string;
  failures: string;
  errors: string;
  testcase: Array<{ name: string; classname: string; failure?: { message: string; type: string }; error?: unknown }>;
}

function parseJunit(file: string): { testsuites: { tests: string; failures: string; errors: string; testsuite: Suite[] } } {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) });
  return parser.parse(readFileSync(file, 'utf8')) as { testsuites: { tests: string; failures: string; errors: string; testsuite: Suite[] } };
}

interface AllureStep {
  name: string;
  status?: string;
  statusDetails?: { message?: string };
  steps?: AllureStep[];
  attachments?: Array<{ name: string }>;
}
interface AllureResult extends AllureStep {
  labels: Array<{ name: string; value: string }>;
}

function allureResults(): AllureResult[] {
  const results = path.join(dir, 'allure-results');
  return readdirSync(results)
    .filter((f) => f.endsWith('-result.json'))
    .map((f) => JSON.parse(readFileSync(path.join(results, f), 'utf8')) as AllureResult);
}

function attachmentNames(s: AllureStep): string[] {
  return [...(s.attachments ?? []).map((a) => a.name), ...(s.steps ?? []).flatMap(attachmentNames)];
}

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-ci-'));
  run = await runAgainstFaultyServer({ faults: FAULTS, grep: GREP, dir });
});

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Playwright's junit file: the tests that failed on checks are failures, none is an error, and the counts say so. */
function expectGatingFailuresCounted(file: string): void {
  const junit = parseJunit(file).testsuites;
  const cases = junit.testsuite.flatMap((s) => s.testcase);
  const failed = cases.filter((c) => c.failure);
  expect(failed.length, file).toBe(4); // merge.unknown-preferred and run.malformed, in JSON and XML
  expect(cases.filter((c) => c.error), file).toEqual([]);
  expect(Number(junit.failures), file).toBe(failed.length);
  expect(Number(junit.errors), file).toBe(0);
  for (const s of junit.testsuite) {
    expect(Number(s.failures), s.name).toBe(s.testcase.filter((c) => c.failure).length);
    expect(Number(s.errors), s.name).toBe(0);
  }
  expect(failed.map((c) => c.failure?.message).every((m) => /^\d+ check\(s\) failed:$/.test(m ?? '')), file).toBe(true);
}

test('JUnit: gating failures are <failure> in every JUnit file the run writes, never <error>', { tag: '@e2e' }, () => {
  expect(run.code, run.stdout + run.stderr).toBe(1);
  const report = readReport(path.join(dir, 'conformance.json'));
  expect(report.summary.gatingFailures).toBeGreaterThan(0);

  // Playwright's own junit.xml.
  expectGatingFailuresCounted(path.join(dir, 'junit.xml'));

  // conformance-junit.xml: one testcase per check execution, every failure a <failure>.
  const perCheck = parseJunit(path.join(dir, 'conformance-junit.xml')).testsuites;
  const failing = report.executions.filter((e) => e.verdict === 'fail');
  expect(Number(perCheck.failures)).toBe(failing.length);
  expect(Number(perCheck.errors)).toBe(0);
  const gatingNames = new Set(failing.filter((e) => e.level === 'spec').map((e) => `${e.checkId} · ${e.caseId} · ${e.step}`));
  const failedNames = new Set(perCheck.testsuite.flatMap((s) => s.testcase).filter((c) => c.failure).map((c) => c.name));
  for (const name of gatingNames) expect(failedNames.has(name), name).toBe(true);
});

test('the console prints each failing check with the replay command of a failure, and that command replays it', { tag: '@e2e' }, async () => {
  const report = readReport(path.join(dir, 'conformance.json'));
  const failing = report.executions.filter((e) => e.verdict === 'fail');
  const out = run.stdout + run.stderr;
  const printed = [...out.matchAll(/failure ([0-9a-f]{8}): npx iswc-conformance replay \1 --report (\S+)/g)];
  // One line per failing check in the summary (the test failures print their own too).
  expect(new Set(printed.map((m) => m[1])).size).toBeGreaterThanOrEqual(new Set(failing.map((e) => e.checkId)).size);
  for (const m of printed) expect(failing.some((e) => e.failureId === m[1]), m[0]).toBe(true);
  expect(out).toMatch(/Replay failure [0-9a-f]{8}: npx iswc-conformance replay/);
  const [, id, reportFile] = printed[0] ?? [];
  expect(path.resolve(reportFile ?? '')).toBe(path.join(dir, 'conformance.json'));
  // The run's server is gone: the same faults on a new one, as after a restart.
  const server = await startReferenceServer({ profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), key: EMBEDDED_KEY, faults: FAULTS });
  try {
    // In this process: the server answers from this process's event loop, which a synchronous child would block.
    const replayed = await cliInProcess(['replay', id ?? '', '--report', reportFile ?? '', '--base-url', server.url], { env: { ISWC_SUBSCRIPTION_KEY: EMBEDDED_KEY } });
    expect(replayed.code, replayed.out).toBe(1);
    expect(replayed.stdout).toContain(`replay failure ${id ?? ''}:`);
    expect(replayed.stdout).toContain('verdict: the failure happens again');
  } finally {
    await server.close();
  }
});

test('JUnit: a sharded run merged with merge-reports (docs/ci) writes the gating failures as <failure> too', { tag: '@e2e' }, async () => {
  const shard = mkdtempSync(path.join(tmpdir(), 'iswc-ci-blob-'));
  try {
    const blobs = path.join(shard, 'blob');
    const sharded = await runAgainstFaultyServer({ faults: FAULTS, grep: GREP, dir: shard, reporter: 'blob', extraEnv: { PLAYWRIGHT_BLOB_OUTPUT_DIR: blobs } });
    expect(sharded.code, sharded.stdout + sharded.stderr).toBe(1);
    const junit = path.join(shard, 'merged-junit.xml');
    const merged = await runPlaywright(['merge-reports', '--reporter=junit', blobs], childEnv({ PLAYWRIGHT_JUNIT_OUTPUT_FILE: junit }), { timeoutMs: 120_000 });
    // merge-reports exits 0 whatever the tests' outcome: the JUnit file is what CI reads.
    expect(existsSync(junit), merged.stdout + merged.stderr).toBe(true);
    expectGatingFailuresCounted(junit);
  } finally {
    rmSync(shard, { recursive: true, force: true });
  }
});

test('Allure results: a step per exchange failed when a check failed on it, each attachment once, titles that tell JSON from XML, the seed used', { tag: '@e2e' }, () => {
  const results = allureResults();
  expect(results.length).toBe(6);
  // Titles: the format in each; no two tests share one; the suites are format, then operation.
  const names = results.map((r) => r.name);
  expect(names.every((n) => / · (JSON|XML)$/.test(n))).toBe(true);
  expect(new Set(names).size).toBe(names.length);
  for (const r of results) {
    const label = (name: string) => r.labels.filter((l) => l.name === name).map((l) => l.value);
    expect(label('parentSuite')).toEqual([r.name.endsWith('· JSON') ? 'JSON' : 'XML']);
    expect(label('suite')).toHaveLength(1);
  }
  // Steps follow the exchange's verdict: a failing one is failed, with the failing checks as its message.
  const merge = results.find((r) => r.name.includes('[merge.unknown-preferred]') && r.name.endsWith('· JSON'));
  const exchange = merge?.steps?.find((s) => s.name.startsWith('POST /iswc/merge'));
  expect(exchange?.status).toBe('failed');
  expect(exchange?.name).toContain('status.not-found');
  expect(exchange?.statusDetails?.message).toContain('status.not-found [spec, §4.2, §7]');
  expect(exchange?.statusDetails?.message).toContain('http.no-internals [http, RFC 9110 §17] (not gating)');
  // Each exchange's step carries its request and its response, and lasts what the exchange took.
  for (const step of merge?.steps ?? []) expect((step.attachments ?? []).map((a) => a.name), step.name).toEqual(['request', 'response']);
  const passing = results.filter((r) => r.name.includes('[run.start-and-end]'));
  expect(passing.map((r) => r.status)).toEqual(['passed', 'passed']);
  expect(passing.flatMap((r) => r.steps ?? []).every((s) => s.status === 'passed')).toBe(true);
  // Each attachment once: Playwright's error context of a failing test, once; the harness's hand-off, never.
  for (const r of results) {
    const attached = attachmentNames(r);
    expect(attached.filter((n) => n === 'error-context').length, r.name).toBeLessThanOrEqual(1);
    expect(attached, r.name).not.toContain('iswc-check-executions');
  }
  // A failing test carries its failures as its message (deferred failures leave no error context to attach).
  expect(results.filter((r) => r.status === 'failed').every((r) => (r.statusDetails?.message ?? '').includes('check(s) failed'))).toBe(true);
  // The environment page shows the seed the run used.
  const report = readReport(path.join(dir, 'conformance.json'));
  const environment = readFileSync(path.join(dir, 'allure-results', 'environment.properties'), 'utf8');
  expect(environment).toContain(`seed=${report.meta.seed}`);
  expect(environment).not.toMatch(/random/);
});

test('npm run report:allure honours ISWC_REPORT_DIR, exits 0 and writes one file that refers to nothing outside itself', { tag: '@e2e' }, () => {
  const result = runCli(['allure'], { env: { ...process.env, ISWC_REPORT_DIR: dir } });
  expect(result.code, result.out).toBe(0);
  const out = result.stdout;
  expect(out).toContain('allure-report/index.html');
  const html = readFileSync(path.join(dir, 'allure-report', 'index.html'), 'utf8');
  expect(outsideReferences(html)).toEqual([]);
  expect(html).not.toContain('googletagmanager');
  // The page carries its data: no data/ folder for it to fetch from disk.
  expect(readdirSync(path.join(dir, 'allure-report')).filter((f) => !f.endsWith('.json'))).toEqual(['index.html']);
  // Without results, it says where it looked.
  const empty = mkdtempSync(path.join(tmpdir(), 'iswc-allure-empty-'));
  try {
    const none = runCli(['allure'], { env: { ...process.env, ISWC_REPORT_DIR: empty } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no Allure results in');
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
  // The page's own check finds what the default plugin puts in.
  expect(outsideReferences('<script async src="https://www.googletagmanager.com/gtag/js?id=G-1"></script>')).toHaveLength(1);
});
