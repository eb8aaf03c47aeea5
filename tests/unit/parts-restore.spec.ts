/**
 * Issue 31, the machinery phase 2 applies to the cases: parts a request budget takes one at a time
 * (lib/run/parts.ts, CaseDef.parts), and a reusable profile whose entries a destructive run leaves as it
 * found them and shows so (lib/run/restore.ts, profile `reusable`). Proven here on a restoring merge case
 * written with both (lib/generate/cases/merge-restored.ts) against the reference server.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { createJudge } from '../../lib/check/judge.ts';
import { keySourceDbs } from '../../lib/contract/agency.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import type { TargetProfile } from '../../lib/contract/profile/types.ts';
import { NOT_UNDONE_REASON } from '../../lib/contract/profile/types.ts';
import type { CaseDef } from '../../lib/generate/case.ts';
import { expectCheck } from '../../lib/generate/expectations.ts';
import { bodyRequest } from '../../lib/generate/requests.ts';
import { emptyMerge, queryFor } from '../../lib/generate/templates.ts';
import { allCases } from '../../lib/generate/suite.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { choose } from '../../lib/run/budget.ts';
import { shapeOf } from '../../lib/run/dry-run.ts';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { checksLeftOut, closure, selections } from '../../lib/run/parts.ts';
import { planSuite } from '../../lib/run/plan.ts';
import type { PlanData } from '../../lib/run/plan-rank.ts';
import { rankPlan } from '../../lib/run/plan-rank.ts';
import { PLAN_DATA } from '../../lib/run/plans.generated.ts';
import type { PlannedCase } from '../../lib/run/planned.ts';
import { modeCoverage } from '../../lib/run/profile-coverage.ts';
import { UNDO_LIMIT } from '../../lib/run/restore.ts';
import { runPlannedCase } from '../../lib/run/runner.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';
import { restoringMergeCase } from '../../lib/generate/cases/merge-restored.ts';
import { mergeCases } from '../../lib/generate/cases/merge.ts';

const embedded = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const reusable: TargetProfile = { ...embedded, reusable: true };
/** The agency works of the merges entry the restoring case takes (three in the embedded profile since issue 28). */
const works = reusable.merges[0]?.agencyWorks?.length ?? 0;

test('a case with parts: the dry run counts each part apart from the core, and a selection takes what its parts come after', async () => {
  const def = restoringMergeCase(reusable);
  const shape = await shapeOf(def, 'json', reusable, { merges: [reusable.merges[0]] });
  const parts = shape.parts ?? [];
  expect(parts.map((p) => p.id)).toEqual(['key', 'preferred-neighbours', 'other-works', 'item', 'demerge-one']);
  // Four key proofs and the demerge that shows they merged nothing; the first work merged into two near
  // neighbours of the preferred ISWC; the other works merged, each with its restoration counted at its most;
  // one broken merge; one demerge.
  expect(works).toBeGreaterThanOrEqual(2);
  expect(parts.map((p) => p.requests)).toEqual([5, 2, (works - 1) * (1 + UNDO_LIMIT), 1, 1]);
  // The core: a merge of the first work, its demerge, and its restoration counted at its most (issue 37: a
  // budget proves the key on the merge with the core and the key, 9 requests).
  expect(shape.fixedRequests - parts.reduce((n, p) => n + p.requests, 0)).toBe(1 + 1 + UNDO_LIMIT);
  expect(parts.find((p) => p.id === 'key')?.checks).toContain('auth.key-checked');
  expect(checksLeftOut(shape, [])).toEqual(expect.arrayContaining(['auth.key-checked', 'status.item-refused', 'outcome.demerge-one']));
  expect(checksLeftOut(shape, ['item'])).not.toContain('status.item-refused');
  expect(selections(shape)).toEqual([[], ['key'], ['preferred-neighbours'], ['other-works'], ['item'], ['other-works', 'demerge-one'], ['key', 'preferred-neighbours', 'other-works', 'item', 'demerge-one']]);
  // The last work is demerged after the first only when the part that merged it was taken.
  expect(closure(shape, ['demerge-one'])).toEqual(['other-works', 'demerge-one']);
});

test('a budget takes whole parts: the ranking weighs each part with the faults it caught, and a plan sends only the parts it took', async () => {
  const def = restoringMergeCase(reusable);
  const planned = (await planSuite(reusable, { destructive: true, runs: 100 }, [def])).filter((p) => !p.skipReason);
  const json = planned.find((p) => p.key === 'merge.restored@json') as PlannedCase;
  expect(json).toBeDefined();
  // Measured (made up here): the broken work is caught by the part "item" only.
  const catches = { 'merge.restored@json': { 'merge-drops-invalid-works': 1 } };
  const partCatches = { 'merge.restored@json': { 'merge-drops-invalid-works': 'item' } };
  const ranked = rankPlan([json], catches, 100, partCatches);
  // The core and that part (eight requests for the fault) before the whole case (fourteen for it); then
  // the spec checks of the other parts, each an upgrade that adds its part.
  // The broken work is a class of fault (an item refused): the budget's breadth proves it first (issue 37).
  expect(ranked.entries[0]).toEqual({ key: 'merge.restored@json', parts: ['item'], phase: 'breadth' });
  expect(ranked.entries.slice(1).every((e) => ['breadth', 'faults', 'spec'].includes(e.phase) && e.key === 'merge.restored@json')).toBe(true);
  expect(ranked.entries.at(-1)?.parts).toBeUndefined();
  const data: PlanData = { ...PLAN_DATA, catches: { ...PLAN_DATA.catches, destructive: catches }, partCatches: { destructive: partCatches, safe: {} }, destructive: ranked };
  const core = json.shape.fixedRequests - (json.shape.parts ?? []).reduce((n, p) => n + p.requests, 0);
  const small = choose([json], { plan: 'full', budget: core + 1, runs: 100, destructive: true, data });
  expect(small.parts.get(json.key)).toEqual(['item']);

  // Against the reference server, the plan's parts only: the key proofs are not sent, their checks reported skipped.
  const server = await startReferenceServer({ profile: reusable, key: EMBEDDED_KEY });
  const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: 10_000 });
  try {
    const judge = createJudge({ strict: false, agency: reusable.agency, sourceDbs: keySourceDbs(reusable) });
    const outcome = await runPlannedCase({ ...json, parts: ['item'] }, client, reusable, { seed: 1, runs: 1, strict: false, reusable: true }, judge);
    // The first work was demerged by the case: its proof is one request; the second, left merged without its part, two.
    expect(outcome.stats.requests).toBe(core + 1 - (UNDO_LIMIT - 1));
    expect(outcome.executions.filter((e) => e.verdict === 'fail')).toEqual([]);
    const skipped = outcome.executions.filter((e) => e.verdict === 'skip');
    expect(skipped.map((e) => e.checkId)).toEqual(expect.arrayContaining(['auth.key-checked']));
    expect(skipped[0]?.skipReason).toMatch(/not in the request budget: the parts .*the key refused/);
  } finally {
    await client.close();
    await server.close();
  }
});

test('the parts a plan left out are said to be left out by what left them out: the smoke plan, or a request budget', async () => {
  const embedded = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  const by = (planned: readonly PlannedCase[]): string[] => [...new Set(planned.filter((p) => p.skipReason === undefined && p.parts !== undefined).map((p) => p.partsLeftOutBy ?? 'none'))];
  expect(by(await planSuite(embedded, { destructive: true, runs: 100, plan: 'smoke' }))).toEqual(['smoke plan']);
  expect(by(await planSuite(embedded, { destructive: true, runs: 100, budget: 60 }))).toEqual(['request budget']);
  // What the runner reports for the checks only the other parts exercise (a smoke run once said "not in the request budget").
  const byParts = (await planSuite(embedded, { destructive: true, runs: 100, plan: 'smoke' })).filter((p) => p.skipReason === undefined && p.parts !== undefined && checksLeftOut(p.shape, p.parts).length > 0);
  // A run notification's case needs no entry; any other is run on a fresh server too.
  const smoke = byParts.find((p) => p.def.operation === 'notifyAgentRun') ?? byParts[0];
  if (!smoke) throw new Error('the smoke plan takes no case by some of its parts, leaving checks out');
  const server = await startReferenceServer({ profile: embedded, key: EMBEDDED_KEY });
  const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: 10_000 });
  try {
    const judge = createJudge({ strict: false, agency: embedded.agency, sourceDbs: keySourceDbs(embedded) });
    const outcome = await runPlannedCase(smoke, client, embedded, { seed: 1, runs: 1, strict: false, reusable: false }, judge);
    expect(outcome.executions.find((e) => e.verdict === 'skip')?.skipReason).toMatch(/^not in the smoke plan: the parts ".+" were left out$/);
  } finally {
    await client.close();
    await server.close();
  }
});

test('a reusable profile: a destructive run makes only the changes it undoes, shows each entry as found, and a second run on the same data passes alike', async () => {
  const def = restoringMergeCase(reusable);
  const planned = await planSuite(reusable, { destructive: true, runs: 100 }, allCases(reusable));
  expect(allCases(reusable).some((c) => c.id === def.id)).toBe(true);
  // What consumes an entry is left out with the reason; the restoring case gets a merges entry.
  expect(planned.find((p) => p.key.startsWith('delete.success'))?.skipReason).toBe(NOT_UNDONE_REASON);
  expect(planned.find((p) => p.key === 'merge.success-then-demerge@json')?.skipReason).toBe(NOT_UNDONE_REASON);
  const restoring = planned.filter((p) => p.def.id === 'merge.restored');
  expect(restoring.every((p) => p.skipReason === undefined && (p.entries.merges?.length ?? 0) === 1)).toBe(true);

  const server = await startReferenceServer({ profile: reusable, key: EMBEDDED_KEY });
  const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: 10_000 });
  try {
    const judge = createJudge({ strict: false, agency: reusable.agency, sourceDbs: keySourceDbs(reusable) });
    for (const round of [1, 2]) {
      for (const p of restoring) {
        const outcome = await runPlannedCase(p, client, reusable, { seed: 1, runs: 1, strict: false, reusable: true }, judge);
        expect(outcome.executions.filter((e) => e.verdict === 'fail'), `round ${round}, ${p.key}`).toEqual([]);
        // Each work merged, demerged, and shown demerged by the same demerge refused: the entry as found.
        expect(outcome.restored.length).toBe(works);
        expect(outcome.restored.every((r) => r.proven)).toBe(true);
        // The case demerged its first work and its last (demerge-one); the run undid the others at the end.
        expect(outcome.restored.map((r) => r.undoneAtEnd)).toEqual(Array.from({ length: works }, (_, i) => i > 0 && i < works - 1));
      }
    }
  } finally {
    await client.close();
    await server.close();
  }
});

test('a change left undone by the case is undone when it ends, and a server that keeps it fails the proof', async () => {
  const def = restoringMergeCase(reusable);
  const [json] = (await planSuite(reusable, { destructive: true, runs: 100 }, [def])).filter((p) => !p.skipReason && p.format === 'json');
  const judge = createJudge({ strict: false, agency: reusable.agency, sourceDbs: keySourceDbs(reusable) });
  for (const fault of [undefined, 'demerge-no-effect']) {
    const server = await startReferenceServer({ profile: reusable, key: EMBEDDED_KEY, faults: fault ? [fault] : [] });
    const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: 10_000 });
    try {
      // Without the part that demerges the last work, the run's restoration demerges it.
      const outcome = await runPlannedCase({ ...(json), parts: ['key', 'other-works', 'item'] }, client, reusable, { seed: 1, runs: 1, strict: false, reusable: true }, judge);
      if (fault === undefined) {
        // The case demerged its first work; the run undid each of the others at the end.
        expect(outcome.restored.map((r) => [r.proven, r.undoneAtEnd])).toEqual(Array.from({ length: works }, (_, i) => [true, i > 0]));
        expect(outcome.executions.filter((e) => e.verdict === 'fail')).toEqual([]);
      } else {
        expect(outcome.restored.some((r) => !r.proven)).toBe(true);
        expect(outcome.executions.some((e) => e.verdict === 'fail' && e.checkId === 'outcome.demerge')).toBe(true);
      }
    } finally {
      await client.close();
      await server.close();
    }
  }
});

test('on a reusable profile a case that would merge an ISWC of its entry is stopped before it is sent (a harness defect)', async () => {
  const bad: CaseDef = {
    id: 'merge.irreversible',
    title: 'merges an ISWC of its entry',
    operation: 'mergeIswcMetadata',
    formats: ['json'],
    tags: [],
    claims: [{ kind: 'merges', count: 1, restores: true }],
    async run(ctx) {
      const entry = reusable.merges[0];
      await ctx.send({
        label: 'merge its ISWCs',
        operation: 'mergeIswcMetadata',
        request: bodyRequest('mergeIswcMetadata', 'json', { ...emptyMerge(), iswcs: entry?.iswcs ?? [] }, { query: queryFor('mergeIswcMetadata', { preferredIswc: entry?.preferredIswc, agency: reusable.agency }) }),
        expect: [expectCheck('status.success', { because: 'test' })],
      });
    },
  };
  const [p] = (await planSuite(reusable, { destructive: true, runs: 1 }, [bad])).filter((x) => !x.skipReason);
  const client = createHttpClient({ baseUrl: 'http://127.0.0.1:9', key: EMBEDDED_KEY, timeoutMs: 1000 });
  try {
    const judge = createJudge({ strict: false, agency: reusable.agency, sourceDbs: keySourceDbs(reusable) });
    await expect(runPlannedCase(p, client, reusable, { seed: 1, runs: 1, strict: false, reusable: true }, judge)).rejects.toThrow(/a merge of ISWCs cannot be undone/);
  } finally {
    await client.close();
  }
});

test('what a reusable profile shows: the spec checks of a destructive run on entries never recreated', async () => {
  const safe = await modeCoverage(embedded, 'non-destructive', { destructive: false, runs: 100 }, allCases(embedded));
  const withRestoring = await modeCoverage(reusable, 'destructive', { destructive: true, runs: 100 }, allCases(reusable));
  const without = await modeCoverage(reusable, 'destructive', { destructive: true, runs: 100 }, allCases(reusable).filter((c) => c.id !== 'merge.restored'));
  // Without the restoring merge a reusable profile shows what a non-destructive run does; with it, the merge,
  // its demerges, the refused item and the 204s.
  expect(without.exercised.length).toBe(safe.exercised.length);
  expect(withRestoring.exercised.length).toBeGreaterThan(safe.exercised.length);
  expect(withRestoring.exercised).toEqual(expect.arrayContaining(['outcome.merge', 'outcome.demerge', 'outcome.demerge-one', 'status.item-refused', 'response.no-body-204']));
  console.log(`reusable profile: ${safe.exercised.length} spec checks non-destructive, ${without.exercised.length} destructive without the restoring merge, ${withRestoring.exercised.length} with it`);
});

test('profile check on a reusable profile says the destructive run consumes no entry, and which checks only a consuming run shows', async () => {
  const { renderProfileCheck } = await import('../../lib/cli/commands/profile.ts');
  const { text } = await renderProfileCheck('reusable.json', reusable, { budget: 60, runs: 100 });
  expect(text).toContain('reusable: its entries are never recreated');
  expect(text).toMatch(/destructive \(--destructive\), no entry consumed\s+22 of 25/);
  expect(text).toMatch(/outcome\.delete\s+only a run that consumes entries shows it: the profile is reusable/);
  expect(text).not.toMatch(/All of them at once/);
});

test('a check the core judges stays exercised when a part that judges it too is left out: the merge\'s repeated demerge and its read-back', async () => {
  const def = mergeCases(embedded).find((d) => d.id === 'merge.success-then-demerge');
  if (!def) throw new Error('no merge.success-then-demerge');
  const shape = await shapeOf(def, 'json', embedded);
  // The core repeats a demerge (outcome.demerge), and so does the part read-back, at the run's end.
  expect(shape.coreChecks).toContain('outcome.demerge');
  expect(shape.parts?.find((p) => p.id === 'read-back')?.checks).toContain('outcome.demerge');
  expect(checksLeftOut(shape, [])).not.toContain('outcome.demerge');
  expect(checksLeftOut(shape, [])).toContain('outcome.demerge-one');
  // A shape kept before the core's checks were recorded reads as before: the check is taken for the part's.
  expect(checksLeftOut({ ...shape, coreChecks: undefined }, [])).toContain('outcome.demerge');
});
