// The base test type: a conformance test needs no browser, and each of Playwright's browser fixtures
// (set up and torn down for every test, even unused) is a step that captures and source-maps a stack.
import { _baseTest as test, expect } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import type { RunContext } from '../config/run-context.ts';
import { runContext } from '../config/run-context.ts';
import { DEFERRED_ERROR_ATTACHMENT, DEFERRED_FAILURE_ATTACHMENT, deferralAvailable, TargetUnusableError } from './deferred-failures.ts';
import type { GroupVerdict } from './protocol.ts';
import { askEngine } from './service.ts';
import { EXECUTIONS_ATTACHMENT } from '../report/attachment.ts';
import { plannedTests, readPlannedTests } from '../run/plan-file.ts';
import type { PlannedTest } from '../run/plan-file.ts';

/** The run context the global setup prepared; a clear error when the tests are run without it. */
function context(): RunContext & { engineUrl: string; engineToken: string } {
  const found = runContext();
  if (!found?.engineUrl || !found.engineToken) throw new Error('no run context: run the conformance projects through playwright.config.ts, whose global setup prepares the run (npm run conformance)');
  return { ...found, engineUrl: found.engineUrl, engineToken: found.engineToken };
}

/**
 * The tests of a project: from the plan file the global setup wrote (every process of a run reads the
 * same list, and no case is loaded to read it); without a run context (`--list`), from the cases.
 */
async function testsOf(project: 'json' | 'xml'): Promise<PlannedTest[]> {
  const planFile = runContext()?.planFile;
  if (planFile) return readPlannedTests(planFile, project);
  const [{ config }, { loadProfile }, { allCases }] = await Promise.all([import('../config/config.ts'), import('../contract/profile/load.ts'), import('../generate/suite.ts')]);
  const cases = allCases(loadProfile(config().targetFile)).flatMap((def) =>
    def.formats.map((format) => ({ def, format, project: format === 'xml' ? ('xml' as const) : ('json' as const), key: `${def.id}@${format}` })),
  );
  return plannedTests(cases).filter((t) => t.project === project);
}

/**
 * What a test reports of its verdict: the attachment (its executions, and what Allure shows of it, which
 * the Allure reporter writes in the runner), annotations; then it skips, passes or fails.
 */
async function report(verdict: GroupVerdict, testInfo: TestInfo): Promise<void> {
  await testInfo.attach(EXECUTIONS_ATTACHMENT, { body: verdict.attachmentBody, contentType: 'application/json' });
  if (verdict.allSkipped !== undefined && verdict.blocking === undefined && verdict.unusable === undefined) test.skip(true, verdict.allSkipped);
  if (verdict.skipped.length > 0) testInfo.annotations.push({ type: 'skipped cases', description: verdict.skipped.join('\n') });
  if (verdict.waived.length > 0) testInfo.annotations.push({ type: 'waived (known deviations, not gating)', description: verdict.waived.join('\n') });
  for (const f of verdict.notGating) testInfo.annotations.push({ type: `${f.level} failure (not gating; ISWC_STRICT=1 makes it fail the run)`, description: f.text });
  if (verdict.unusable !== undefined) {
    // Not a check that failed but a run that could not go on: an error, which JUnit files count apart.
    if (deferralAvailable(testInfo.config)) await testInfo.attach(DEFERRED_ERROR_ATTACHMENT, { body: [verdict.unusable, verdict.blocking].filter(Boolean).join('\n\n'), contentType: 'text/plain' });
    else throw new TargetUnusableError(verdict.unusable);
    return;
  }
  if (verdict.blocking === undefined) return;
  // Failing here would cost the next test a new worker; the deferred-failures reporter fails the test in
  // the runner instead, before every other reporter sees it (lib/engine/deferred-failures.ts).
  if (deferralAvailable(testInfo.config)) await testInfo.attach(DEFERRED_FAILURE_ATTACHMENT, { body: verdict.blocking, contentType: 'text/plain' });
  // An assertion, not a thrown Error: Playwright's JUnit reporter (junit.xml, and any junit file a
  // merge-reports writes) counts a failed `expect` as a <failure> and anything else thrown as an <error>.
  else expect(verdict.blocking, verdict.blocking).toBeUndefined();
}

/**
 * Declares the Playwright tests of one conformance project. Each test asks the run's engine (in the
 * process of the global setup, lib/engine/engine.ts) to run its cases and reports the verdict: a worker loads
 * none of the harness, so starting one is cheap.
 */
export async function declareConformance(project: 'json' | 'xml'): Promise<void> {
  for (const planned of await testsOf(project)) {
    test(planned.title, { tag: planned.tags }, async ({}, testInfo) => {
      // Its read-back steps are the run's last requests: it waits for every other test, bounded by the
      // run's own limits (a signal, --max-duration), not by a test's.
      if (planned.waitsForRunEnd) testInfo.setTimeout(0);
      const ctx = context();
      await report(await askEngine(ctx.engineUrl, ctx.engineToken, planned.keys), testInfo);
    });
  }
}
