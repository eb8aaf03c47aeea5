import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { consumedAgainst } from '../../lib/cli/commands/profile.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { Consumption, consumedReason, earlierConsumption, mergedConsumption, profileEntryNamer } from '../../lib/report/consumed.ts';
import type { ConsumedEntry } from '../../lib/report/consumed.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { runOutcome } from '../../lib/report/outcome.ts';
import { readReport } from '../../lib/report/validate.ts';
import type { CaseDef } from '../../lib/generate/case.ts';
import type { CheckExecution } from '../../lib/run/execution.ts';
import type { PlannedCase } from '../../lib/run/planned.ts';
import { startReferenceServer } from '../../server/index.ts';
import { runCliAsync } from '../support/cli.ts';
import { childEnv, runPlaywright } from '../support/run-playwright.ts';

/**
 * Issue 40: a second destructive run against the same target finds the disposable entries the first one
 * consumed gone. Their refusals are not findings: the run names the entries, says what to do, and ends
 * with exit 3 (lib/report/consumed.ts).
 */

const SUBMISSION = { preferredIswc: 'T3300000102', agency: '128', workcode: 'IM00900101', sourceDb: 128 };
const OTHER = { preferredIswc: 'T3300000204', agency: '128', workcode: 'IM00900102', sourceDb: 128 };
const name = profileEntryNamer({ submissions: [OTHER, SUBMISSION] });

function planned(id: string, claims: CaseDef['claims'], entries: PlannedCase['entries']): PlannedCase {
  return { def: { id, claims } as CaseDef, format: 'none', project: 'json', key: `${id}@none`, entries, shape: {} as PlannedCase['shape'] };
}
const deleteCase = planned('delete.success-then-repeat', [{ kind: 'submissions', count: 1 }], { submissions: [SUBMISSION] });

function execution(checkId: string, verdict: CheckExecution['verdict'], received: string): CheckExecution {
  return { checkId, level: 'spec', sections: ['4.3'], operation: 'deleteSubmission', format: 'json', caseId: 'delete.success-then-repeat', step: 'delete', verdict, received };
}
const earlier = (entries: ConsumedEntry[]) => ({ report: 'reports/conformance.json', entries });
const consumedBefore: ConsumedEntry = { kind: 'submissions', entry: SUBMISSION, caseId: 'delete.success-then-repeat', at: '2026-11-29T07:00:00.000Z' };

test('a refusal on an entry an earlier run consumed is skipped, naming the entry, the run and what to do; anything else stays a finding', () => {
  const consumption = new Consumption(true, earlier([consumedBefore]), '2026-11-29T08:00:00.000Z', name);
  const out = consumption.observe(deleteCase, [execution('status.success', 'fail', '404 text/plain "Submission not found"'), execution('http.no-5xx', 'pass', '404'), execution('http.no-internals', 'fail', '404 stack trace')]);
  expect(out.map((e) => e.verdict)).toEqual(['skip', 'pass', 'skip']);
  expect(out[0]?.skipReason).toBe(
    "the profile's disposable entry submissions[1] (deleted by a run started 2026-11-29T07:00:00.000Z) is consumed, as reports/conformance.json records: recreate it on the target, or use a reusable profile (docs/target-profile.md)",
  );
  expect(consumption.foundConsumed()).toEqual([consumedBefore]);
  expect(consumption.reason()).toBe(out[0]?.skipReason);
  // Not consumed again (nothing answered 2xx): passed on, with the run that consumed it.
  expect(consumption.ledger()).toEqual([consumedBefore]);

  // A 5xx is a finding whatever happened before; so is a 2xx where a refusal was due.
  const fresh = new Consumption(true, earlier([consumedBefore]), '2026-11-29T08:00:00.000Z', name);
  const kept = fresh.observe(deleteCase, [execution('http.no-5xx', 'fail', '500'), execution('outcome.identity', 'fail', '204')]);
  expect(kept.map((e) => e.verdict)).toEqual(['fail', 'fail']);
  expect(fresh.reason()).toBeUndefined();
  // The 204 consumed it (again): recorded with this run's start.
  expect(fresh.ledger()).toEqual([{ ...consumedBefore, at: '2026-11-29T08:00:00.000Z' }]);
});

test('without evidence nothing is excused: no earlier report, another entry, a read-only claim, or a run that consumes nothing', () => {
  const refusal = [execution('status.success', 'fail', '404')];
  expect(new Consumption(true, undefined, 'now', name).observe(deleteCase, refusal)[0]?.verdict).toBe('fail');
  const other = planned('delete.identity', [{ kind: 'submissions', count: 1 }], { submissions: [OTHER] });
  expect(new Consumption(true, earlier([consumedBefore]), 'now', name).observe(other, refusal)[0]?.verdict).toBe('fail');
  const readOnly = planned('limit.delete', [{ kind: 'submissions', count: 1, readOnly: true }], { submissions: [SUBMISSION] });
  const reading = new Consumption(true, earlier([consumedBefore]), 'now', name);
  expect(reading.observe(readOnly, [execution('query.refused', 'fail', '400')])[0]?.verdict).toBe('fail');
  expect(reading.observe(readOnly, [execution('status.success', 'pass', '204')]).length).toBe(1);
  expect(reading.ledger()).toEqual([consumedBefore]);
  // A run that consumes nothing (not destructive, a reusable profile) judges as before and passes the ledger on.
  const idle = new Consumption(false, earlier([consumedBefore]), 'now', name);
  expect(idle.observe(deleteCase, refusal)[0]?.verdict).toBe('fail');
  expect(idle.observe(deleteCase, [execution('status.success', 'pass', '204')])[0]?.verdict).toBe('pass');
  expect(idle.ledger()).toEqual([consumedBefore]);
});

test('a refusal no earlier report explains stays a failure, with what to check: an earlier run whose reports are elsewhere', () => {
  // A newcomer's second destructive run into another --report-dir: the first run's report is not the one it replaces.
  const unexplained = new Consumption(true, undefined, 'now', name);
  expect(unexplained.observe(deleteCase, [execution('status.success', 'fail', '404 text/plain "Submission not found"')])[0]?.verdict).toBe('fail');
  expect(unexplained.reason()).toBeUndefined();
  expect(unexplained.hint('reports/full')).toBe(
    "refused: the profile's disposable entry submissions[1], which a destructive run consumes. If an earlier destructive run against this target consumed it, with its reports in another directory than reports/full, this run could not know, and its failure is not the API's: recreate it on the target, or give --report-dir the directory of that run, whose report says what it consumed (docs/target-profile.md, \"A second run before you refresh them\")",
  );
  // Nothing to say: a failure that is no refusal, an entry the earlier report explains, a run that consumes nothing.
  const crash = new Consumption(true, undefined, 'now', name);
  crash.observe(deleteCase, [execution('http.no-5xx', 'fail', '500')]);
  expect(crash.hint('r')).toBeUndefined();
  const explained = new Consumption(true, earlier([consumedBefore]), 'now', name);
  explained.observe(deleteCase, [execution('status.success', 'fail', '404')]);
  expect(explained.hint('r')).toBeUndefined();
  const idle = new Consumption(false, undefined, 'now', name);
  idle.observe(deleteCase, [execution('status.success', 'fail', '404')]);
  expect(idle.hint('r')).toBeUndefined();
});

test('the reason names every entry by its place in the profile, grouped by what consumed it; one not in the profile by its values', () => {
  const two: ConsumedEntry[] = [consumedBefore, { ...consumedBefore, entry: OTHER, caseId: 'delete.identity' }];
  expect(consumedReason(two, 'r.json', name)).toBe(
    "the profile's disposable entries submissions[1], submissions[0] (deleted by a run started 2026-11-29T07:00:00.000Z) are consumed, as r.json records: recreate them on the target, or use a reusable profile (docs/target-profile.md)",
  );
  expect(profileEntryNamer({})('submissions', SUBMISSION)).toBe('submission T3300000102 128 IM00900101 128');
  expect(profileEntryNamer({ demerges: [{ preferredIswc: 'T1', agency: '128', workcode: 'W' }] })('demerges', { preferredIswc: 'T1', agency: '128', workcode: 'W' })).toBe('demerges[0]');
});

test("an earlier report counts only for the same target's origin, never for the embedded server; an entry without its run's time takes the report's start", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-consumed-'));
  try {
    const file = path.join(dir, 'conformance.json');
    expect(earlierConsumption(file, 'https://staging.example.org/iswc')).toBeUndefined();
    const write = (meta: Record<string, unknown>) => writeFileSync(file, JSON.stringify({ meta }));
    write({ baseUrl: 'https://staging.example.org/iswc/', embedded: false, startedAt: '2026-11-28T10:00:00.000Z', consumed: [{ kind: 'submissions', entry: SUBMISSION, caseId: 'delete.success-then-repeat' }] });
    expect(earlierConsumption(file, 'https://staging.example.org/iswc')).toEqual({ report: file, entries: [{ ...consumedBefore, at: '2026-11-28T10:00:00.000Z' }] });
    expect(earlierConsumption(file, 'https://other.example.org/iswc')).toBeUndefined();
    write({ baseUrl: 'http://127.0.0.1:4000', embedded: true, consumed: [consumedBefore] });
    expect(earlierConsumption(file, 'http://127.0.0.1:4000')).toBeUndefined();
    writeFileSync(file, '{ not json');
    expect(earlierConsumption(file, 'http://127.0.0.1:4000')).toBeUndefined();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('shards: each test hands on the ledger and what was found consumed; the merge records the union, each entry once, and one reason over every entry found', () => {
  const later = { ...consumedBefore, entry: OTHER, caseId: 'delete.identity', at: '2026-11-29T08:00:00.000Z' };
  const shard1 = new Consumption(true, earlier([consumedBefore]), '2026-11-29T08:00:00.000Z', name);
  expect(shard1.attached()).toEqual({ ledger: [consumedBefore] });
  shard1.observe(deleteCase, [execution('status.success', 'fail', '404 text/plain "Submission not found"')]);
  expect(shard1.attached()).toEqual({ ledger: [consumedBefore], found: { entries: [consumedBefore], report: 'reports/conformance.json' } });
  // Nothing consumed, nothing carried: nothing to attach.
  expect(new Consumption(true, undefined, 'now', name).attached()).toBeUndefined();

  const merged = mergedConsumption([{ ledger: [consumedBefore], found: { entries: [consumedBefore], report: 'reports/conformance.json' } }, { ledger: [later, consumedBefore] }, { ledger: [later] }], name);
  expect(merged.ledger).toEqual([consumedBefore, later]);
  expect(merged.reason).toBe(consumedReason([consumedBefore], 'reports/conformance.json', name));
  expect(mergedConsumption([{ ledger: [later] }], name)).toEqual({ ledger: [later] });
});

test('the outcome: exit 3 when the consumed entries are all that kept the run from judging, 1 when a check failed besides', () => {
  expect(runOutcome({ kind: 'data-consumed', reason: 'r' }, false)).toEqual({ status: 'data-consumed', reason: 'r', exitCode: 3 });
  expect(runOutcome({ kind: 'data-consumed', reason: 'r' }, true)).toEqual({ status: 'data-consumed', reason: 'r', exitCode: 1 });
});

test('the real command, twice against a stand-in: the second destructive run exits 3 naming the entry, and profile check --against says so beforehand', { tag: '@e2e' }, async () => {
  test.setTimeout(240_000);
  const KEY = 'consumed-key-5b1f0e';
  const target = 'fixtures/targets/staging-example.json';
  const profile = loadProfile(fromRoot(target));
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-consumed-run-'));
  const run = (url: string) =>
    runCliAsync(['run', '--base-url', url, '--target', target, '--destructive', '--smoke', '--grep', 'delete\\.success-then-repeat', '--report-dir', dir], {
      env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_BASE_URL: undefined, ISWC_TARGET: undefined, ISWC_RATE: undefined }),
      timeoutMs: 200_000,
    });
  const server = await startReferenceServer({ profile, key: KEY, port: 0 });
  try {
    const first = await run(server.url);
    expect(first.code, first.out.slice(-3000)).toBe(0);
    const consumed = readReport(path.join(dir, 'conformance.json')).meta.consumed ?? [];
    expect(consumed.map((c) => c.caseId)).toEqual(['delete.success-then-repeat']);
    const entry = profileEntryNamer(profile)(consumed[0]?.kind ?? 'submissions', consumed[0]?.entry);

    const second = await run(server.url);
    expect(second.code, second.out.slice(-3000)).toBe(3);
    expect(second.out).toContain(`✗ DISPOSABLE DATA CONSUMED: the profile's disposable entry ${entry} (deleted by a run started ${consumed[0]?.at ?? ''}) is consumed`);
    expect(second.out).toContain("exit code: 3 (the profile's disposable data is consumed)");
    expect(second.out).not.toMatch(/failing checks:/);
    const report = readReport(path.join(dir, 'conformance.json'));
    expect(report.summary.outcome).toMatchObject({ status: 'data-consumed', exitCode: 3 });
    expect(report.summary.gatingFailures).toBe(0);
    // The ledger passes on, with the run that consumed it.
    expect(report.meta.consumed).toEqual(consumed);
    // The per-check JUnit file counts it as an error a dashboard shows, with the reason.
    const junit = readFileSync(path.join(dir, 'conformance-junit.xml'), 'utf8');
    expect(junit).toContain('<testcase classname="run" name="run outcome: data-consumed"');
    expect(junit).toMatch(/<error message="the profile&apos;s disposable entry [^"]+ is consumed[^"]*" type="DataConsumed">/);
    expect(second.out).not.toContain(KEY);
    // profile check --against says the same before a run, sending nothing.
    const against = consumedAgainst(profile, server.url, dir);
    expect(against.entries).toBe(1);
    expect(against.text).toContain(`the profile's disposable entry ${entry} (deleted by a run started ${consumed[0]?.at ?? ''}) is consumed`);
    expect(consumedAgainst(profile, 'https://other.example.org', dir)).toEqual({ entries: 0, text: expect.stringContaining('no entry of the profile is known consumed') as unknown as string });
    expect(() => consumedAgainst(profile, 'staging', dir)).toThrow(/--against must be the target's base URL/);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a sharded destructive gate: the merge of its shards records what they consumed, and the next sharded gate, each shard given that report, ends data-consumed', { tag: '@e2e' }, async () => {
  test.setTimeout(240_000);
  const KEY = 'consumed-shards-key-9a2c41';
  const target = 'fixtures/targets/staging-example.json';
  const profile = loadProfile(fromRoot(target));
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-consumed-shards-'));
  const server = await startReferenceServer({ profile, key: KEY, port: 0 });
  // Two consuming cases, one a shard; five runs of anything generated.
  const env = (extra: Record<string, string>) =>
    childEnv({ ISWC_BASE_URL: server.url, ISWC_TARGET: target, ISWC_DESTRUCTIVE: '1', ISWC_SUBSCRIPTION_KEY: KEY, ISWC_SEED: '4242', ISWC_RUNS: '5', ISWC_RATE: undefined, ISWC_PLAN: undefined, ISWC_BUDGET: undefined, ...extra });
  const gate = async (round: number): Promise<ConformanceReportOf> => {
    const shards = await Promise.all(
      [1, 2].map((i) =>
        runPlaywright(['test', '--project=json', '--project=xml', '--grep', 'delete\\.(success-then-repeat|identity)', `--shard=${i}/2`, '--reporter=blob', '--output', path.join(dir, `out-${round}-${i}`)], env({ ISWC_REPORT_DIR: path.join(dir, `shard-${i}`), PLAYWRIGHT_BLOB_OUTPUT_DIR: path.join(dir, `blob-${round}-${i}`) })),
      ),
    );
    const blobs = path.join(dir, `blobs-${round}`);
    mkdirSync(blobs);
    for (const i of [1, 2]) for (const f of readdirSync(path.join(dir, `blob-${round}-${i}`))) cpSync(path.join(dir, `blob-${round}-${i}`, f), path.join(blobs, f));
    expect(readdirSync(blobs), shards.map((s) => s.stdout + s.stderr).join('\n')).toHaveLength(2);
    const merged = await runPlaywright(['merge-reports', '--reporter', './reporters/conformance-reporter.ts', blobs], env({ ISWC_REPORT_DIR: path.join(dir, 'merged') }));
    const report = readReport(path.join(dir, 'merged', 'conformance.json'));
    // What CI does between gates: the merged report is restored into each shard's report directory.
    for (const i of [1, 2]) cpSync(path.join(dir, 'merged', 'conformance.json'), path.join(dir, `shard-${i}`, 'conformance.json'));
    return { report, out: merged.stdout + merged.stderr };
  };
  try {
    const first = await gate(1);
    expect(first.report.summary.outcome?.status, first.out).toBe('completed');
    const consumed = first.report.meta.consumed ?? [];
    expect(consumed.map((c) => c.caseId).sort()).toEqual(['delete.identity', 'delete.success-then-repeat']);

    const second = await gate(2);
    expect(second.report.summary.outcome).toMatchObject({ status: 'data-consumed', exitCode: 3 });
    expect(second.out).toContain('✗ DISPOSABLE DATA CONSUMED: the profile');
    expect(second.report.summary.gatingFailures).toBe(0);
    // The ledger passes on through the merge, with the runs that consumed each entry.
    expect(second.report.meta.consumed?.map((c) => `${c.caseId} ${c.at}`).sort()).toEqual(consumed.map((c) => `${c.caseId} ${c.at}`).sort());
    expect(second.out).not.toContain(KEY);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

type ConformanceReportOf = { report: ReturnType<typeof readReport>; out: string };
