import type { CaseFormat, Step } from '../generate/case.ts';
import { CHECK_MANIFEST } from '../generate/checks.generated.ts';

/**
 * What the steering of a budget (lib/run/steer.ts) reads of a case, from the steps its dry run went
 * through (lib/run/dry-run.ts): kept apart so that the dry run depends on nothing of the steering.
 */

/** What the steering knows of a planned case, from its dry run. */
export interface CaseTells {
  /** Every request of the case names an unknown preferred ISWC (its answers are all 404 on a target that looks it up first). */
  unknownPreferredOnly: boolean;
  /** The observed habits it records (check × operation × format), and whether it judges anything else. */
  habits: readonly string[];
  judgesMore: boolean;
}

/** An observed check × operation × format: one habit of the target, recorded once. */
export function habitCell(checkId: string, operation: Step['operation'], format: CaseFormat): string {
  return `${checkId}/${operation ?? 'http'}/${format}`;
}

/** The value of a query parameter a step sends. */
export function queryValue(step: Step, name: string): string | undefined {
  return step.request.query?.find(([k]) => k === name)?.[1];
}

/** What a case tells, from the steps its dry run went through (lib/run/dry-run.ts records them). */
export function caseTells(steps: ReadonlyArray<{ step: Step; format: CaseFormat }>, unknownIswcs: readonly string[]): CaseTells {
  let unknownPreferredOnly = steps.length > 0;
  let judgesMore = false;
  const habits = new Set<string>();
  for (const { step, format } of steps) {
    const preferred = queryValue(step, 'preferredIswc');
    if (preferred === undefined || !unknownIswcs.includes(preferred)) unknownPreferredOnly = false;
    for (const e of step.expect) {
      if (CHECK_MANIFEST[e.checkId].level === 'observed') habits.add(habitCell(e.checkId, step.operation, format));
      else judgesMore = true;
    }
  }
  return { unknownPreferredOnly, habits: [...habits].sort(), judgesMore };
}

