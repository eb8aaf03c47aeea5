import type { CheckExecution } from '../checks/types.ts';
import { createHttpClient } from '../http/client.ts';
import type { HttpClient } from '../http/types.ts';
import type { TargetProfile } from '../profile/types.ts';
import { CaseRun } from './context.ts';
import type { PlannedCase } from './suite.ts';
import { planSuite } from './suite.ts';
import type { PlanName } from './plan.ts';

export interface InProcessOptions {
  baseUrl: string;
  key: string;
  profile: TargetProfile;
  destructive: boolean;
  /** Cases run at once (each case's own steps stay in order). */
  concurrency?: number;
  timeoutMs?: number;
  filter?: (p: PlannedCase) => boolean;
  /** Defaults: seed 1, 25 runs per property, not strict. */
  settings?: Partial<RunSettings>;
  plan?: PlanName;
  budget?: number;
  /** Honour 429/503 as throttling (default false: these runs target local servers). */
  throttling?: boolean;
}

export interface CaseOutcome {
  executions: CheckExecution[];
  stats: CaseRun['stats'];
  exchanges: CaseRun['exchanges'];
}

/** Runs one planned case and returns its check executions (a skip records the reason). */
export interface RunSettings {
  seed: number;
  runs: number;
  strict: boolean;
}

export async function runPlannedCase(p: PlannedCase, client: HttpClient, profile: TargetProfile, settings: RunSettings): Promise<CaseOutcome> {
  // A case the plan sized (a request budget) must not spend more on shrinking a failure.
  const run = new CaseRun(p.def, { format: p.format, profile, entries: p.entries, ...settings, runs: p.runs ?? settings.runs, noShrink: p.runs !== undefined }, client);
  if (p.skipReason) run.skip(p.skipReason);
  else await p.def.run(run);
  return { executions: run.executions, stats: run.stats, exchanges: run.exchanges };
}

/**
 * The whole suite in this process, without Playwright: what the fault self-check uses to run the
 * harness against one faulty server after another in seconds.
 */
export async function runSuiteInProcess(options: InProcessOptions): Promise<CheckExecution[]> {
  // The in-process runs (self-check, seeds, bench) target local servers: a 429 is judged, not waited out.
  const client = createHttpClient({ baseUrl: options.baseUrl, key: options.key, timeoutMs: options.timeoutMs ?? 5000, throttling: options.throttling ?? false });
  const settings: RunSettings = { seed: 1, runs: 25, strict: false, ...options.settings };
  const planned = planSuite(options.profile, {
    destructive: options.destructive,
    runs: settings.runs,
    ...(options.plan ? { plan: options.plan } : {}),
    ...(options.budget !== undefined ? { budget: options.budget } : {}),
  }).filter(options.filter ?? (() => true));
  const results: CheckExecution[][] = new Array<CheckExecution[]>(planned.length);
  let next = 0;
  const worker = async () => {
    while (next < planned.length) {
      const index = next++;
      results[index] = (await runPlannedCase(planned[index], client, options.profile, settings)).executions;
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  } finally {
    await client.close();
  }
  return results.flat();
}
