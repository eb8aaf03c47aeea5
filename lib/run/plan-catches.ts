import type { PlannedCase } from './plan.ts';
import { caughtInSelection } from './plan-rank.ts';
import type { PlanMode } from './plan-rank.ts';
import { PLAN_DATA } from './plans.generated.ts';

/** Faults the planned cases (at the runs and parts the plan gave them) caught in the committed measurement. */
export function caughtByPlanned(planned: readonly PlannedCase[], mode: PlanMode): Set<string> {
  const out = new Set<string>();
  for (const p of planned) {
    if (p.skipReason !== undefined) continue;
    for (const [fault, needed] of Object.entries(PLAN_DATA.catches[mode][p.key] ?? {})) {
      if (p.shape.generated && (p.runs ?? 0) < needed) continue;
      if (caughtInSelection(PLAN_DATA.partCatches?.[mode][p.key]?.[fault], p.parts)) out.add(fault);
    }
  }
  return out;
}
