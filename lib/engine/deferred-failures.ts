import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import type { SelectableEngine } from './engine.ts';
import { endedEarly, endRunEarly } from '../foundation/interrupt.ts';

/**
 * Failures that do not cost a worker. Playwright ends a worker after every failed test and starts a new
 * one for the next test; a conformance run against a server that fails most checks then spends most of
 * its time starting workers. So a conformance test whose checks failed passes in its worker and attaches
 * the failure text instead, and this reporter, listed first in playwright.config.ts, turns that test back
 * into a failed one in the runner, before any other reporter sees it: the list, JUnit, Allure, blob and
 * conformance reporters all report a failed test with the same message, and the run exits 1.
 *
 * The worker defers only when this reporter is the first of the run's reporters (`deferralAvailable`);
 * with other reporters only (`--reporter=blob` in a CI shard, for instance) the test fails in its worker
 * as before.
 *
 * It also tells the run's engine (lib/engine/engine.ts, left by the global setup in this process) which
 * conformance tests the run selected, in order, so that the engine can run them ahead of the workers.
 */

export const DEFERRED_FAILURE_ATTACHMENT = 'iswc-deferred-failure';
/** The same, for a test during which the target was found unusable: an error, not a check failure. */
export const DEFERRED_ERROR_ATTACHMENT = 'iswc-deferred-error';

/** The run could not go on with this target: JUnit writes it as an <error type="TargetUnusable">. */
export class TargetUnusableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetUnusable';
  }
}

/** How the error of a test the run's interruption cut short begins (the reporters count such a test apart). */
export const INTERRUPTED_PREFIX = 'Interrupted: ';

/** The error of a test the run's interruption cut short: JUnit writes it as an <error type="Interrupted">. */
export function interruptedError(): TestError {
  const message = `${INTERRUPTED_PREFIX}the run was interrupted (SIGINT, SIGTERM or SIGHUP) before this test could end; the reports say what was done`;
  return { message, stack: message };
}

const NAME = 'deferred-failures';

/** Is this reporter the first of the run's reporters, so that every other one sees the failure? */
export function deferralAvailable(config: Pick<FullConfig, 'reporter'>): boolean {
  const first = config.reporter[0]?.[0];
  return typeof first === 'string' && first.replace(/\\/g, '/').replace(/\.[cm]?[jt]s$/, '').endsWith(`/${NAME}`);
}

/** Where the global setup leaves the run's engine (lib/engine/engine.ts ENGINE_SLOT; not imported: this file stays light). */
const ENGINE_SLOT = Symbol.for('iswc-conformance.run-engine');

export default class DeferredFailures implements Reporter {
  private failed = 0;
  private suite: Suite | undefined;
  /** A test was turned into an "Interrupted" error. */
  private interruptedMarked = false;

  printsToStdio(): boolean {
    return false;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    this.suite = suite;
    const engine = (globalThis as Record<symbol, unknown>)[ENGINE_SLOT] as SelectableEngine | undefined;
    engine?.select(suite.allTests().map((t) => ({ project: t.parent.project()?.name ?? '', title: t.title })));
  }

  onTestEnd(_test: TestCase, result: TestResult): void {
    // The run ended itself (the target unusable, said by the test before): a test it cut short sent nothing more.
    const early = endedEarly();
    if (result.status === 'interrupted' && early !== undefined) {
      result.status = 'skipped';
      result.annotations.push({ type: 'skip', description: `not sent: ${early}` });
      return;
    }
    // A test the interruption cut short is an error in every JUnit file, never a quiet skip.
    if (result.status === 'interrupted') {
      const error = interruptedError();
      result.errors.unshift(error);
      (result as { error?: TestError }).error = error;
      result.status = 'failed';
      this.interruptedMarked = true;
      return;
    }
    const errorIndex = result.attachments.findIndex((a) => a.name === DEFERRED_ERROR_ATTACHMENT);
    if (errorIndex >= 0) {
      const [attachment] = result.attachments.splice(errorIndex, 1);
      result.attachments = result.attachments.filter((a) => a.name !== DEFERRED_FAILURE_ATTACHMENT);
      if (result.status !== 'passed' && result.status !== 'failed' && result.status !== 'skipped') return;
      // Named like an error, not an assertion: Playwright's JUnit reporter writes <error type="TargetUnusable">.
      const message = `TargetUnusable: ${attachment?.body?.toString('utf8') ?? 'the target is unusable'}`;
      this.fail(result, { message, stack: message });
      // Nothing more is sent: the run ends now rather than go through every test left only to skip it.
      endRunEarly(message.replace(/^TargetUnusable: (target unusable: )?/, 'target unusable: ').split('\n')[0] ?? 'target unusable');
      return;
    }
    const index = result.attachments.findIndex((a) => a.name === DEFERRED_FAILURE_ATTACHMENT);
    if (index < 0) return;
    const [attachment] = result.attachments.splice(index, 1);
    if (result.status !== 'passed' && result.status !== 'failed') return;
    const text = attachment?.body?.toString('utf8') ?? 'conformance checks failed';
    // Worded as the failed assertion it stands for: Playwright's JUnit reporter then writes a <failure>
    // (type expect.toBeUndefined), as it does for the assertion a worker would have failed on.
    const message = `${text}\n\nexpect(gating check failures).toBeUndefined()`;
    this.fail(result, { message, stack: `Error: ${message}` });
  }

  private fail(result: TestResult, error: TestError): void {
    result.status = 'failed';
    result.errors.push(error);
    // `error` is the first of `errors`, kept for reporters that still read it.
    (result as { error?: TestError }).error ??= error;
    this.failed += 1;
  }

  onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    if (result.status === 'interrupted' && !this.interruptedMarked && endedEarly() === undefined) this.markNotRun();
    return Promise.resolve(this.failed > 0 && result.status === 'passed' ? { status: 'failed' } : undefined);
  }

  /**
   * An interrupted run where no test was in flight when the signal came: the first test that never ran
   * gets one failed result with the "Interrupted" error, so that every JUnit file (written after this
   * reporter's onEnd) counts an error rather than reading as a clean run.
   */
  private markNotRun(): void {
    const test = this.suite?.allTests().find((t) => t.results.length === 0);
    if (!test) return;
    const error = interruptedError();
    const notRun: TestResult = {
      retry: 0,
      parallelIndex: -1,
      workerIndex: -1,
      duration: 0,
      startTime: new Date(),
      status: 'failed',
      error,
      errors: [error],
      attachments: [],
      annotations: [],
      stdout: [],
      stderr: [],
      steps: [],
    };
    test.results.push(notRun);
    this.interruptedMarked = true;
  }
}
