/**
 * What cases need of a target profile (lib/generate/needs.ts) and how planning weighs it
 * (lib/run/claims.ts, lib/run/plan.ts): a case that lacks data is skipped with what it lacks, counted;
 * a case that runs without some of its checks for lack of data says which; nothing crashes on a small
 * profile.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import type { MergeEntry, TargetProfile } from '../../lib/contract/profile/types.ts';
import type { Lack } from '../../lib/generate/needs.ts';
import { additionText, lackOf, needsText } from '../../lib/generate/needs.ts';
import { scenarioCasesFrom } from '../../lib/generate/scenarios/cases.ts';
import { parseScenarioFile } from '../../lib/generate/scenarios/load.ts';
import { allCases } from '../../lib/generate/suite.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { ampleEntriesFor, ampleProfile } from '../../lib/run/ample.ts';
import type { Claim } from '../../lib/run/claims.ts';
import { partition, preferredEntriesToAdd } from '../../lib/run/claims.ts';
import { shapeOf } from '../../lib/run/dry-run.ts';
import { planSuite } from '../../lib/run/plan.ts';

const target = (file: string): TargetProfile => loadProfile(fromRoot('fixtures', 'targets', file));
const minimal = target('minimal.json');
const readme = target('readme-example.json');
const three = target('three-entries.json');

const merge = (preferredIswc: string, works: number): MergeEntry => ({
  preferredIswc,
  iswcs: [],
  agencyWorks: Array.from({ length: works }, (_, i) => ({ agencyCode: '128', agencyWorkCode: `W${preferredIswc}${i}` })),
});

test('what is lacking reads as a count of what to add', () => {
  const lacks: Lack[] = [{ list: 'merges', more: 3 }, { entry: 'merges', list: 'agencyWorks', atLeast: 2, more: 1 }, { list: 'submissions', more: 2 }, { list: 'iswcs', more: 1 }];
  expect(additionText(lacks)).toBe('1 more iswcs, 4 more merges (1 of them with at least 2 agencyWorks) and 2 more submissions');
  expect(needsText([{ list: 'merges', more: 2 }])).toBe('needs 2 more merges');
  expect(needsText([{ entry: 'merges', list: 'agencyWorks', atLeast: 2, more: 1 }])).toBe('needs a merges entry with at least 2 agencyWorks');
  expect(needsText([{ reference: 'profile.merges[0].agencyWorks[1].agencyCode' }])).toBe('needs ${profile.merges[0].agencyWorks[1].agencyCode} in the target profile');
  expect(lackOf({ list: 'iswcs', atLeast: 3 }, minimal, {})).toEqual({ list: 'iswcs', more: 2 });
  expect(lackOf({ list: 'unknownIswcs', atLeast: 1 }, minimal, {})).toBeUndefined();
  expect(lackOf({ entry: 'merges', index: 0, list: 'agencyWorks', atLeast: 2 }, readme, { merges: readme.merges })).toEqual({ entry: 'merges', list: 'agencyWorks', atLeast: 2, more: 1 });
  expect(lackOf({ entry: 'merges', index: 0, list: 'agencyWorks', atLeast: 2 }, three, { merges: three.merges })).toBeUndefined();
  // A demerge entry under another preferred ISWC than the case's first.
  const d = (preferredIswc: string, workcode: string) => ({ preferredIswc, agency: '128', workcode });
  const apart = { apart: 'demerges', index: 1, from: 0 } as const;
  expect(lackOf(apart, minimal, { demerges: [d('T3200000002', 'A'), d('T3200000002', 'B')] })).toEqual({ apart: 'demerges', more: 1 });
  expect(lackOf(apart, minimal, { demerges: [d('T3200000002', 'A'), d('T3200000104', 'B')] })).toBeUndefined();
  expect(lackOf(apart, minimal, {})).toBeUndefined();
  expect(needsText([{ apart: 'demerges', more: 1 }])).toBe('needs a demerges entry under another preferred ISWC');
  expect(additionText([{ list: 'demerges', more: 2 }, { apart: 'demerges', more: 1 }])).toBe('3 more demerges (1 of them under another preferred ISWC)');
});

test('a claim that prefers an entry under another preferred ISWC than its first gets one when the pool has it', () => {
  const d = (preferredIswc: string, workcode: string) => ({ preferredIswc, agency: '128', workcode });
  const pool = [d('T3200000002', 'R'), d('T3200000104', 'A'), d('T3200000104', 'B'), d('T3200000206', 'C')];
  const claims: Claim[] = [
    { key: 'identity', kind: 'demerges', count: 2, prefer: [{ index: 1, apartFrom: 0 }] },
    { key: 'other', kind: 'demerges', count: 1 },
  ];
  const got = partition({ ...minimal, demerges: pool }, claims);
  expect(got.get('identity')).toEqual({ ok: true, entries: [pool[0], pool[1]] });
  expect(got.get('other')).toEqual({ ok: true, entries: [pool[2]] });
  // After a read-only claim took the head, the first entry under T3200000104 is paired with T3200000206, not with its neighbour.
  const reserved = partition({ ...minimal, demerges: pool }, [{ key: 'named', kind: 'demerges', count: 1, readOnly: true }, ...claims]);
  expect(reserved.get('identity')).toEqual({ ok: true, entries: [pool[1], pool[3]] });
  expect(reserved.get('other')).toEqual({ ok: true, entries: [pool[2]] });
  // Only entries under one preferred ISWC: served anyway, and planning says what it lacks.
  expect(preferredEntriesToAdd({ ...minimal, demerges: pool.slice(1, 3) }, claims.slice(0, 1), 'identity')).toBe(1);
});

test('the partition counts how many more entries would serve a claim, even when added entries serve an earlier claim first', () => {
  const profile: TargetProfile = { ...minimal, merges: [merge('T3100000004', 1)] };
  const claims: Claim[] = [
    { key: 'a', kind: 'merges', count: 1 },
    { key: 'b', kind: 'merges', count: 2 },
    { key: 'c', kind: 'merges', count: 1 },
  ];
  const got = partition(profile, claims);
  expect(got.get('a')?.ok).toBe(true);
  // b needs 2 more; c needs 1 more only if b does not take it first: one entry added goes to c (b still lacks one), so 1.
  expect(got.get('b')).toMatchObject({ ok: false, more: 2, reason: 'needs 2 more merges (the target profile lists 1, 1 of them given to cases planned before this one)' });
  expect(got.get('c')).toMatchObject({ ok: false, more: 1 });
  // With two more, b is served and c loses out again; one more serves it.
  const two = partition({ ...profile, merges: [...profile.merges, merge('T3100000106', 1), merge('T3100000208', 1)] }, claims);
  expect(two.get('b')?.ok).toBe(true);
  expect(two.get('c')).toMatchObject({ ok: false, more: 1 });
  const named = partition(minimal, [{ key: 'r', kind: 'submissions', count: 1, readOnly: true }]);
  expect(named.get('r')).toMatchObject({ ok: false, more: 1, reason: 'needs 1 more submissions (the target profile lists 0; this case names 1 without consuming it)' });
});

test('a claim that runs with fewer entries is served its least first, then what nobody else needs; preferred entries go to who asks', () => {
  const pool = [merge('T3100000004', 1), merge('T3100000106', 2), merge('T3100000208', 1), merge('T3100000300', 1)];
  const profile: TargetProfile = { ...minimal, merges: pool };
  const got = partition(profile, [
    { key: 'rich', kind: 'merges', count: 1, prefer: [{ index: 0, list: 'agencyWorks', atLeast: 2 }] },
    { key: 'model', kind: 'merges', count: 10, atLeast: 1 },
    { key: 'fixed', kind: 'merges', count: 1 },
  ]);
  expect(got.get('rich')).toEqual({ ok: true, entries: [pool[1]] });
  // The model gets one at its turn, the fixed claim after it its one, and the model the rest.
  expect(got.get('fixed')).toEqual({ ok: true, entries: [pool[2]] });
  expect(got.get('model')).toEqual({ ok: true, entries: [pool[0], pool[3]] });
  // With nothing left, the elastic claim asks for its least.
  const empty = partition(minimal, [{ key: 'model', kind: 'merges', count: 10, atLeast: 1 }]);
  expect(empty.get('model')).toMatchObject({ ok: false, more: 1 });
});

test('a scenario states what its references need; a profile without it skips the scenario with the reason', async () => {
  const [s] = parseScenarioFile(
    'needs.yaml',
    [
      'name: needs',
      'description: d',
      'uses: { merges: 1 }',
      'steps:',
      '  - name: a',
      '    operation: demergeIswcMetadata',
      '    query:',
      "      preferredIswc: '${profile.iswcs[2]}'",
      "      agency: '${entry.merges[0].agencyWorks[1].agencyCode}'",
      "      workcode: '${profile.unknownIswcs[1]}'",
      '    expect:',
      '      - check: status.refused',
      '        because: x',
      '',
    ].join('\n'),
  );
  if (!s) throw new Error('no scenario');
  const cases = scenarioCasesFrom([s]);
  expect(cases[0]?.needs).toEqual([
    { list: 'iswcs', atLeast: 3 },
    { list: 'unknownIswcs', atLeast: 2 },
    { entry: 'merges', index: 0, list: 'agencyWorks', atLeast: 2 },
  ]);
  const [planned] = await planSuite({ ...minimal, merges: [merge('T3100000004', 1)] }, { destructive: true }, cases);
  expect(planned?.skipReason).toBe('needs 2 more iswcs, 1 more unknownIswcs and a merges entry with at least 2 agencyWorks');
});

test('the shipped cases and scenarios plan on the smallest profile: skipped with what they lack, never a crash', async () => {
  for (const destructive of [false, true]) {
    const plan = await planSuite(minimal, { destructive });
    // A claim that runs on no entry at all (atLeast 0) consumes nothing here: its case may run.
    const consuming = plan.filter((p) => p.def.claims?.some((c) => !c.readOnly && (c.atLeast ?? c.count) > 0));
    expect(consuming.every((p) => p.skipReason !== undefined)).toBe(true);
    const reason = destructive ? /^needs / : /^needs |destructive checks are off/;
    const skipped = plan.filter((x) => x.skipReason !== undefined);
    expect(skipped.filter((p) => !reason.test(p.skipReason ?? '')).map((p) => `${p.key}: ${p.skipReason ?? ''}`), `skip reasons (destructive ${destructive})`).toEqual([]);
    // Its checks are known from a dry run on made-up data, so each is reported skipped with the reason.
    expect(skipped.filter((p) => p.shape.checks.length === 0).map((p) => p.key), 'skipped cases whose checks are not known').toEqual([]);
  }
  // The README example's merge has one agency work: the merge case runs, and says what it runs without.
  const plan = await planSuite(readme, { destructive: true });
  const mergeCase = plan.find((p) => p.key === 'merge.success-then-demerge@json');
  expect(mergeCase?.skipReason).toBeUndefined();
  expect(mergeCase?.checkSkips).toEqual([{ checks: ['outcome.demerge-one'], reason: 'needs a merges entry with at least 2 agencyWorks', lacks: [{ entry: 'merges', list: 'agencyWorks', atLeast: 2, more: 1 }] }]);
  expect(mergeCase?.shape.checks).toContain('outcome.merge');
  expect(mergeCase?.shape.checks).not.toContain('outcome.demerge-one');
});

test('profiles with 2 to 7 iswcs plan and run the generated merge requests (fast-check once refused fewer than 7)', async () => {
  const iswcs = ['T0345246801', 'T2010000117', 'T2010000015', 'T0302332075', 'T3010000003', 'T3010000172', 'T3010000343'];
  const invalid = allCases(minimal).filter((c) => c.id === 'property.merge.invalid');
  for (let n = 2; n <= iswcs.length; n++) {
    const profile: TargetProfile = { ...minimal, iswcs: iswcs.slice(0, n) };
    const plan = await planSuite(profile, { destructive: true, runs: 20 }, invalid);
    expect(plan.map((p) => [p.key, p.skipReason, p.shape.requestsPerRun > 0]), `${n} iswcs`).toEqual([
      ['property.merge.invalid@json', undefined, true],
      ['property.merge.invalid@xml', undefined, true],
    ]);
  }
});

test('every check a case drops on a profile\'s data is one its needs declare (what it lacks is then reported)', async () => {
  for (const profile of [minimal, readme, three]) {
    for (const destructive of [false, true]) {
      const plan = await planSuite(profile, { destructive });
      const undeclared: string[] = [];
      for (const p of plan.filter((x) => x.skipReason === undefined)) {
        const full = await shapeOf(p.def, p.format, ampleProfile(profile, p.def.needs ?? []), ampleEntriesFor(p.def, profile.agency));
        const declared = new Set((p.checkSkips ?? []).flatMap((s) => s.checks));
        const dropped = full.checks.filter((c) => !p.shape.checks.includes(c) && !declared.has(c));
        if (dropped.length > 0) undeclared.push(`${p.key}: ${dropped.join(', ')}`);
      }
      expect(undeclared, `${profile.name}, destructive ${destructive}: checks dropped that no need declares`).toEqual([]);
    }
  }
});

test('the cases of every profile have distinct ids and plan in both modes, the embedded profile as before (every case runs destructively)', async () => {
  for (const profile of [minimal, readme, three]) expect(new Set(allCases(profile).map((c) => c.id)).size).toBe(allCases(profile).length);
  const embedded = target('embedded.json');
  const plan = await planSuite(embedded, { destructive: true });
  expect(plan.filter((p) => p.skipReason !== undefined || p.checkSkips !== undefined).map((p) => p.key)).toEqual([]);
  const model = plan.find((p) => p.key === 'model.merge-demerge-delete@json');
  expect(model?.entries.merges).toHaveLength(10);
});
