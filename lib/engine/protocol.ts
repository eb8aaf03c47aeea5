/**
 * What the run's engine (lib/engine/engine.ts, in the process of the global setup) answers a Playwright test
 * that asks it to run its cases (lib/engine/service.ts): everything the test reports, already redacted
 * and judged, so that the worker needs none of the harness's modules.
 */

export interface AllureStep {
  name: string;
  /** The request and the response (or the transport error), as JSON, free of the key. */
  request: string;
  response: string;
  /** The checks that failed on this exchange, one line each, when any did. */
  failure?: string;
}

export interface AllureData {
  /** 'JSON', 'XML' or 'no body': told apart in titles and suites. */
  format: string;
  epic: string;
  features: string[];
  severity: string;
  tag: string;
  sections: string[];
  steps: AllureStep[];
}

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
  allure: AllureData;
}
