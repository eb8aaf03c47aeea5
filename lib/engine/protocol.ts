/**
 * What the run's engine (lib/engine/engine.ts, in the process of the global setup) answers a Playwright test
 * that asks it to run its cases (lib/engine/service.ts): everything the test reports, already redacted
 * and judged, so that the worker needs none of the harness's modules. What Allure shows of the test
 * travels in the executions attachment (lib/report/attachment.ts), to the Allure reporter in the runner.
 */

export interface GroupVerdict {
  /** The executions attachment (lib/report/attachment.ts) the reporters read, serialised once. */
  attachmentBody: string;
  /** The reason, when every case of the test was skipped (and nothing failed). */
  allSkipped?: string;
  /** `caseId: reason` of each case that was skipped. */
  skipped: string[];
  /** Waived failures (known deviations), one line each. */
  waived: string[];
  /** Failures that do not gate (http without ISWC_STRICT=1). */
  notGating: Array<{ level: string; text: string }>;
  /** Why the test fails: its gating failures. */
  blocking?: string;
  /**
   * The target was found unusable during this test (the circuit breaker tripped, the key was refused on
   * every request): the test ends on an error saying so, not on a check failure (one test of the run).
   */
  unusable?: string;
}
