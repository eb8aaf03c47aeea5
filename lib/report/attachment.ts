import type { CheckExecution } from '../run/execution.ts';
import type { RunFigures } from './model.ts';
import type { RunHalt } from './outcome.ts';
import type { ConsumptionAttached } from './consumed.ts';

/** The name of the attachment each conformance test hands to the reporters. */
export const EXECUTIONS_ATTACHMENT = 'iswc-check-executions';

/**
 * What each test hands to the reporters: its check executions as judged (before any waiver: the reporter
 * applies the waivers again, so that it can tell used from unused ones), request counts, and the day the
 * test judged its waivers' expiry against, and whether the run had stopped sending by then (so that a
 * merge of shards knows it too). Free of the key.
 */
export interface ExecutionsAttachment {
  executions: CheckExecution[];
  stats: { requests: number; retries: number; waitedMs: number };
  waiverDate?: string;
  /** Why the run had stopped sending when the test ended (target unusable, interrupted, time limit), if it had. */
  halt?: RunHalt;
  /**
   * The run's figures so far (cumulative) when the test ended, and which run they are of: a merge of
   * shards takes the last of each run and adds the runs up.
   */
  figures?: RunFigures & { run: string };
  /**
   * The disposable entries the run had consumed when the test ended (and those an earlier run consumed
   * that it passes on), and those it had found consumed: a merge of shards records them as a live run
   * does (meta.consumed, the data-consumed outcome). Absent when there are none.
   */
  consumption?: ConsumptionAttached;
  /**
   * What Allure shows of the test (reporters/allure-playwright.ts writes it in the runner): a worker that
   * called Allure's runtime made a Playwright step per label, exchange and attachment, each capturing a
   * stack, a quarter of the worker's CPU.
   */
  allure?: AllureData;
}

/** One HTTP exchange of a test, as an Allure step. */
export interface AllureStep {
  name: string;
  /** The request and the response (or the transport error), as JSON, free of the key. */
  request: string;
  response: string;
  /** The checks that failed on this exchange, one line each, when any did. */
  failure?: string;
  /** How long the exchange took (its last attempt), in milliseconds. */
  durationMs: number;
}

/** What Allure shows of a conformance test: its labels, and a step per exchange. */
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
