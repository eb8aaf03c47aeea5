/**
 * Failures that do not cost a worker (lib/engine/deferred-failures.ts): a nested conformance run against a
 * server with faults reports its failing tests as failed to every reporter and exits 1, but Playwright
 * keeps its one worker; with reporters that do not include the deferred-failures one, the tests fail in
 * the worker as before (and Playwright replaces it after each).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { deferralAvailable } from '../../lib/engine/deferred-failures.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { startReferenceServer } from '../../server/index.ts';
import { childEnv, runPlaywright } from '../support/run-playwright.ts';

test.describe.configure({ timeout: 240_000 });

const KEY = 'local-dev-key';
/** Tests the faults fail, and one they do not (nested runs are kept short). */
const GREP = '\\[(run\\.start-and-end|run\\.malformed|run\\.accept|merge\\.unknown-preferred)\\]';

interface JsonResult {
  status: string;
  workerIndex: number;
  errors: Array<{ message?: string }>;
}
interface JsonSpec {
  title: string;
  tests: Array<{ results: JsonResult[] }>;
}
interface JsonSuite {
  specs?: JsonSpec[];
  suites?: JsonSuite[];
}

function results(suite: JsonSuite): Array<{ title: string; result: JsonResult }> {
  return [...(suite.specs ?? []).flatMap((s) => s.tests.flatMap((t) => t.results.map((result) => ({ title: s.title, result })))), ...(suite.suites ?? []).flatMap(results)];
}

async function nestedRun(reporters: string): Promise<{ code: number; out: string; tests: Array<{ title: string; result: JsonResult }>; junit: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-deferred-'));
  const server = await startReferenceServer({ profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), key: KEY, faults: ['run-success-201', 'crash-on-malformed'] });
  try {
    const env = childEnv({
      ISWC_BASE_URL: server.url,
      ISWC_SUBSCRIPTION_KEY: KEY,
      ISWC_REPORT_DIR: dir,
      ISWC_RUNS: '5',
      ISWC_WORKERS: '1',
      ISWC_STRICT: '1',
      PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(dir, 'results.json'),
      PLAYWRIGHT_JUNIT_OUTPUT_NAME: path.join(dir, 'junit.xml'),
    });
    const run = await runPlaywright(['test', '--project=json', `--grep=${GREP}`, `--reporter=${reporters}`, '--output', path.join(dir, 'results')], env);
    const json = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as JsonSuite & { suites: JsonSuite[] };
    return { code: run.code, out: run.stdout + run.stderr, tests: results(json), junit: readFileSync(path.join(dir, 'junit.xml'), 'utf8') };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('with the deferred-failures reporter first, failing tests are failed for every reporter, the run exits 1, and one worker runs them all', { tag: '@e2e' }, async () => {
  const run = await nestedRun('./lib/engine/deferred-failures.ts,json,junit,list');
  expect(run.code, run.out).toBe(1);
  const failed = run.tests.filter((t) => t.result.status === 'failed');
  expect(failed.map((t) => /\[([\w.-]+)\]/.exec(t.title)?.[1]).sort()).toEqual(['run.accept', 'run.malformed', 'run.start-and-end']);
  for (const t of failed) expect(t.result.errors[0]?.message).toMatch(/check\(s\) failed:\n(status\.documented|status\.success|body\.malformed|http\.)/);
  expect(run.tests.find((t) => t.title.includes('[merge.unknown-preferred]'))?.result.status).toBe('passed');
  // No worker was replaced: every test ran in worker 0.
  expect(new Set(run.tests.map((t) => t.result.workerIndex))).toEqual(new Set([0]));
  // Playwright's JUnit writes a thrown error as <error>, an expect() failure as <failure>: either is a failed testcase.
  expect((run.junit.match(/<(failure|error) /g) ?? []).length).toBe(3);
  expect(run.out).toMatch(/3 failed/);
});

test('without it, the same tests fail in their worker, and Playwright replaces the worker after each', { tag: '@e2e' }, async () => {
  const run = await nestedRun('json,junit');
  expect(run.code, run.out).toBe(1);
  expect(run.tests.filter((t) => t.result.status === 'failed')).toHaveLength(3);
  expect(new Set(run.tests.map((t) => t.result.workerIndex)).size).toBeGreaterThan(1);
  expect((run.junit.match(/<(failure|error) /g) ?? []).length).toBe(3);
});

test('deferral needs the reporter first among the run\'s reporters', () => {
  expect(deferralAvailable({ reporter: [['/repo/lib/deferred-failures.ts', {}], ['list', {}]] })).toBe(true);
  expect(deferralAvailable({ reporter: [['list', {}], ['/repo/lib/deferred-failures.ts', {}]] })).toBe(false);
  expect(deferralAvailable({ reporter: [['blob', {}]] })).toBe(false);
  expect(deferralAvailable({ reporter: [] })).toBe(false);
});
