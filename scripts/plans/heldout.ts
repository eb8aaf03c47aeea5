/**
 * How well the plans generalise to faults the ranking never saw (`npm run plan:heldout`, and the plot in
 * `npm run bench`'s output). The fault catalogue is split into folds (a deterministic shuffle per repeat);
 * for each fold the cases are ranked from what they catch of the other folds only (lib/run/plan-rank.ts,
 * exactly as `npm run generate` ranks them), a budget walks that ranking (lib/run/budget.ts), and the score
 * is how many faults of the held-out fold the chosen cases catch, by the committed measurement
 * (lib/run/plans.generated.ts). Pure arithmetic on committed data: no request is sent.
 *
 * Steering (lib/run/steer.ts) is measured the same way, on targets with a trait the run learns: a target
 * that serves no XML, and one that looks the preferred ISWC up first. On such a target a case the trait
 * makes tell nothing catches nothing; the faults that count are those the other cases of the mode catch.
 * Without steering the budget walks the ranking as it is; with it, the walk is the engine's: the first
 * case of each format that demands a body be accepted goes first, a case the trait makes tell nothing is
 * left out once the trait is known (unless it exercises a spec check not yet exercised), and what it
 * would have cost goes to the cases next in the ranking (the standby cases).
 */
import type { CheckId } from '../../lib/generate/checks.generated.ts';
import { CHECK_MANIFEST } from '../../lib/generate/checks.generated.ts';
import type { TargetProfile } from '../../lib/contract/profile/types.ts';
import { choose, estimatedRequests } from '../../lib/run/budget.ts';
import { applyChoice, planSuite } from '../../lib/run/plan.ts';
import { caughtInSelection, rankPlan } from '../../lib/run/plan-rank.ts';
import type { Catches, PartCatches, PlanData, PlanMode } from '../../lib/run/plan-rank.ts';
import type { PlannedCase } from '../../lib/run/planned.ts';
import { checksTaken } from '../../lib/run/parts.ts';

/** A target the steering is measured on: which cases its trait makes tell nothing. */
export interface SteerTarget {
  id: 'reference' | 'no-xml' | 'looks-up-first';
  label: string;
  /** The case tells nothing on this target (its answers are the trait's). */
  blind(p: PlannedCase): boolean;
  /** The case, once run, makes the trait known. */
  reveals(p: PlannedCase): boolean;
}

export const STEER_TARGETS: readonly SteerTarget[] = [
  { id: 'reference', label: 'the reference server', blind: () => false, reveals: () => false },
  {
    id: 'no-xml',
    label: 'a target that serves no XML (415 to every XML body)',
    blind: (p) => p.format === 'xml',
    reveals: (p) => p.format === 'xml' && p.shape.checks.includes('status.success'),
  },
  {
    id: 'looks-up-first',
    label: 'a target that looks the preferred ISWC up first (404 before validation)',
    blind: (p) => p.shape.tells?.unknownPreferredOnly === true,
    reveals: (p) => p.shape.tells?.unknownPreferredOnly === true && p.shape.tells.judgesMore,
  },
];

export interface HeldoutOptions {
  folds: number;
  repeats: number;
  budgets: readonly number[];
  seed: number;
  specOnly: boolean;
  /** Targets to measure steering on (none: the ranking alone, on the reference server). */
  targets: readonly SteerTarget[];
}

export interface HeldoutRow {
  mode: PlanMode;
  target: SteerTarget['id'];
  budget: number;
  held: { caught: number; total: number };
  /** With steering (only on a target with a trait). */
  heldSteered?: { caught: number; total: number };
  inSample: { caught: number; total: number };
  inSampleSteered?: { caught: number; total: number };
  /** Requests the budget's plan is estimated to send (in-sample ranking). */
  requests: number;
  /** Spec checks the walk exercises, without and with steering (in-sample). */
  specChecks: number;
  specChecksSteered?: number;
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
function restricted<T>(catches: Readonly<Record<string, Readonly<Record<string, T>>>>, keep: ReadonlySet<string>): Record<string, Record<string, T>> {
  const out: Record<string, Record<string, T>> = {};
  for (const [key, caught] of Object.entries(catches)) {
    const kept = Object.fromEntries(Object.entries(caught).filter(([f]) => keep.has(f)));
    if (Object.keys(kept).length > 0) out[key] = kept;
  }
  return out;
}

/** What a planned case (at the runs and parts it got) catches, by the measurement, on a target. */
function caughtByCase(p: PlannedCase, catches: Readonly<Record<string, Catches>>, parts: Readonly<Record<string, PartCatches>>, target: SteerTarget): string[] {
  if (target.blind(p)) return [];
  return Object.entries(catches[p.key] ?? {})
    .filter(([fault, needed]) => {
      if (p.shape.generated && (p.runs ?? 0) < needed) return false;
      return caughtInSelection(parts[p.key]?.[fault], p.parts);
    })
    .map(([fault]) => fault);
}

interface Walk {
  caught: Set<string>;
  spec: Set<CheckId>;
}

const isSpec = (id: CheckId): boolean => CHECK_MANIFEST[id].level === 'spec';

/** The plan a budget chose, walked without steering: every chosen case runs. */
function walkPlain(planned: readonly PlannedCase[], catches: Readonly<Record<string, Catches>>, parts: Readonly<Record<string, PartCatches>>, target: SteerTarget): Walk {
  const caught = new Set<string>();
  const spec = new Set<CheckId>();
  for (const p of planned) {
    if (p.skipReason !== undefined) continue;
    for (const f of caughtByCase(p, catches, parts, target)) caught.add(f);
    if (!target.blind(p)) for (const c of checksTaken(p.shape, p.parts).filter(isSpec)) spec.add(c);
  }
  return { caught, spec };
}

/**
 * The plan walked as a steered run walks it: probes first, then the chosen cases in rank order, each the
 * trait makes tell nothing left out once the trait is known (unless it exercises a spec check not yet
 * exercised); then the standby cases in rank order, each that fits in what is left.
 */
function walkSteered(planned: readonly PlannedCase[], budget: number, runs: number, catches: Readonly<Record<string, Catches>>, parts: Readonly<Record<string, PartCatches>>, target: SteerTarget): Walk {
  const caught = new Set<string>();
  const spec = new Set<CheckId>();
  let spent = 0;
  let known = false;
  const chosen = planned.filter((p) => p.skipReason === undefined);
  const probes: PlannedCase[] = [];
  for (const format of ['json', 'xml'] as const) {
    const probe = chosen.find((p) => p.format === format && p.shape.checks.includes('status.success'));
    if (probe) probes.push(probe);
  }
  const habits = new Set<string>();
  const run = (p: PlannedCase): void => {
    spent += estimatedRequests(p, p.runs ?? runs);
    for (const f of caughtByCase(p, catches, parts, target)) caught.add(f);
    for (const c of checksTaken(p.shape, p.parts).filter(isSpec)) spec.add(c);
    for (const h of p.shape.tells?.habits ?? []) habits.add(h);
    if (target.reveals(p)) known = true;
  };
  // As lib/run/steer.ts tellsNothing: the trait once known, or only observations already recorded; never a new spec check.
  const steeredAway = (p: PlannedCase): boolean => {
    if (!checksTaken(p.shape, p.parts).filter(isSpec).every((c) => spec.has(c))) return false;
    if (known && target.blind(p)) return true;
    const tells = p.shape.tells;
    return tells !== undefined && !tells.judgesMore && tells.habits.length > 0 && tells.habits.every((h) => habits.has(h));
  };
  for (const p of probes) run(p);
  for (const p of chosen) {
    if (probes.includes(p) || steeredAway(p)) continue;
    run(p);
  }
  const standby = planned.filter((p) => p.standby !== undefined).sort((a, b) => (a.standby ?? 0) - (b.standby ?? 0));
  for (const p of standby) {
    if (steeredAway(p)) continue;
    const cost = estimatedRequests(p, p.runs ?? runs);
    if (spent + cost > budget) continue;
    run(p);
  }
  // What the blind cases "caught" is the trait's, not the held-out fault's: only the seeing cases count.
  return { caught, spec };
}

/** Held-out and in-sample scores per mode, target and budget. */
export async function heldoutScores(profile: TargetProfile, data: PlanData, options: HeldoutOptions): Promise<HeldoutRow[]> {
  const faultIds = Object.keys(data.faults).filter((f) => !options.specOnly || data.faults[f] === 'spec');
  const next = random(options.seed);
  const rows: HeldoutRow[] = [];
  for (const destructive of [true, false]) {
    const mode: PlanMode = destructive ? 'destructive' : 'safe';
    const planned = await planSuite(profile, { destructive, runs: data.runs });
    const runnable = planned.filter((p) => !p.skipReason);
    const measured = data.catches[mode];
    const parts = data.partCatches?.[mode] ?? {};
    const splits: string[][][] = [];
    const pools = new Map<string, string[]>();
    for (const target of options.targets) {
      // Faults this mode can catch on this target at all: the denominator (a fault no case of the mode reveals is no ranking's miss).
      const catchable = new Set(runnable.filter((p) => !target.blind(p)).flatMap((p) => Object.keys(measured[p.key] ?? {})));
      pools.set(target.id, faultIds.filter((f) => catchable.has(f)));
    }
    const everyFault = faultIds.filter((f) => [...pools.values()].some((pool) => pool.includes(f)));
    for (let r = 0; r < options.repeats; r += 1) {
      const order = shuffled(everyFault, next);
      splits.push(Array.from({ length: options.folds }, (_v, i) => order.filter((_f, k) => k % options.folds === i)));
    }
    // One ranking per fold, one choice per budget: every target is walked on the same plans.
    const tally = new Map<string, { held: { caught: number; total: number }; heldSteered: { caught: number; total: number } }>();
    const slot = (target: SteerTarget, budget: number) => {
      const id = `${target.id}\u0001${budget}`;
      let t = tally.get(id);
      if (!t) {
        t = { held: { caught: 0, total: 0 }, heldSteered: { caught: 0, total: 0 } };
        tally.set(id, t);
      }
      return t;
    };
    for (const split of splits) {
      for (const fold of split) {
        const train = new Set(everyFault.filter((f) => !fold.includes(f)));
        const ranked = rankPlan(runnable, restricted(measured, train), data.runs, restricted(parts, train));
        for (const budget of options.budgets) {
          const copy = planned.map((p) => ({ ...p }));
          applyBudget(copy, budget, destructive, data.runs, { ...data, [mode]: ranked });
          for (const target of options.targets) {
            const pool = pools.get(target.id) ?? [];
            const heldOut = fold.filter((f) => pool.includes(f));
            if (heldOut.length === 0) continue;
            const t = slot(target, budget);
            const plain = walkPlain(copy, measured, parts, target);
            t.held.caught += heldOut.filter((f) => plain.caught.has(f)).length;
            t.held.total += heldOut.length;
            const steered = walkSteered(copy, budget, data.runs, measured, parts, target);
            t.heldSteered.caught += heldOut.filter((f) => steered.caught.has(f)).length;
            t.heldSteered.total += heldOut.length;
          }
        }
      }
    }
    for (const target of options.targets) {
      const pool = new Set(pools.get(target.id) ?? []);
      const steer = true;
      for (const budget of options.budgets) {
        const { held, heldSteered } = slot(target, budget);
        const full = planned.map((p) => ({ ...p }));
        applyBudget(full, budget, destructive, data.runs, data);
        const inPlain = walkPlain(full, measured, parts, target);
        const inSteered = steer ? walkSteered(full, budget, data.runs, measured, parts, target) : undefined;
        const count = (caught: Set<string>) => ({ caught: [...pool].filter((f) => caught.has(f)).length, total: pool.size });
        rows.push({
          mode,
          target: target.id,
          budget,
          held,
          ...(steer ? { heldSteered } : {}),
          inSample: count(inPlain.caught),
          ...(inSteered ? { inSampleSteered: count(inSteered.caught), specChecksSteered: inSteered.spec.size } : {}),
          requests: full.filter((p) => p.skipReason === undefined).reduce((n, p) => n + estimatedRequests(p, p.runs ?? data.runs), 0),
          specChecks: inPlain.spec.size,
        });
      }
    }
  }
  return rows;
}

/** What planSuite does with a budget, on planned cases already shaped. */
function applyBudget(planned: PlannedCase[], budget: number, destructive: boolean, runs: number, data: PlanData): void {
  applyChoice(planned, choose(planned, { plan: 'full', budget, runs, destructive, data }), 'not in the request budget');
}
