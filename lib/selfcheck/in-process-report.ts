import type { CheckExecution } from '../run/execution.ts';
import { runSuiteInProcess } from '../engine/pipeline.ts';
import type { PlannedCase } from '../run/plan.ts';
import { loadProfile } from '../contract/profile/load.ts';
import { fromRoot } from '../foundation/paths.ts';
import { MODELS, profileForChoiceSet, startReferenceServer } from '../../server/index.ts';
import type { ChoiceSetName, ModelName } from '../../server/index.ts';
import { buildConformanceReport } from '../report/build.ts';
import type { ConformanceReport } from '../report/model.ts';
import { utcDay } from '../report/waivers/apply.ts';
import type { WaiverSet } from '../report/waivers/types.ts';

/**
 * How long an in-process run waits for each answer unless told otherwise: generous for a loaded machine
 * (on two cores at a load average of 14 the clean reference server took more than 2 s to answer, which a
 * tight timeout reads as "no answer (TIMEOUT)", a false fault). A server that answers at all answers within it.
 */
export const IN_PROCESS_TIMEOUT_MS = 30_000;

export interface InProcessReportOptions {
  /** The request timeout (default IN_PROCESS_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Faults of the reference server's catalogue (server/faults.ts). */
  faults?: readonly string[];
  key?: string;
  destructive?: boolean;
  strict?: boolean;
  filter?: (p: PlannedCase) => boolean;
  /** The reference server's set of choices on points the document leaves open. */
  choices?: ChoiceSetName;
  /** A model of a server that exists (server/models.ts): its choices and faults, and its profile settings (formats). */
  model?: ModelName;
  /** Applied to the executions before the report is built (to plant hostile text, for instance). */
  mutate?: (executions: CheckExecution[]) => CheckExecution[];
  /** Waivers applied when the report is built, as ISWC_WAIVERS does (lib/report/waivers/load.ts loadWaivers). */
  waivers?: WaiverSet;
  /** The UTC day (YYYY-MM-DD) waiver expiry is judged against; default: today. */
  today?: string;
  /** fast-check seed of the run (default 42), recorded in the report as the run's seed. */
  seed?: number;
}

/**
 * A real conformance report, without Playwright: the suite runs in this process against the embedded
 * reference server (with the faults asked for) and the result goes through the same builder the
 * reporter uses. What the report-writer tests use as fixtures.
 */
export async function inProcessReport(options: InProcessReportOptions = {}): Promise<ConformanceReport> {
  const embedded = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  const profile = options.model ? { ...embedded, ...MODELS[options.model].profile } : profileForChoiceSet(embedded, options.choices);
  const key = options.key ?? 'local-dev-key';
  const destructive = options.destructive ?? true;
  const server = await startReferenceServer({ profile, key, faults: options.faults ?? [], ...(options.choices ? { choices: options.choices } : {}), ...(options.model ? { model: options.model } : {}) });
  const startedAt = new Date();
  const seed = options.seed ?? 42;
  try {
    let executions = await runSuiteInProcess({
      baseUrl: server.url,
      key,
      profile,
      destructive,
      timeoutMs: options.timeoutMs ?? IN_PROCESS_TIMEOUT_MS,
      settings: { strict: options.strict ?? false, seed },
      ...(options.filter ? { filter: options.filter } : {}),
    });
    if (options.mutate) executions = options.mutate(executions);
    return buildConformanceReport({
      executions,
      stats: { requests: 0, retries: 0, waitedMs: 0 },
      baseUrl: server.url,
      embedded: true,
      profile: profile.name,
      targetProfile: profile,
      seed,
      runs: 25,
      strict: options.strict ?? false,
      destructive,
      startedAt,
      finishedAt: new Date(),
      plan: { name: 'full', budget: null },
      ...(options.waivers ? { waivers: { set: options.waivers, date: options.today ?? utcDay(startedAt) } } : {}),
    });
  } finally {
    await server.close();
  }
}
