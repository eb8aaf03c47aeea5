/**
 * One figure for the spec checks a run exercises: what `plan` and `profile check` say before a run is
 * what the run says after it, against a conforming server. A spec check judged on an answer no step planned
 * it on (a probe's 204, which the document leaves open) is judged, and gates, but does not count: the plan
 * cannot know such an answer will come.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { runSuiteWithOutcome } from '../../lib/engine/pipeline.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { specCoverage } from '../../lib/report/verdict.ts';
import { modeCoverage } from '../../lib/run/profile-coverage.ts';
import type { CheckExecution } from '../../lib/run/execution.ts';
import { startReferenceServer } from '../../server/index.ts';

const KEY = 'exercised-figure-key-4d2a';

for (const [mode, options] of [
  ['non-destructive smoke (the CI gate)', { destructive: false, plan: 'smoke' as const }],
  ['destructive smoke (certify)', { destructive: true, plan: 'smoke' as const }],
  ['a budget of 60, non-destructive', { destructive: false, budget: 60 }],
] as const) {
  test(`${mode}: the run exercises the spec checks the plan says, no more`, async () => {
    test.setTimeout(180_000);
    const profile = loadProfile(fromRoot('fixtures', 'targets', 'staging-example.json'));
    const planned = await modeCoverage(profile, options.destructive ? 'destructive' : 'non-destructive', { ...options, runs: 25 });
    const server = await startReferenceServer({ profile, key: KEY });
    try {
      const run = await runSuiteWithOutcome({ baseUrl: server.url, key: KEY, profile, ...options, settings: { runs: 25 } });
      const coverage = specCoverage(run.executions);
      expect(coverage.notExercised.map((n) => n.checkId)).toEqual(planned.notExercised.map((n) => n.checkId));
      expect(coverage.exercised).toBe(planned.exercised.length);
      if (mode.startsWith('non-destructive smoke')) {
        expect(coverage.exercised).toBe(17);
        // The gate's merge probe of an empty body gets 204 from this server (on an idle machine; a loaded one may
        // answer it otherwise), and response.no-body-204 judges that answer: it counts nowhere, the plan leaves
        // the check out. Every judged execution of it is incidental, and only spec checks are.
        const incidental = run.executions.filter((e: CheckExecution) => e.incidental === true);
        const judged204 = run.executions.filter((e: CheckExecution) => e.checkId === 'response.no-body-204' && e.verdict !== 'skip');
        expect(judged204.every((e) => e.incidental === true), 'response.no-body-204 judged where no step planned it').toBe(true);
        expect(incidental.every((e) => e.level === 'spec')).toBe(true);
      }
    } finally {
      await server.close();
    }
  });
}
