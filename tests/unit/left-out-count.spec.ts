/**
 * The plan and the run count the cases a plan leaves out alike (issue 40: "404 cases left out in the plan
 * and 403 in the run"): the run counts them by their skipped check executions (lib/run/plan-file.ts
 * leftOutExecutions), so every case left out has at least one, a case that plans no check of its own too.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { leftOutExecutions } from '../../lib/run/plan-file.ts';

for (const options of [{ plan: 'smoke' as const, destructive: true }, { plan: 'full' as const, destructive: false, budget: 60 }]) {
  test(`${options.plan === 'smoke' ? 'the smoke plan' : 'a non-destructive budget of 60'}: every case left out has a skipped check execution, so the run counts what the plan counts`, async () => {
    const planned = await planSuite(loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), { ...options, runs: 100 });
    const left = planned.filter((p) => p.skipReason !== undefined);
    expect(left.some((p) => p.shape.checks.length === 0), 'a case left out that plans no check of its own (property.any-body)').toBe(true);
    const executions = leftOutExecutions(left.map((p) => ({ caseId: p.def.id, operation: p.def.operation, format: p.format, skipReason: p.skipReason, shape: p.shape })));
    expect(new Set(executions.map((e) => `${e.caseId}@${e.format}`)).size).toBe(left.length);
  });
}
