import { createJudge } from './check/judge.ts';
import type { TargetProfile } from './contract/profile/types.ts';
import type { PlanName } from './run/budget.ts';
import type { CheckExecution } from './run/execution.ts';
import { createHttpClient } from './run/http/client.ts';
import { planSuite } from './run/plan.ts';
import type { PlannedCase } from './run/planned.ts';
import { inParallel, runPlannedCase } from './run/runner.ts';
import type { RunSettings } from './run/runner.ts';

/**
 * The pipeline in one process, without Playwright: cases (generate) are planned and sent (run) and every
 * answer judged (check). What the fault self-check, `npm run seeds`, the bench and the report tests use
 * to run the harness against one server after another in seconds.
 */
export interface InProcessOptions {
  baseUrl: string;
  key: string;
  profile: TargetProfile;
  destructive: boolean;
  /** Cases run at once (each case's own steps stay in order). */
  concurrency?: number;
  timeoutMs?: number;
  /** Largest response body read, in bytes (ISWC_MAX_BODY); default 1 MiB. */
  maxBodyBytes?: number;
  filter?: (p: PlannedCase) => boolean;
  /** Defaults: seed 1, 25 runs per property, not strict. */
  settings?: Partial<RunSettings>;
  plan?: PlanName;
  budget?: number;
  /** Honour 429/503 as throttling (default true: a gateway may throttle on any target, section 8). */
  throttling?: boolean;
}

export async function runSuiteInProcess(options: InProcessOptions): Promise<CheckExecution[]> {
  // The in-process runs target local servers: a 429 is judged, not waited out.
  const client = createHttpClient({
    baseUrl: options.baseUrl,
    key: options.key,
    timeoutMs: options.timeoutMs ?? 5000,
    throttling: options.throttling ?? true,
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
  });
  const settings: RunSettings = { seed: 1, runs: 25, strict: false, ...options.settings };
  const judge = createJudge({ strict: settings.strict, agency: options.profile.agency });
  const planned = (
    await planSuite(options.profile, {
      destructive: options.destructive,
      runs: settings.runs,
      ...(options.plan ? { plan: options.plan } : {}),
      ...(options.budget !== undefined ? { budget: options.budget } : {}),
    })
  ).filter(options.filter ?? (() => true));
  try {
    const outcomes = await inParallel(planned, options.concurrency ?? 8, (p) => runPlannedCase(p, client, options.profile, settings, judge));
    return outcomes.flatMap((o) => o.executions);
  } finally {
    await client.close();
  }
}
