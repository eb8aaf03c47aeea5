import type { PlanData } from '../run/plan-rank.ts';
import { PLAN_DATA } from '../run/plans.generated.ts';

/**
 * The cases each fault of the catalogue is run with in the self-check, from the committed measurement
 * (lib/run/plans.generated.ts): the cases that caught it there, destructive (the self-check's mode). Every
 * other case showed nothing against that fault, so a run of these alone shows what the whole plan shows,
 * at a fraction of the requests. The caller proves it: a fault whose targeted run differs from what is
 * pinned for it is run again with its whole plan (tests/selfcheck/faults.spec.ts), and stale data (the
 * fingerprint no longer the catalogue's) means whole plans for every fault.
 */
export function measuredCatchers(data: PlanData = PLAN_DATA): Map<string, Set<string>> {
  const byFault = new Map<string, Set<string>>();
  for (const [caseKey, caught] of Object.entries(data.catches.destructive)) {
    for (const fault of Object.keys(caught)) {
      let keys = byFault.get(fault);
      if (!keys) byFault.set(fault, (keys = new Set()));
      keys.add(caseKey);
    }
  }
  return byFault;
}

/** Faults split into `count` chunks of alike cost (round robin over the catalogue's order), for workers to share. */
export function chunksOf<T>(items: readonly T[], count: number): T[][] {
  const chunks: T[][] = Array.from({ length: count }, () => []);
  items.forEach((item, i) => chunks[i % count]?.push(item));
  return chunks;
}
