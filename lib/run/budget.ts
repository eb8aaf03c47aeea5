import type { PlanData } from './plan-rank.ts';
import { coverage, entryRequests, specChecksOf } from './plan-rank.ts';
import { PLAN_DATA } from './plans.generated.ts';
import { requestsOf } from './dry-run.ts';
import type { PlannedCase } from './planned.ts';
import { closure, isWhole } from './parts.ts';

/**
 * Request budgets. A remote target publishes 10 requests per minute, so a run must get the most out of
 * few requests. Cases are taken in the order of the committed ranking (lib/run/plans.generated.ts,
 * measured by `npm run generate` against every fault of the reference server's catalogue): per request
 * first the faults caught, the classes of fault shown and the spec checks exercised (lib/run/plan-rank.ts),
 * then every spec check once, then the most distinct coverage per request. Cases the ranking does not know (another profile's, your own scenarios) come after, by the
 * spec checks and then the coverage they add per request; generated inputs get what is left.
 */

export type PlanName = 'full' | 'smoke';

/** A case whose request count grows with ISWC_RUNS (it tries generated inputs). */
export function isGenerated(p: PlannedCase): boolean {
  return p.shape.generated;
}

/** Requests a planned case sends, at `runs` runs per property. */
export function estimatedRequests(p: PlannedCase, runs: number): number {
  return requestsOf(p.shape, runs, p.parts);
}

export { coverage };

interface Choice {
  chosen: Set<string>;
  runs: Map<string, number>;
  /** Of cases with parts taken in part: the parts taken (absent: the whole case). */
  parts: Map<string, string[]>;
  /**
   * Under a budget: the cases next in the ranking that the budget leaves out (about a budget's worth), in
   * rank order, with the runs and parts they would take; the steering runs them with what it frees.
   */
  standby: Array<{ key: string; runs?: number; parts?: string[] }>;
}

export interface ChooseOptions {
  plan: PlanName;
  budget: number | undefined;
  /** ISWC_RUNS: the most runs any generated case gets. */
  runs: number;
  /** Which ranking applies: destructive checks on, or not. */
  destructive: boolean;
  /** The committed ranking (tests give their own). */
  data?: PlanData;
}

/** The parts of both selections, closed; undefined when either is the whole case. */
function unionParts(p: PlannedCase, a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (a === undefined || b === undefined) return undefined;
  const union = closure(p.shape, [...a, ...b]);
  return isWhole(p.shape, union) ? undefined : union;
}

/** A selection of parts as a key: the whole case is its own. */
function partsKey(parts: readonly string[] | undefined): string {
  return parts === undefined ? '\u0000whole' : parts.join('\u0001');
}

/** The selection being built: what is chosen, at how many runs and with which parts, and the requests it costs. */
class Selection {
  readonly chosen = new Set<string>();
  readonly runs = new Map<string, number>();
  readonly parts = new Map<string, string[]>();
  spent = 0;

  constructor(
    readonly limit: number,
    readonly mostRuns: number,
  ) {}

  cost(p: PlannedCase): number {
    return this.chosen.has(p.key) ? entryRequests(p, this.runs.get(p.key), this.parts.get(p.key)) : 0;
  }

  /**
   * Takes a case (a generated one at `runs`, a case with parts with those parts, undefined: whole) when it
   * fits; raises the runs or adds the parts of one already taken.
   */
  take(p: PlannedCase, runs: number | undefined, parts?: readonly string[]): boolean {
    const r = p.shape.generated ? Math.max(1, Math.min(runs ?? 1, this.mostRuns)) : undefined;
    const taken = this.chosen.has(p.key);
    const newRuns = r === undefined ? undefined : Math.max(r, this.runs.get(p.key) ?? 0);
    const wanted = parts === undefined ? undefined : closure(p.shape, parts);
    const newParts = taken ? unionParts(p, this.parts.get(p.key), wanted) : wanted !== undefined && !isWhole(p.shape, wanted) ? wanted : undefined;
    const sameParts = partsKey(newParts) === partsKey(this.parts.get(p.key));
    if (taken && (newRuns === undefined || (this.runs.get(p.key) ?? 0) >= newRuns) && sameParts) return false;
    const extra = entryRequests(p, newRuns, newParts) - this.cost(p);
    if (this.spent + extra > this.limit) return false;
    this.chosen.add(p.key);
    if (newRuns !== undefined) this.runs.set(p.key, newRuns);
    if (newParts === undefined) this.parts.delete(p.key);
    else this.parts.set(p.key, newParts);
    this.spent += extra;
    return true;
  }

  /** Greedy by atoms not yet covered per request, among cases not taken. */
  cover(candidates: readonly PlannedCase[], atomsOf: (p: PlannedCase) => string[], covered: Set<string>): void {
    for (;;) {
      let best: PlannedCase | undefined;
      let bestScore = 0;
      for (const p of candidates) {
        if (this.chosen.has(p.key)) continue;
        const cost = entryRequests(p, 1);
        if (this.spent + cost > this.limit) continue;
        const gain = atomsOf(p).filter((a) => !covered.has(a)).length;
        const score = gain / Math.max(1, cost);
        if (gain > 0 && score > bestScore) {
          best = p;
          bestScore = score;
        }
      }
      if (!best) return;
      this.take(best, 1);
      for (const a of atomsOf(best)) covered.add(a);
    }
  }
}

/**
 * Chooses which planned cases run, and how many runs each generated case gets, for the smoke plan or
 * within a request budget. Deterministic: every process computes the same plan.
 */
export function choose(planned: PlannedCase[], options: ChooseOptions): Choice {
  const runnable = planned.filter((p) => !p.skipReason);
  if (options.plan === 'full' && options.budget === undefined) {
    const runs = new Map<string, number>();
    for (const p of runnable) if (isGenerated(p)) runs.set(p.key, options.runs);
    return { chosen: new Set(runnable.map((p) => p.key)), runs, parts: new Map(), standby: [] };
  }
  const data = options.data ?? PLAN_DATA;
  const ranked = options.destructive ? data.destructive : data.safe;
  const byKey = new Map(runnable.map((p) => [p.key, p]));
  const sel = new Selection(options.budget ?? Number.POSITIVE_INFINITY, options.runs);
  // The committed ranking: the smoke plan is its own entries less the cases they make redundant; a budget
  // walks the entries and takes each case that still fits.
  const leftOut = new Set(ranked.smokeLeftOut ?? []);
  for (const entry of options.plan === 'smoke' ? ranked.smoke.filter((e) => !leftOut.has(e.key)) : ranked.entries) {
    const p = byKey.get(entry.key);
    if (p) sel.take(p, entry.runs, entry.parts);
  }
  // Cases the ranking does not know: every spec check once, then (with a budget) distinct coverage.
  const taken = (): PlannedCase[] => runnable.filter((p) => sel.chosen.has(p.key));
  sel.cover(runnable, specChecksOf, new Set(taken().flatMap(specChecksOf)));
  if (options.plan === 'smoke') return { chosen: sel.chosen, runs: sel.runs, parts: sel.parts, standby: [] };
  // What comes next in the ranking, a budget's worth: what the steering may run instead of cases that tell nothing.
  const next = new Selection(sel.limit, options.runs);
  const standby: Choice['standby'] = [];
  for (const entry of ranked.entries) {
    const p = byKey.get(entry.key);
    if (!p || sel.chosen.has(p.key)) continue;
    if (!next.take(p, entry.runs, entry.parts)) continue;
    const at = standby.findIndex((s) => s.key === p.key);
    const taken = { key: p.key, ...(next.runs.has(p.key) ? { runs: next.runs.get(p.key) } : {}), ...(next.parts.has(p.key) ? { parts: next.parts.get(p.key) } : {}) };
    if (at < 0) standby.push(taken);
    else standby[at] = taken;
  }
  const fixed = runnable.filter((p) => !isGenerated(p));
  sel.cover(fixed, coverage, new Set(taken().flatMap(coverage)));
  for (const p of fixed) sel.take(p, undefined);
  // What is left goes to generated inputs not yet taken, in equal shares.
  const generated = runnable.filter((p) => isGenerated(p) && !sel.chosen.has(p.key));
  const share = generated.length > 0 ? Math.floor((sel.limit - sel.spent) / generated.length) : 0;
  for (const p of generated) {
    let caseRuns = options.runs;
    while (caseRuns >= 1 && estimatedRequests(p, caseRuns) > share) caseRuns = Math.floor(caseRuns / 2);
    if (caseRuns >= 1) sel.take(p, caseRuns);
  }
  return { chosen: sel.chosen, runs: sel.runs, parts: sel.parts, standby };
}
