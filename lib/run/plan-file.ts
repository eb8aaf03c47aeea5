import { readFileSync, writeFileSync } from 'node:fs';
import type { TargetProfile } from '../contract/profile/types.ts';
import { allCases } from '../generate/suite.ts';
import type { PlannedCase } from './planned.ts';

/** A planned case as written to the plan file: everything but the case's code, which each process has. */
type PlannedEntry = Omit<PlannedCase, 'def'> & { caseId: string };

/**
 * The plan of a run, computed once by the global setup (dry runs, allocation of profile entries, the
 * budget) and read by every worker, so that workers agree on it and none computes it again.
 */
export function writePlanFile(file: string, planned: readonly PlannedCase[]): void {
  const entries: PlannedEntry[] = planned.map(({ def, ...rest }) => ({ caseId: def.id, ...rest }));
  writeFileSync(file, JSON.stringify(entries));
}

export function readPlanFile(file: string, profile: TargetProfile): PlannedCase[] {
  const byId = new Map(allCases(profile).map((def) => [def.id, def]));
  return (JSON.parse(readFileSync(file, 'utf8')) as PlannedEntry[]).map(({ caseId, ...rest }) => {
    const def = byId.get(caseId);
    if (!def) throw new Error(`the plan names case ${caseId}, which this process does not have`);
    return { def, ...rest };
  });
}
