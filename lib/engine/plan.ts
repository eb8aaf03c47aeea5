import { allChecks } from '../checks/registry.ts';
import type { CaseDef } from './case.ts';
import { impliedSpecChecks } from './case.ts';
import type { PlannedCase } from './suite.ts';

/**
 * Request budgets. A remote target publishes 10 requests per minute, so a run must get the most out of
 * few requests: cases are chosen greedily by the distinct things they show per request (each documented
 * status, each limit at and past its boundary, auth on each operation, each stated outcome), and what
 * is left of the budget goes to generated inputs (properties).
 */

export type PlanName = 'full' | 'smoke';

export function isGenerated(def: CaseDef): boolean {
  return def.tags.includes('@property');
}

/** Requests a case sends: its own count, or for generated cases, as many as its runs allow. */
export function estimatedRequests(def: CaseDef, runs: number): number {
  if (!isGenerated(def)) return def.requests;
  // The model test runs sequences of up to 10 commands, a fifth of ISWC_RUNS (at least 10) of them.
  return def.tags.includes('@model') ? Math.max(10, Math.ceil(runs / 5)) * 10 : runs;
}

/** What a case shows, as coverage atoms: per operation and check, and per limit field and direction. */
export function coverage(p: PlannedCase): string[] {
  const op = p.def.operation ?? 'http';
  const atoms = p.def.checks.map((c) => `${op}/${c}/${p.format === 'xml' ? 'xml' : 'json'}`);
  const limit = /^(limit|type)\.(\w+)\.(body|query)\.(.+)\.[\w-]+$/.exec(p.def.id);
  if (limit) atoms.push(`${limit[2]}/${limit[3]}/${limit[4]}/${p.def.checks.join('+')}/${p.format}`);
  if (p.def.id.startsWith('scenario.')) atoms.push(p.key);
  return atoms;
}

/** Spec checks a case exercises (for the smoke plan). */
function specAtoms(p: PlannedCase): string[] {
  const spec = new Set(allChecks().filter((c) => c.level === 'spec').map((c) => c.id));
  return [...new Set([...p.def.checks, ...impliedSpecChecks(p.def)])].filter((id) => spec.has(id));
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
    const fixed = runnable.filter((p) => !isGenerated(p.def));
    return { chosen: greedy(fixed, specAtoms, (p) => p.def.requests, options.budget ?? Number.POSITIVE_INFINITY), runs };
  }
  if (options.budget === undefined) {
    for (const p of runnable) if (isGenerated(p.def)) runs.set(p.key, options.runs);
    return { chosen: new Set(runnable.map((p) => p.key)), runs };
  }
  const fixed = runnable.filter((p) => !isGenerated(p.def));
  // Every spec check once first (the smoke set), then the most distinct coverage per request.
  const smoke = greedy(fixed, specAtoms, (p) => p.def.requests, options.budget);
  const chosen = greedy(fixed, coverage, (p) => p.def.requests, options.budget, smoke);
  // Then every remaining fixed case that still fits, in order: they add boundaries and formats.
  let spent = fixed.filter((p) => chosen.has(p.key)).reduce((n, p) => n + p.def.requests, 0);
  for (const p of fixed) {
    if (!chosen.has(p.key) && spent + p.def.requests <= options.budget) {
      chosen.add(p.key);
      spent += p.def.requests;
    }
  }
  const generated = runnable.filter((p) => isGenerated(p.def));
  const left = options.budget - spent;
  const share = generated.length > 0 ? Math.floor(left / generated.length) : 0;
  for (const p of generated) {
    let caseRuns = options.runs;
    while (caseRuns >= 1 && estimatedRequests(p.def, caseRuns) > share) caseRuns = Math.floor(caseRuns / 2);
    if (caseRuns >= 1) {
      chosen.add(p.key);
      runs.set(p.key, caseRuns);
    }
  }
  return { chosen, runs };
}
