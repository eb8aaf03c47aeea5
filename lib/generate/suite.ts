import { profileKey } from '../contract/profile/key.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import type { CaseDef } from './case.ts';
import { httpCases } from './cases/http.ts';
import { limitCases } from './cases/limits.ts';
import { mergeCases } from './cases/merge.ts';
import { restoringMergeCase } from './cases/merge-restored.ts';
import { modelCases } from './cases/model.ts';
import { neighbourCases } from './cases/neighbours.ts';
import { propertyCases } from './cases/properties.ts';
import { queryParamCases } from './cases/query-params.ts';
import { removalCases } from './cases/removal.ts';
import { runCases } from './cases/run.ts';
import { scenarioCases } from './scenarios/cases.ts';
import { spellingCases } from './cases/spellings.ts';

/**
 * Every case the harness has for a target profile: fixed cases, limits, properties, the model test, scenarios,
 * then the near neighbours and the restoring merge (last: on a small profile they take the disposable entries
 * the others leave).
 */
export function allCases(profile: TargetProfile): CaseDef[] {
  // Cases are definitions, built from the profile alone: one process (a self-check, a sweep, a worker)
  // plans the same profile hundreds of times, and building the near neighbours, limits and scenarios
  // costs about a second each time.
  const key = profileKey(profile);
  let cases = built.get(key);
  if (!cases) {
    cases = buildCases(profile);
    built.set(key, cases);
  }
  return [...cases];
}

const built = new Map<string, readonly CaseDef[]>();

function buildCases(profile: TargetProfile): CaseDef[] {
  const cases = [...runCases(profile), ...mergeCases(profile), ...removalCases(profile), ...queryParamCases(profile), ...limitCases(profile), ...httpCases(profile), ...spellingCases(profile), ...propertyCases(profile), ...modelCases(profile), ...scenarioCases(profile), ...neighbourCases(profile), restoringMergeCase(profile)];
  const ids = new Set<string>();
  for (const c of cases) {
    if (ids.has(c.id)) throw new Error(`Duplicate case id ${c.id}`);
    ids.add(c.id);
  }
  return cases;
}
