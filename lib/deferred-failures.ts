import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import type { SelectableEngine } from './engine.ts';

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
 * It also tells the run's engine (lib/engine.ts, left by the global setup in this process) which
 * conformance tests the run selected, in order, so that the engine can run them ahead of the workers.
 */

export const DEFERRED_FAILURE_ATTACHMENT = 'iswc-deferred-failure';

const NAME = 'deferred-failures';

/** Is this reporter the first of the run's reporters, so that every other one sees the failure? */
export function deferralAvailable(config: Pick<FullConfig, 'reporter'>): boolean {
  const first = config.reporter[0]?.[0];
  return typeof first === 'string' && first.replace(/\\/g, '/').replace(/\.[cm]?[jt]s$/, '').endsWith(`/${NAME}`);
}

/** Where the global setup leaves the run's engine (lib/engine.ts ENGINE_SLOT; not imported: this file stays light). */
const ENGINE_SLOT = Symbol.for('iswc-conformance.run-engine');

export default class DeferredFailures implements Reporter {
  private failed = 0;

  printsToStdio(): boolean {
    return false;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    const engine = (globalThis as Record<symbol, unknown>)[ENGINE_SLOT] as SelectableEngine | undefined;
    engine?.select(suite.allTests().map((t) => ({ project: t.parent.project()?.name ?? '', title: t.title })));
  }

  onTestEnd(_test: TestCase, result: TestResult): void {
    const index = result.attachments.findIndex((a) => a.name === DEFERRED_FAILURE_ATTACHMENT);
    if (index < 0) return;
    const [attachment] = result.attachments.splice(index, 1);
    if (result.status !== 'passed' && result.status !== 'failed') return;
    const text = attachment?.body?.toString('utf8') ?? 'conformance checks failed';
    // Worded as the failed assertion it stands for: Playwright's JUnit reporter then writes a <failure>
    // (type expect.toBeUndefined), as it does for the assertion a worker would have failed on.
    const message = `${text}\n\nexpect(gating check failures).toBeUndefined()`;
    const error: TestError = { message, stack: `Error: ${message}` };
    result.status = 'failed';
    result.errors.push(error);
    // `error` is the first of `errors`, kept for reporters that still read it.
    (result as { error?: TestError }).error ??= error;
    this.failed += 1;
  }

  onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    return Promise.resolve(this.failed > 0 && result.status === 'passed' ? { status: 'failed' } : undefined);
  }
}
