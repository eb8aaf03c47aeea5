import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { sinceOption } from '../../lib/cli/commands/ledger.ts';
import type { Exchange } from '../../lib/contract/exchange.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { buildLedger, renderLedger, sliceRanges } from '../../lib/report/ledger.ts';
import type { Catalogue, LedgerRun } from '../../lib/report/ledger.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { reportViolations } from '../../lib/report/validate.ts';
import { caughtByPlanned } from '../../lib/run/plan-catches.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { harnessCatalogue, triedFaults } from '../../lib/run/tried.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';
import { cliInProcess } from '../support/cli.ts';

/**
 * Issue 37, the ledger of rotating gates: each run records the faults of the catalogue its cases tried
 * (lib/run/tried.ts), and `ledger` adds them up across the gates whose reports are at hand.
 */

const answered = { exchange: { durationMs: 1 } as unknown as Exchange };
const notSent = { exchange: { durationMs: 0, error: { code: 'NOT_SENT', message: 'not sent: the run stopped' } } as unknown as Exchange };

test('a run tried what the measurement says its cases catch, as they ran; a case cut short claims nothing', async () => {
  const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  const planned = await planSuite(profile, { destructive: true, budget: 60, runs: 100, slice: 0 });
  const taken = planned.filter((p) => p.skipReason === undefined);
  expect(taken.length).toBeGreaterThan(3);
  const whole = taken.map((p) => ({ planned: p, exchanges: [answered, answered] }));
  expect(triedFaults(whole, 'destructive')).toEqual([...caughtByPlanned(taken, 'destructive')].sort());
  // The key on every operation is in every gate of 60: what it tries is there.
  expect(triedFaults(whole, 'destructive')).toEqual(expect.arrayContaining(['auth-missing-run', 'auth-missing-merge', 'auth-missing-delete', 'auth-missing-demerge']));
  // A case one of whose requests was not sent (a stop, an unresponsive target, throttling past the resends) claims none of its faults.
  const [first, ...rest] = taken;
  if (!first) throw new Error('no case taken');
  const cut = triedFaults([{ planned: first, exchanges: [answered, notSent] }, ...rest.map((p) => ({ planned: p, exchanges: [answered] }))], 'destructive');
  const onlyFirst = [...caughtByPlanned([first], 'destructive')].filter((f) => !caughtByPlanned(rest, 'destructive').has(f));
  expect(onlyFirst.length).toBeGreaterThan(0);
  for (const f of onlyFirst) expect(cut).not.toContain(f);
  // A case the plan left out (or the steering steered away) tried nothing, even with exchanges.
  expect(triedFaults([{ planned: { ...first, skipReason: 'not in the budget' }, exchanges: [answered] }], 'destructive')).toEqual([]);
});

const catalogue: Catalogue = {
  fingerprint: 'fp-now',
  faults: {
    destructive: new Map([
      ['a', 'spec'],
      ['b', 'spec'],
      ['c', 'spec'],
      ['d', 'http'],
    ]),
    safe: new Map([['a', 'spec']]),
  },
};

function gate(startedAt: string, plan: Record<string, unknown> | undefined, extra: Partial<ConformanceReport['meta']> = {}): ConformanceReport {
  return { meta: { profile: 'staging', profileDigest: 'sha', destructive: true, strict: false, startedAt, ...(plan ? { plan } : {}), ...extra } } as unknown as ConformanceReport;
}

test('the ledger adds up what the gates of one kind tried, says what is not yet tried, and counts apart what it cannot', () => {
  const runs: LedgerRun[] = [
    { file: 'g1/conformance.json', report: gate('2026-12-01T08:00:00.000Z', { name: 'full', budget: 60, slice: 0, tried: ['a', 'gone-fault'], catalogue: 'fp-old' }) },
    { file: 'g2/conformance.json', report: gate('2026-12-01T09:00:00.000Z', { name: 'full', budget: 60, slice: 1, tried: ['b', 'd'], catalogue: 'fp-now' }) },
    { file: 'g3/conformance.json', report: gate('2026-12-01T10:00:00.000Z', { name: 'full', budget: 60, slice: 2 }) },
    // Another kind: a non-destructive gate is its own group.
    { file: 's1/conformance.json', report: gate('2026-12-01T11:00:00.000Z', { name: 'full', budget: 60, slice: 5, tried: ['a'], catalogue: 'fp-now' }, { destructive: false }) },
  ];
  const groups = buildLedger(runs, catalogue);
  expect(groups.map((g) => g.label)).toEqual(['profile "staging", destructive, budget 60', 'profile "staging", non-destructive, budget 60']);
  const [destructive, safe] = groups;
  expect(destructive).toMatchObject({ slices: [0, 1], tried: ['a', 'b', 'd'], notYet: ['c'], notYetSpec: ['c'], gone: ['gone-fault'], unrecorded: ['g3/conformance.json'], total: 4, totalSpec: 3 });
  expect(safe).toMatchObject({ slices: [5], tried: ['a'], notYet: [], total: 1 });
  const text = renderLedger(groups, catalogue, (f) => f).join('\n');
  expect(text).toContain('  slices run: 0-1; the next gate: --slice 2');
  expect(text).toContain('  tried: 3 of the 4 faults of the catalogue a destructive run can show (2 of the 3 that fail a run without --strict)');
  expect(text).toContain('  not yet tried: 1: c');
  expect(text).toContain('no longer in this harness\'s catalogue (renamed or removed since): gone-fault');
  expect(text).toContain('some runs walked another ranking than this harness\'s (measurement fp-old, here fp-now)');
  expect(text).toContain('  not counted: 1 run that records nothing tried (a merge of shards, or a report of a harness before the ledger): g3/conformance.json');
  expect(text).toContain('  not yet tried: none');
  // A kind of run none of whose reports records anything: no figures, only why.
  const bare = renderLedger(buildLedger([runs[2]], catalogue), catalogue, (f) => f);
  expect(bare).toEqual(['profile "staging", destructive, budget 60: no run recorded what it tried', '  not counted: 1 run that records nothing tried (a merge of shards, or a report of a harness before the ledger): g3/conformance.json', '']);
  // Since a day: the earlier gates drop out.
  const since = buildLedger(runs, catalogue, '2026-12-01T08:30:00.000Z');
  expect(since[0]).toMatchObject({ slices: [1], tried: ['b', 'd'], notYet: ['a', 'c'] });
  expect(sliceRanges([0, 1, 2, 5, 7, 8])).toBe('0-2, 5, 7-8');
});

test('--since takes a day or a time; anything else is a usage error', () => {
  expect(sinceOption('2026-12-01')).toBe('2026-12-01T00:00:00.000Z');
  expect(sinceOption('2026-12-01T09:30:00Z')).toBe('2026-12-01T09:30:00.000Z');
  expect(sinceOption(undefined)).toBeUndefined();
  for (const bad of ['yesterday', '12/01/2026', '']) expect(() => sinceOption(bad), bad).toThrow(/not a day \(2026-12-01\) nor a time/);
});

test('the catalogue a mode can show is the committed measurement\'s, each fault with its level', () => {
  const c = harnessCatalogue();
  expect(c.faults.destructive.size).toBeGreaterThan(c.faults.safe.size);
  expect(c.faults.destructive.get('auth-missing-merge')).toBe('spec');
  expect([...c.faults.destructive.values()]).toContain('http');
});

test('ledger over gates\' reports: the text, JSON, an unreadable report skipped with why, and exit 2 when none can be read', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-ledger-'));
  try {
    // A real report of a few cases: the ledger reads only its metadata, and a small one is quick to check.
    const report = await inProcessReport({ strict: false, filter: (p) => p.def.id === 'run.start-and-end' });
    const all = [...harnessCatalogue().faults.destructive.keys()];
    const half = Math.floor(all.length / 2);
    const write = (name: string, slice: number, tried: string[]) => {
      const r = { ...report, meta: { ...report.meta, startedAt: `2026-12-0${slice + 1}T08:00:00.000Z`, plan: { name: 'full' as const, budget: 60, slice, tried, catalogue: harnessCatalogue().fingerprint } } };
      expect(reportViolations(JSON.parse(JSON.stringify(r))), 'a report with what it tried is one the schema takes').toEqual([]);
      mkdirSync(path.join(dir, 'reports', name), { recursive: true });
      writeFileSync(path.join(dir, 'reports', name, 'conformance.json'), JSON.stringify(r));
    };
    write('gate-0', 0, all.slice(0, half));
    write('gate-1', 1, all.slice(half, all.length - 1));
    mkdirSync(path.join(dir, 'reports', 'broken'));
    writeFileSync(path.join(dir, 'reports', 'broken', 'conformance.json'), '{"meta":{}}');
    const result = await cliInProcess(['ledger', 'reports'], { cwd: dir });
    expect(result.code, result.out).toBe(0);
    expect(result.stderr).toMatch(/^ledger: skipped reports\/broken\/conformance\.json: is not a conformance report \(schemas\/report\.schema\.json\):/);
    expect(result.stdout).toContain('ledger: 2 reports read (1 skipped: not a conformance report)');
    expect(result.stdout).toContain('slices run: 0-1; the next gate: --slice 2 (what it sends: npx iswc-conformance plan --destructive --budget 60 --slice 2)');
    // The command it prints runs as printed.
    const printed = /what it sends: npx iswc-conformance (plan [^)]+)\)/.exec(result.stdout)?.[1]?.split(' ') ?? [];
    const plan = await cliInProcess([...printed, '--quiet']);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.stdout).toMatch(/slice 2 of \d+ \(ISWC_SLICE=2\)/);
    // plan says what the slice tries, as the gate's report will record it.
    expect(plan.stdout).toMatch(/\n {2}this slice tries \d+ of the \d+ faults of the catalogue a destructive run can show \(\d+ of the \d+ that fail a run without --strict\); the ledger of the gates' reports adds up what they tried \(npx iswc-conformance ledger --help\)\n/);
    expect(result.stdout).toContain(`tried: ${all.length - 1} of the ${all.length} faults of the catalogue a destructive run can show`);
    expect(result.stdout).toContain(`not yet tried: 1`);
    expect(result.stdout).toContain(String(all.at(-1)));
    const since = await cliInProcess(['ledger', 'reports/gate-0', 'reports/gate-1', '--since', '2026-12-02', '--json'], { cwd: dir });
    expect(since.code, since.out).toBe(0);
    const json = JSON.parse(since.stdout) as { since: string; groups: Array<{ slices: number[]; runs: Array<{ file: string }>; notYet: string[] }> };
    expect(json.since).toBe('2026-12-02T00:00:00.000Z');
    expect(json.groups[0]?.slices).toEqual([1]);
    expect(json.groups[0]?.runs.map((r) => r.file)).toEqual(['reports/gate-1/conformance.json']);
    expect(json.groups[0]?.notYet.length).toBe(half + 1);
    const none = await cliInProcess(['ledger', 'reports/broken'], { cwd: dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no conformance report read under reports/broken: name the gates' conformance.json files");
    const missing = await cliInProcess(['ledger', 'no-such-folder'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no file or folder at');
    const badSince = await cliInProcess(['ledger', 'reports', '--since', 'monday'], { cwd: dir });
    expect(badSince.code).toBe(2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
