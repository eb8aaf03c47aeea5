import { CHECK_MANIFEST } from '../generate/checks.generated.ts';
import type { CheckId } from '../generate/checks.generated.ts';
import { requestsOf } from './dry-run.ts';
import type { PlannedCase } from './planned.ts';

/**
 * Request budgets. A remote target publishes 10 requests per minute, so a run must get the most out of
 * few requests: cases are chosen greedily by the distinct things they show per request (each documented
 * status, each limit at and past its boundary, auth on each operation, each stated outcome), and what
 * is left of the budget goes to generated inputs (properties).
 */

export type PlanName = 'full' | 'smoke';

/** A case whose request count grows with ISWC_RUNS (it tries generated inputs). */
export function isGenerated(p: PlannedCase): boolean {
  return p.shape.generated;
}

/** Requests a planned case sends, at `runs` runs per property. */
export function estimatedRequests(p: PlannedCase, runs: number): number {
  return requestsOf(p.shape, runs);
}

/** What a case shows, as coverage atoms: per operation and check, and per limit field and direction. */
export function coverage(p: PlannedCase): string[] {
  const op = p.def.operation ?? 'http';
  const atoms = p.shape.checks.map((c) => `${op}/${c}/${p.format === 'xml' ? 'xml' : 'json'}`);
  const limit = /^(limit|type)\.(\w+)\.(body|query)\.(.+)\.[\w-]+$/.exec(p.def.id);
  if (limit) atoms.push(`${limit[2]}/${limit[3]}/${limit[4]}/${p.shape.checks.join('+')}/${p.format}`);
  if (p.def.id.startsWith('scenario.')) atoms.push(p.key);
  return atoms;
}

const SPEC = new Set((Object.keys(CHECK_MANIFEST) as CheckId[]).filter((id) => CHECK_MANIFEST[id].level === 'spec'));

/** Spec checks a case exercises (for the smoke plan). */
function specAtoms(p: PlannedCase): string[] {
  return p.shape.checks.filter((id) => SPEC.has(id));
}

interface Choice {
  chosen: Set<string>;
  runs: Map<string, number>;
}

function greedy(
  candidates: PlannedCase[],
  atomsOf: (p: PlannedCase) => string[],
  cost: (p: PlannedCase) => number,
  budget: number,
  chosen = new Set<string>(),
): Set<string> {
  const covered = new Set(candidates.filter((p) => chosen.has(p.key)).flatMap(atomsOf));
  let spent = candidates.filter((p) => chosen.has(p.key)).reduce((n, p) => n + cost(p), 0);
  for (;;) {
    let best: PlannedCase | undefined;
    let bestScore = 0;
    for (const p of candidates) {
      if (chosen.has(p.key) || spent + cost(p) > budget) continue;
      const gain = atomsOf(p).filter((a) => !covered.has(a)).length;
      const score = gain / Math.max(1, cost(p));
      if (gain > 0 && score > bestScore) {
        best = p;
        bestScore = score;
      }
    }
    if (!best) return chosen;
    chosen.add(best.key);
    spent += cost(best);
    for (const a of atomsOf(best)) covered.add(a);
  }
}

/**
 * Chooses which planned cases run, and how many runs each generated case gets, within a request
 * budget. Deterministic: every worker computes the same plan.
 */
export function choose(planned: PlannedCase[], options: { plan: PlanName; budget: number | undefined; runs: number }): Choice {
  const runnable = planned.filter((p) => !p.skipReason);
  const runs = new Map<string, number>();
  if (options.plan === 'smoke') {
    // Smallest set of fixed cases that exercises every spec check once; no generated inputs.
    const fixed = runnable.filter((p) => !isGenerated(p));
    return { chosen: greedy(fixed, specAtoms, (p) => p.shape.fixedRequests, options.budget ?? Number.POSITIVE_INFINITY), runs };
  }
  if (options.budget === undefined) {
    for (const p of runnable) if (isGenerated(p)) runs.set(p.key, options.runs);
    return { chosen: new Set(runnable.map((p) => p.key)), runs };
  }
  const fixed = runnable.filter((p) => !isGenerated(p));
  // Every spec check once first (the smoke set), then the most distinct coverage per request.
  const smoke = greedy(fixed, specAtoms, (p) => p.shape.fixedRequests, options.budget);
  const chosen = greedy(fixed, coverage, (p) => p.shape.fixedRequests, options.budget, smoke);
  // Then every remaining fixed case that still fits, in order: they add boundaries and formats.
  let spent = fixed.filter((p) => chosen.has(p.key)).reduce((n, p) => n + p.shape.fixedRequests, 0);
  for (const p of fixed) {
    if (!chosen.has(p.key) && spent + p.shape.fixedRequests <= options.budget) {
      chosen.add(p.key);
      spent += p.shape.fixedRequests;
    }
  }
  const generated = runnable.filter((p) => isGenerated(p));
  const left = options.budget - spent;
  const share = generated.length > 0 ? Math.floor(left / generated.length) : 0;
  for (const p of generated) {
    let caseRuns = options.runs;
    while (caseRuns >= 1 && estimatedRequests(p, caseRuns) > share) caseRuns = Math.floor(caseRuns / 2);
    if (caseRuns >= 1) {
      chosen.add(p.key);
      runs.set(p.key, caseRuns);
    }
  }
  return { chosen, runs };
}
