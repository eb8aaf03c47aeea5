/**
 * npm run plan:heldout [-- --folds 5 --repeats 20 --budgets 15,30,60,100,150,250 --seed 1]
 *
 * How well the ranking generalises to faults it was never measured on. The fault catalogue is split into
 * folds (a deterministic shuffle per repeat); for each fold the cases are ranked from what they catch of
 * the other folds only (lib/run/plan-rank.ts, exactly as `npm run generate` ranks them), a budget walks
 * that ranking (lib/run/budget.ts), and the score is how many faults of the held-out fold the chosen
 * cases catch, by the committed measurement (lib/run/plans.generated.ts). Pure arithmetic on committed
 * data: no request is sent, it takes seconds. Prints the held-out catch rate per budget and mode, next
 * to the in-sample rate (the ranking measured on the whole catalogue).
 */
import { loadProfile } from '../lib/contract/profile/load.ts';
import { fromRoot } from '../lib/foundation/paths.ts';
import { choose, estimatedRequests } from '../lib/run/budget.ts';
import { planSuite } from '../lib/run/plan.ts';
import { rankPlan } from '../lib/run/plan-rank.ts';
import type { Catches, PlanData, PlanMode } from '../lib/run/plan-rank.ts';
import { PLAN_DATA } from '../lib/run/plans.generated.ts';
import type { PlannedCase } from '../lib/run/planned.ts';
import { scriptArgs } from './args.ts';

const values = scriptArgs(
  `Usage: npm run plan:heldout [-- --folds 5 --repeats 20 --budgets 15,30,60,100,150,250 --seed 1 --spec-only]

Scores the plan ranking on faults it was never measured on: the catalogue is split into --folds folds
(--repeats shuffles), each fold ranked from the others and scored on itself at each budget. Reads the
committed measurement (lib/run/plans.generated.ts); sends nothing. --spec-only scores spec faults only.`,
  {
    folds: { type: 'string', default: '5' },
    repeats: { type: 'string', default: '20' },
    budgets: { type: 'string', default: '15,30,60,100,150,250' },
    seed: { type: 'string', default: '1' },
    'spec-only': { type: 'boolean', default: false },
  },
);

const folds = Number(values.folds);
const repeats = Number(values.repeats);
const budgets = values.budgets.split(',').map(Number);
if (!Number.isInteger(folds) || folds < 2 || !Number.isInteger(repeats) || repeats < 1 || budgets.some((b) => !Number.isInteger(b) || b < 1)) {
  process.stderr.write('--folds must be an integer ≥ 2, --repeats ≥ 1, --budgets positive integers\n');
  process.exit(2);
}

/** A small deterministic generator (mulberry32), so the folds are the same on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The measured catches of a mode with only the given faults kept. */
function restricted(catches: Readonly<Record<string, Catches>>, keep: ReadonlySet<string>): Record<string, Catches> {
  const out: Record<string, Catches> = {};
  for (const [key, caught] of Object.entries(catches)) {
    const kept = Object.fromEntries(Object.entries(caught).filter(([f]) => keep.has(f)));
    if (Object.keys(kept).length > 0) out[key] = kept;
  }
  return out;
}

/** Faults the chosen cases catch by the measurement (a generated case at the runs it got). */
function caughtBy(planned: readonly PlannedCase[], chosen: ReadonlySet<string>, runs: ReadonlyMap<string, number>, catches: Readonly<Record<string, Catches>>): Set<string> {
  const out = new Set<string>();
  for (const p of planned) {
    if (!chosen.has(p.key)) continue;
    for (const [fault, needed] of Object.entries(catches[p.key] ?? {})) if (!p.shape.generated || (runs.get(p.key) ?? 0) >= needed) out.add(fault);
  }
  return out;
}

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const faultIds = Object.keys(PLAN_DATA.faults).filter((f) => !values['spec-only'] || PLAN_DATA.faults[f] === 'spec');
const next = random(Number(values.seed));

console.log(`${faultIds.length} faults${values['spec-only'] ? ' (spec only)' : ''}, ${folds} folds × ${repeats} shuffles; ranking measured on the other folds, scored on the held-out one`);
console.log(`${'mode'.padEnd(16)}${'budget'.padStart(7)}  ${'held-out'.padEnd(20)}${'in-sample'.padEnd(20)}requests`);
for (const destructive of [true, false]) {
  const mode: PlanMode = destructive ? 'destructive' : 'safe';
  const planned = await planSuite(profile, { destructive, runs: PLAN_DATA.runs });
  const runnable = planned.filter((p) => !p.skipReason);
  const measured = PLAN_DATA.catches[mode];
  // Faults this mode can catch at all: the denominator (a fault no case of the mode reveals is no ranking's miss).
  const catchable = new Set(Object.values(measured).flatMap((c) => Object.keys(c)).filter((f) => faultIds.includes(f)));
  const pool = faultIds.filter((f) => catchable.has(f));
  const splits: string[][][] = [];
  for (let r = 0; r < repeats; r += 1) {
    const order = shuffled(pool, next);
    splits.push(Array.from({ length: folds }, (_v, i) => order.filter((_f, k) => k % folds === i)));
  }
  for (const budget of budgets) {
    let heldCaught = 0;
    let heldTotal = 0;
    for (const split of splits) {
      for (const fold of split) {
        const held = new Set(fold);
        const train = new Set(pool.filter((f) => !held.has(f)));
        const ranked = rankPlan(runnable, restricted(measured, train), PLAN_DATA.runs);
        const data: PlanData = { ...PLAN_DATA, [mode]: ranked };
        const copy = planned.map((p) => ({ ...p }));
        const choice = choose(copy, { plan: 'full', budget, runs: PLAN_DATA.runs, destructive, data });
        const caught = caughtBy(copy, choice.chosen, choice.runs, measured);
        heldCaught += fold.filter((f) => caught.has(f)).length;
        heldTotal += fold.length;
      }
    }
    const full = choose(planned.map((p) => ({ ...p })), { plan: 'full', budget, runs: PLAN_DATA.runs, destructive });
    const inSample = caughtBy(planned, full.chosen, full.runs, measured);
    const inSampleCount = pool.filter((f) => inSample.has(f)).length;
    const requests = runnable.filter((p) => full.chosen.has(p.key)).reduce((n, p) => n + estimatedRequests(p, full.runs.get(p.key) ?? PLAN_DATA.runs), 0);
    const pct = (n: number, of: number): string => `${n}/${of} (${((n / Math.max(1, of)) * 100).toFixed(1)}%)`;
    console.log(`${mode.padEnd(16)}${String(budget).padStart(7)}  ${pct(heldCaught, heldTotal).padEnd(20)}${pct(inSampleCount, pool.length).padEnd(20)}${requests}`);
  }
}
