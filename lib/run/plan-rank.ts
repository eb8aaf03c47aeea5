import { createHash } from 'node:crypto';
import { fieldConstraints } from '../contract/constraints.ts';
import { CHECK_MANIFEST } from '../generate/checks.generated.ts';
import type { CheckId } from '../generate/checks.generated.ts';
import { requestsOf } from './dry-run.ts';
import type { PlannedCase } from './planned.ts';

/**
 * Plans chosen by what they catch. `npm run generate` measures, once and ahead of any run, which faults
 * of the reference server's catalogue each case catches (scripts/plans.ts) and ranks the cases from
 * that (this file); the ranking is committed (plans.generated.ts) and a run with a request budget or the
 * smoke plan only walks it, so a run against staging computes nothing of it.
 *
 * The ranking, per mode (destructive or not), is greedy in four phases:
 *   1. faults: the case (a generated case: at the runs it needed) that catches the most faults not yet
 *      caught per request, until no case adds one; ties go to the case exercising more checks per request;
 *   2. spec: every spec check the mode can exercise, once, in as few requests as possible;
 *   3. spread: the most check × operation × format cells judged, and classes of input sent (a
 *      constraint's component and edge: Int32 above its maximum), not yet covered per request: what
 *      generalises to faults no measurement saw (`npm run plan:heldout`, docs/performance.md);
 *   4. the remaining fixed cases, in suite order.
 * The smoke plan is phases 1 and 2; a budget takes the ranked cases in order, each that still fits.
 */

/** What the measurement found for one case (a case in one format, by key): fault id → runs it needed (1 for a fixed case). */
export type Catches = Readonly<Record<string, number>>;

export type PlanPhase = 'faults' | 'spec' | 'coverage' | 'rest';

/** Destructive checks on, or not: each mode has its own measurement and ranking. */
export type PlanMode = 'destructive' | 'safe';

export interface RankedEntry {
  key: string;
  /** Runs of a generated case (what it needed to catch its faults, with a margin); absent for a fixed case. */
  runs?: number;
  phase: PlanPhase;
}

export interface RankedPlan {
  /** In order; a generated case may appear again later at more runs (an upgrade of its earlier entry). */
  entries: RankedEntry[];
  /** The smoke plan: this many entries from the start (phases faults and spec). */
  smoke: number;
}

export interface PlanData {
  /** Over the cases, faults, choice sets and seeds the measurement used: a change makes the data stale. */
  fingerprint: string;
  seeds: readonly number[];
  /** Runs a generated case was given in the measurement. */
  runs: number;
  /** The catalogue measured: fault id → level. */
  faults: Readonly<Record<string, 'spec' | 'http'>>;
  /** The sets of legitimate choices every case was run against (none may fail). */
  choiceSets: readonly string[];
  /**
   * Choice sets the self-check declares red until the harness is fixed, and the cases (keys) that fail
   * against them: recorded, not refused (scripts/plans.ts SETS_RED_IN_SELFCHECK). Every other set passed
   * every case at every seed.
   */
  falseAlarms: Readonly<Record<string, readonly string[]>>;
  /**
   * Per mode (a non-destructive run changes nothing in the target, so what a case catches can differ),
   * case key → what it caught at every seed; cases that caught nothing are left out.
   */
  catches: Readonly<Record<PlanMode, Readonly<Record<string, Catches>>>>;
  destructive: RankedPlan;
  safe: RankedPlan;
}

const SPEC = new Set((Object.keys(CHECK_MANIFEST) as CheckId[]).filter((id) => CHECK_MANIFEST[id].level === 'spec'));

/** Spec checks a case exercises. */
export function specChecksOf(p: PlannedCase): string[] {
  return p.shape.checks.filter((id) => SPEC.has(id));
}

/** Component of each constrained field (Int32, AgencyCode, Iswc, …), by constraint id. */
let components: Map<string, string> | undefined;
function componentOf(id: string): string | undefined {
  components ??= new Map(fieldConstraints().map((c) => [c.id, c.component ?? c.type]));
  return components.get(id);
}

/**
 * What a case shows, as coverage atoms that generalise to faults no measurement saw: each check ×
 * operation × format cell it judges, and for a limit or type case the class of its input (the
 * constraint's component, where the value sits, and which edge: `Int32/body/above-max/json`), not the
 * field: a server that mishandles an edge of a 32-bit counter mishandles it in any counter.
 */
export function coverage(p: PlannedCase): string[] {
  const atoms = [...p.shape.cells];
  const limit = /^(limit|type)\.(\w+)\.(body|query)\.(.+)\.([\w-]+)$/.exec(p.def.id);
  // A case only recorded (observed) reveals no fault, whatever input it sends.
  if (limit && atoms.length > 0) atoms.push(`${limit[1]}/${componentOf(`${limit[2]}.${limit[3]}.${limit[4]}`) ?? limit[4]}/${limit[3]}/${edgeOf(limit[5] ?? '')}/${p.format}`);
  if (p.def.id.startsWith('scenario.')) atoms.push(p.key);
  return atoms;
}

/** The edge a limit case's value sits on, coarsely: every pattern variant is one, every lossy type one. */
function edgeOf(variant: string): string {
  if (variant.startsWith('pattern-')) return 'pattern';
  if (/^at-(limit|max|min)$/.test(variant)) return 'at-limit';
  return variant;
}

/** The runs a generated case gets for faults it needed `needed` runs to catch: a margin for other seeds. */
export function runsWithMargin(needed: number, most: number): number {
  return Math.min(most, Math.max(needed + 1, Math.ceil(needed * 1.5)));
}

/** Requests a ranked entry sends. */
export function entryRequests(p: PlannedCase, runs: number | undefined): number {
  return p.shape.generated ? requestsOf(p.shape, runs ?? 1) : p.shape.fixedRequests;
}

interface Item {
  p: PlannedCase;
  index: number;
  runs: number | undefined;
  cost: number;
  atoms: readonly string[];
}

/**
 * Greedy weighted cover: repeatedly the item with the most atoms not yet covered per request (ties: more
 * checks per request, then fewer requests, then suite order). An item for a generated case already chosen
 * at fewer runs costs only the difference, and is ranked as an upgrade of it (the key appears again).
 */
function cover(items: readonly Item[], chosen: Map<string, RankedEntry & { cost: number }>, covered: Set<string>, phase: PlanPhase, out: RankedEntry[]): void {
  for (;;) {
    let best: { item: Item; score: number; extra: number; checks: number } | undefined;
    for (const item of items) {
      const already = chosen.get(item.p.key);
      if (already && (item.runs === undefined || (already.runs ?? 0) >= item.runs)) continue;
      const gain = item.atoms.filter((a) => !covered.has(a)).length;
      if (gain === 0) continue;
      const extra = Math.max(0, item.cost - (already?.cost ?? 0));
      const score = gain / Math.max(1, extra);
      const checks = item.p.shape.checks.length / Math.max(1, item.cost);
      const better =
        !best ||
        score > best.score + 1e-9 ||
        (Math.abs(score - best.score) <= 1e-9 && (checks > best.checks + 1e-9 || (Math.abs(checks - best.checks) <= 1e-9 && (extra < best.extra || (extra === best.extra && item.index < best.item.index)))));
      if (better) best = { item, score, extra, checks };
    }
    if (!best) return;
    const { item } = best;
    const entry: RankedEntry & { cost: number } = { key: item.p.key, ...(item.runs !== undefined ? { runs: item.runs } : {}), phase, cost: item.cost };
    // A generated case chosen again at more runs appears again: a smaller budget keeps the first, cheaper entry.
    chosen.set(item.p.key, entry);
    out.push({ key: entry.key, ...(entry.runs !== undefined ? { runs: entry.runs } : {}), phase });
    for (const a of item.atoms) covered.add(a);
  }
}

/**
 * Ranks the cases a mode can run (`runnable`: the planned cases without a skip reason in that mode) by
 * what they catch (`catches`), then by what they exercise. Deterministic: the same inputs give the same
 * ranking, which is what the staleness test recomputes.
 */
export function rankPlan(runnable: readonly PlannedCase[], catches: Readonly<Record<string, Catches>>, mostRuns: number): RankedPlan {
  const out: RankedEntry[] = [];
  const chosen = new Map<string, RankedEntry & { cost: number }>();
  const indexed = runnable.map((p, index) => ({ p, index }));

  // 1. faults caught per request.
  const faultItems: Item[] = [];
  for (const { p, index } of indexed) {
    const caught = catches[p.key];
    if (!caught) continue;
    if (!p.shape.generated) {
      faultItems.push({ p, index, runs: undefined, cost: p.shape.fixedRequests, atoms: Object.keys(caught) });
      continue;
    }
    for (const needed of [...new Set(Object.values(caught))].sort((a, b) => a - b)) {
      const runs = runsWithMargin(needed, mostRuns);
      faultItems.push({ p, index, runs, cost: entryRequests(p, runs), atoms: Object.keys(caught).filter((f) => (caught[f] ?? Infinity) <= needed) });
    }
  }
  cover(faultItems, chosen, new Set(), 'faults', out);

  // 2. every spec check the mode can exercise, once.
  const specCovered = new Set(out.flatMap((e) => specChecksOf(runnable.find((p) => p.key === e.key) as PlannedCase)));
  const specItems = indexed.map(({ p, index }) => ({ p, index, runs: p.shape.generated ? 1 : undefined, cost: entryRequests(p, 1), atoms: specChecksOf(p) }));
  cover(specItems, chosen, specCovered, 'spec', out);
  const smoke = out.length;

  // 3. distinct coverage per request, fixed cases only (generated ones get what a budget leaves).
  const fixed = indexed.filter(({ p }) => !p.shape.generated);
  const covered = new Set(out.flatMap((e) => coverage(runnable.find((p) => p.key === e.key) as PlannedCase)));
  cover(
    fixed.map(({ p, index }) => ({ p, index, runs: undefined, cost: p.shape.fixedRequests, atoms: coverage(p) })),
    chosen,
    covered,
    'coverage',
    out,
  );

  // 4. the rest of the fixed cases, in suite order.
  for (const { p } of fixed) {
    if (chosen.has(p.key)) continue;
    chosen.set(p.key, { key: p.key, phase: 'rest', cost: p.shape.fixedRequests });
    out.push({ key: p.key, phase: 'rest' });
  }
  return { entries: out, smoke };
}

/**
 * What the measured catches depend on, as a digest: every case in every format with its requests, checks,
 * claims and whether it may change data; the fault catalogue with levels; the choice sets; the seeds and
 * runs. When any of these changes, the committed plans are stale (tests/unit/plans.spec.ts) and
 * `npm run generate` measures again.
 */
export function planFingerprint(planned: readonly PlannedCase[], faults: Readonly<Record<string, string>>, choiceSets: readonly string[], seeds: readonly number[], runs: number): string {
  const cases = planned.map((p) => [p.key, p.shape.fixedRequests, p.shape.requestsPerRun, p.shape.generated, [...p.shape.checks].sort(), p.def.claims ?? [], p.def.changesData ?? false]);
  const text = JSON.stringify({ cases, faults: Object.entries(faults).sort(), choiceSets: [...choiceSets].sort(), seeds, runs });
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
