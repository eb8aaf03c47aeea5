import type { CheckExecution } from '../run/execution.ts';

/** The name of the attachment each conformance test hands to the reporters. */
export const EXECUTIONS_ATTACHMENT = 'iswc-check-executions';

/**
 * What each test hands to the reporters: its check executions as judged (before any waiver: the reporter
 * applies the waivers again, so that it can tell used from unused ones), request counts, and the day the
 * test judged its waivers' expiry against. Free of the key.
 */
export interface ExecutionsAttachment {
  executions: CheckExecution[];
  stats: { requests: number; retries: number; waitedMs: number };
  waiverDate?: string;
}
