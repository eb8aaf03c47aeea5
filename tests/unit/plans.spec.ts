/**
 * The plans chosen by what they catch (lib/run/plan-rank.ts, lib/run/budget.ts) and their committed data
 * (lib/run/plans.generated.ts, written by `npm run generate` from a measurement against every fault).
 */
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { choose, estimatedRequests } from '../../lib/run/budget.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { BREADTH_CASE_CAP, caughtInSelection, entryRequests, rankPlan, specChecksOf, specChecksTaken } from '../../lib/run/plan-rank.ts';
import type { PlanData, RankedEntry } from '../../lib/run/plan-rank.ts';
import { faultClass } from '../../lib/run/fault-classes.ts';
import { PLAN_DATA } from '../../lib/run/plans.generated.ts';
import type { PlannedCase } from '../../lib/run/planned.ts';
import { buildPlanData, planInputs } from '../../scripts/plans.ts';
import { CHECK_MANIFEST } from '../../lib/generate/checks.generated.ts';
import { readFileSync } from 'node:fs';

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

test('the committed plans are up to date: same cases, faults and choice sets, and the ranking their measurement gives (npm run generate)', async () => {
  const inputs = await planInputs();
  expect(PLAN_DATA.fingerprint, 'lib/run/plans.generated.ts is stale: the cases, the fault catalogue or the choice sets changed; run npm run generate (it measures again)').toBe(
    inputs.fingerprint,
  );
  expect(Object.keys(PLAN_DATA.faults)).toEqual(Object.keys(inputs.faults));
  // The ranking is a pure function of the measured catches: recomputed here, it must be what is committed.
  const rebuilt = buildPlanData(inputs, PLAN_DATA.catches, PLAN_DATA.falseAlarms, PLAN_DATA.partCatches);
  expect(rebuilt.destructive).toEqual(PLAN_DATA.destructive);
  expect(rebuilt.safe).toEqual(PLAN_DATA.safe);
});

/** The planned suite with the plan applied, and what it chose. */
async function planned(options: { destructive: boolean; plan: 'smoke' | 'full'; budget?: number }): Promise<{ all: PlannedCase[]; chosen: PlannedCase[]; requests: number }> {
  const all = await planSuite(profile, { ...options, runs: 100 });
  const chosen = all.filter((p) => !p.skipReason);
  return { all, chosen, requests: chosen.reduce((n, p) => n + estimatedRequests(p, p.runs ?? 100), 0) };
}

/** Faults the measurement says the chosen cases catch (a generated case at the runs it got). */
function caughtBy(chosen: readonly PlannedCase[], destructive: boolean): Set<string> {
  const out = new Set<string>();
  const catches = PLAN_DATA.catches[destructive ? 'destructive' : 'safe'];
  for (const p of chosen) for (const [fault, runs] of Object.entries(catches[p.key] ?? {})) if (!p.shape.generated || (p.runs ?? 100) >= runs) out.add(fault);
  return out;
}

for (const destructive of [true, false]) {
  test(`the ${destructive ? '' : 'non-'}destructive smoke plan catches every fault its mode can catch and exercises every spec check its mode can`, async () => {
    const smoke = await planned({ destructive, plan: 'smoke' });
    const full = await planned({ destructive, plan: 'full' });
    expect([...caughtBy(full.chosen, destructive)].filter((f) => !caughtBy(smoke.chosen, destructive).has(f))).toEqual([]);
    const fullSpec = new Set(full.chosen.flatMap(specChecksOf));
    const smokeSpec = new Set(smoke.chosen.flatMap(specChecksOf));
    expect([...fullSpec].filter((c) => !smokeSpec.has(c))).toEqual([]);
    // outcome.sequence is one of them when destructive checks are on (the model test, at a few runs).
    if (destructive) expect(smokeSpec).toContain('outcome.sequence');
    expect(smoke.requests).toBeLessThan(full.requests / 10);
    // The cases the first phases make redundant are left out: none of them is chosen, and each one's
    // faults are caught by the rest (asserted above for the whole plan).
    const ranked = destructive ? PLAN_DATA.destructive : PLAN_DATA.safe;
    const leftOut = new Set(ranked.smokeLeftOut ?? []);
    expect(leftOut.size).toBeGreaterThan(0);
    expect(smoke.chosen.filter((p) => leftOut.has(p.key))).toEqual([]);
    expect(ranked.smoke.every((e) => leftOut.has(e.key) || smoke.chosen.some((p) => p.key === e.key))).toBe(true);
    for (const p of smoke.all.filter((c) => c.skipReason && !full.all.find((f) => f.key === c.key)?.skipReason)) expect(p.skipReason).toMatch(/not in the smoke plan/);
  });
}

test('a budget is never exceeded, and more budget never catches less', async () => {
  let before = -1;
  for (const budget of [1, 5, 15, 30, 60, 100, 250]) {
    for (const destructive of [true, false]) {
      const { requests, chosen } = await planned({ destructive, plan: 'full', budget });
      expect(requests, `budget ${budget}`).toBeLessThanOrEqual(budget);
      if (!destructive) expect(chosen.filter((p) => (p.def.claims ?? []).some((c) => !c.readOnly) || p.def.changesData)).toEqual([]);
    }
    const caught = caughtBy((await planned({ destructive: true, plan: 'full', budget })).chosen, true).size;
    expect(caught, `budget ${budget}`).toBeGreaterThanOrEqual(before);
    before = caught;
  }
});

test('the smoke plan takes the most faults per request first, then spec checks, and ranks a generated case again when more runs catch more', async () => {
  const all = (await planSuite(profile, { destructive: true, runs: 100 })).filter((p) => !p.skipReason);
  const fixed = all.filter((p) => !p.shape.generated && p.shape.fixedRequests === 1);
  const three = all.find((p) => !p.shape.generated && p.shape.fixedRequests === 3);
  const generated = all.find((p) => p.shape.generated && p.shape.fixedRequests === 0 && p.shape.requestsPerRun === 1);
  const [a, b] = fixed;
  if (!a || !b || !three || !generated) throw new Error('the suite lacks the cases this test needs');
  // a: 2 faults in 1 request; three: 3 more in 3 requests; generated: 1 fault at 2 runs, 2 more at 40 runs.
  const catches: Record<string, Record<string, number>> = {
    [a.key]: { f1: 1, f2: 1 },
    [three.key]: { f1: 1, f3: 1, f4: 1, f5: 1 },
    [b.key]: { f2: 1 },
    [generated.key]: { f6: 2, f7: 40, f8: 40 },
  };
  const ranked = rankPlan(all, catches, 100);
  const faultPhase = ranked.smoke.filter((e) => e.phase === 'faults');
  expect(faultPhase.map((e) => e.key).slice(0, 3)).toEqual([a.key, three.key, generated.key]);
  expect(faultPhase.map((e) => e.key)).not.toContain(b.key); // adds nothing a already caught
  const gen = faultPhase.filter((e) => e.key === generated.key);
  expect(gen.map((e) => e.runs)).toEqual([3, 60]); // a margin over the runs it needed
  expect(ranked.smoke.every((e) => e.phase === 'faults' || e.phase === 'spec')).toBe(true);
  // The budgets' ranking weighs what generalises too: every spec check the mode can exercise comes in its
  // first two phases, and every fault the smoke plan catches.
  const firstPhases = ranked.entries.filter((e) => e.phase === 'key' || e.phase === 'breadth' || e.phase === 'faults' || e.phase === 'spec');
  expect(ranked.entries.slice(firstPhases.length).every((e) => e.phase === 'coverage' || e.phase === 'rest')).toBe(true);
  const keysOf = (entries: readonly { key: string }[]) => new Set(entries.map((e) => e.key));
  for (const key of [a.key, three.key, generated.key]) expect(keysOf(firstPhases).has(key), key).toBe(true);
  // A budget walks the budgets' ranking: 1 request buys a case of one request, and never more than 1.
  const data: PlanData = { ...PLAN_DATA, catches: { destructive: catches, safe: {} }, destructive: ranked };
  const planned1 = (await planSuite(profile, { destructive: true, runs: 100 })).map((p) => ({ ...p }));
  const small = choose(planned1, { plan: 'full', budget: 1, runs: 100, destructive: true, data });
  expect(small.chosen.size).toBe(1);
  expect(fixed.map((p) => p.key)).toContain([...small.chosen][0]);
});

test('the budgets\' ranking takes each lenient reading once across fields before any second one, in its breadth phase (issue 37)', async () => {
  const all = (await planSuite(profile, { destructive: true, runs: 100 })).filter((p) => !p.skipReason);
  const byKey = new Map(all.map((p) => [p.key, p]));
  const catches = PLAN_DATA.catches.destructive;
  const parts = PLAN_DATA.partCatches?.destructive ?? {};
  const ranked = rankPlan(all, catches, 100, parts);
  const readingsOf = (e: RankedEntry): string[] =>
    Object.keys(catches[e.key] ?? {})
      .filter((f) => caughtInSelection(parts[e.key]?.[f], e.parts))
      .map((f) => faultClass(f, byKey.get(e.key)?.def.operation))
      .filter((c) => c.startsWith('lenient/'));
  const breadth = ranked.entries.filter((e) => e.phase === 'key' || e.phase === 'breadth');
  const shown = new Set(breadth.flatMap(readingsOf));
  // Every reading some case shows within a fair share of a small budget is shown in breadth…
  const showable = new Set(ranked.entries.filter((e) => { const p = byKey.get(e.key); return p !== undefined && entryRequests(p, e.runs, e.parts) <= BREADTH_CASE_CAP; }).flatMap(readingsOf));
  expect([...showable].filter((c) => !shown.has(c))).toEqual([]);
  expect(shown.size).toBeGreaterThanOrEqual(8);
  // …and no entry of breadth costs more than that share.
  for (const e of breadth) {
    const p = byKey.get(e.key);
    if (p) expect(entryRequests(p, e.runs, e.parts), e.key).toBeLessThanOrEqual(BREADTH_CASE_CAP);
  }
  // The smoke plan, by faults alone, is ranked apart and has no breadth phase.
  expect(ranked.smoke.filter((e) => e.phase === 'key' || e.phase === 'breadth')).toEqual([]);
});

test('breadth spends no request on a request without a body for acceptance: each of its entries of a delete or a demerge catches a fault the entries before it did not (issue 37)', () => {
  for (const mode of ['destructive', 'safe'] as const) {
    const catches = PLAN_DATA.catches[mode];
    const parts = PLAN_DATA.partCatches?.[mode] ?? {};
    const caught = new Set<string>();
    for (const e of PLAN_DATA[mode].entries.filter((x) => x.phase === 'key' || x.phase === 'breadth')) {
      const of = catches[e.key] ?? {};
      const faults = Object.keys(of).filter((f) => caughtInSelection(parts[e.key]?.[f], e.parts) && (e.runs === undefined || (of[f] ?? Infinity) <= e.runs));
      const fresh = faults.filter((f) => !caught.has(f));
      for (const f of faults) caught.add(f);
      // "A valid body of each served format accepted" is a role of the formats; a DELETE's success is its operation's class.
      if (e.key.endsWith('@none')) expect(fresh, `${mode}: ${e.key} ${(e.parts ?? []).join(',')}`).not.toEqual([]);
    }
  }
});

test("a fault's level is that of the checks that catch it: a spec fault fails a run without --strict, an http fault only a strict one (what the ranking without --strict rests on)", () => {
  const pinned = JSON.parse(readFileSync(fromRoot('tests', 'expectations', 'faults.json'), 'utf8')) as Record<string, { level: 'spec' | 'http'; caughtBy: string[] }>;
  const levelOf = (check: string): string | undefined => (CHECK_MANIFEST as Record<string, { level: string } | undefined>)[check]?.level;
  const wrong = Object.entries(pinned)
    .filter(([, e]) => e.caughtBy.length > 0)
    .filter(([, e]) => (e.level === 'spec') !== e.caughtBy.some((c) => levelOf(c) === 'spec'))
    .map(([fault, e]) => `${fault} (${e.level}): ${e.caughtBy.join(', ')}`);
  expect(wrong, 'server/faults.ts: give each of these the level of the checks that catch it').toEqual([]);
  for (const [fault, level] of Object.entries(PLAN_DATA.faults)) if (pinned[fault]) expect(pinned[fault]?.level, fault).toBe(level);
});

test('without --strict a budget walks a ranking of what fails the run: no entry of its first phases is there for a fault only an http check catches, and every fault it can fail on is ranked', () => {
  for (const mode of ['destructive', 'safe'] as const) {
    const nonStrict = PLAN_DATA[mode].nonStrict ?? [];
    expect(nonStrict.length, mode).toBeGreaterThan(0);
    const catches = PLAN_DATA.catches[mode];
    const parts = PLAN_DATA.partCatches?.[mode] ?? {};
    const caught = new Set<string>();
    for (const e of nonStrict.filter((x) => x.phase === 'key' || x.phase === 'breadth' || x.phase === 'faults')) {
      const of = catches[e.key] ?? {};
      const faults = Object.keys(of).filter((f) => caughtInSelection(parts[e.key]?.[f], e.parts) && (e.runs === undefined || (of[f] ?? Infinity) <= e.runs));
      const gating = faults.filter((f) => PLAN_DATA.faults[f] !== 'http');
      // An entry of breadth may be there for a spec check or a class its parts show; one of the faults phase is there for a fault a run without --strict fails on.
      if (e.phase === 'faults') expect(gating.filter((f) => !caught.has(f)), `${mode}: ${e.key} ${(e.parts ?? []).join(',')}`).not.toEqual([]);
      for (const f of gating) caught.add(f);
    }
    const gatingCatchable = [...new Set(Object.values(catches).flatMap((c) => Object.keys(c)))].filter((f) => PLAN_DATA.faults[f] !== 'http');
    expect(gatingCatchable.filter((f) => !caught.has(f)), mode).toEqual([]);
  }
});

test('a budget walks the ranking of its strictness: the same budget strict and not takes different cases, each its own ranking in order', async () => {
  const lenient = await planSuite(profile, { destructive: true, runs: 100, budget: 60 });
  const strict = await planSuite(profile, { destructive: true, runs: 100, budget: 60, strict: true });
  const keys = (ps: PlannedCase[]) => ps.filter((p) => !p.skipReason).map((p) => p.key).sort();
  expect(keys(lenient)).not.toEqual(keys(strict));
  const first = (entries: readonly RankedEntry[]) => entries.find((e) => e.phase === 'breadth')?.key;
  expect(keys(strict)).toContain(first(PLAN_DATA.destructive.entries));
  expect(keys(lenient)).toContain(first(PLAN_DATA.destructive.nonStrict ?? []));
});

test('the smoke plan of every shipped profile exercises every spec check its full plan can, in either mode: a check a part left out is taken with that part', async () => {
  // The ranking is the embedded server's: on another profile's data a check it left to another case (the
  // restoring merge's demerge-one) may rest on a part of a case the smoke plan took in part (the merge's
  // success case): the plan adds that part (lib/run/budget.ts coverParts).
  for (const file of ['staging-example.json', 'production-example.json', 'embedded.json']) {
    const profile = loadProfile(fromRoot('fixtures', 'targets', file));
    for (const destructive of [true, false]) {
      const full = (await planSuite(profile, { destructive, runs: 100 })).filter((p) => p.skipReason === undefined);
      const smoke = (await planSuite(profile, { destructive, runs: 100, plan: 'smoke' })).filter((p) => p.skipReason === undefined);
      const exercised = new Set(smoke.flatMap((p) => specChecksTaken(p, p.parts)));
      const can = [...new Set(full.flatMap((p) => specChecksTaken(p, undefined)))];
      expect(can.filter((c) => !exercised.has(c)), `${file}, ${destructive ? 'destructive' : 'non-destructive'}`).toEqual([]);
    }
  }
});
