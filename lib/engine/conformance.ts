import { expect, test } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import * as allure from 'allure-js-commons';
import type { RunContext } from '../config/run-context.ts';
import { runContext } from '../config/run-context.ts';
import { DEFERRED_ERROR_ATTACHMENT, DEFERRED_FAILURE_ATTACHMENT, deferralAvailable, TargetUnusableError } from './deferred-failures.ts';
import type { AllureData, GroupVerdict } from './protocol.ts';
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

/** What failed on one exchange, as the step's error: Allure marks the step failed and shows this text. */
class ExchangeCheckFailure extends Error {
  constructor(message: string) {
    super(message);
    // Allure reads an error named like an assertion as "failed" (a check that did not hold), not "broken".
    this.name = 'AssertionError';
  }
}

/**
 * Allure labels and steps of one test: the title says its format (JSON and XML tests of a case share a
 * Playwright title), suites are format then operation; one step per exchange, failed when a check failed
 * on it (the failing checks as its message), passed otherwise.
 */
async function reportToAllure(data: AllureData, testInfo: TestInfo): Promise<void> {
  await allure.displayName(`${testInfo.title} · ${data.format}`);
  // One message for every label: each Allure call is a Playwright attachment, whose step captures a stack.
  await allure.labels(
    { name: 'parentSuite', value: data.format },
    { name: 'suite', value: data.epic },
    { name: 'epic', value: data.epic },
    ...data.features.map((value) => ({ name: 'feature', value })),
    { name: 'severity', value: data.severity },
    { name: 'tag', value: data.tag },
    ...data.sections.map((value) => ({ name: 'section', value })),
  );
  for (const step of data.steps) {
    try {
      await allure.step(step.name, async () => {
        await allure.attachment('request', step.request, 'application/json');
        await allure.attachment('response', step.response, 'application/json');
        if (step.failure !== undefined) throw new ExchangeCheckFailure(step.failure);
      });
    } catch (err) {
      // The step is recorded as failed; the test's own verdict is decided below.
      if (!(err instanceof ExchangeCheckFailure)) throw err;
    }
  }
}

/** What a test reports of its verdict: attachment, Allure, annotations; then it skips, passes or fails. */
async function report(verdict: GroupVerdict, testInfo: TestInfo): Promise<void> {
  await testInfo.attach(EXECUTIONS_ATTACHMENT, { body: verdict.attachmentBody, contentType: 'application/json' });
  await reportToAllure(verdict.allure, testInfo);
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
      const ctx = context();
      await report(await askEngine(ctx.engineUrl, ctx.engineToken, planned.keys), testInfo);
    });
  }
}
