import { gating } from '../check/gating.ts';
import { createJudge } from '../check/judge.ts';
import { KEY_REFUSED_AFTER, keyRefusedReason, keySourceDbs, showsKeyAcceptance } from '../contract/agency.ts';
import { routeEvidence, WRONG_BASE_AFTER, wrongBasePathReason } from '../contract/routes.ts';
import { runOutcome } from '../report/outcome.ts';
import type { RunHalt, RunOutcome } from '../report/outcome.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import type { NetworkRoute } from '../config/proxy.ts';
import { reusableRun } from '../contract/profile/types.ts';
import type { PlanName } from '../run/budget.ts';
import type { CheckExecution } from '../run/execution.ts';
import { createHttpClient } from '../run/http/client.ts';
import { planSuite } from '../run/plan.ts';
import type { PlannedCase } from '../run/planned.ts';
import { inParallel, runPlannedCase } from '../run/runner.ts';
import type { CaseOutcome, RunSettings } from '../run/runner.ts';
import { estimatedRequests } from '../run/budget.ts';
import { probesFirst, Steering } from '../run/steer.ts';

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
  /** The way to the target (a proxy), as a run resolves it from HTTP(S)_PROXY and NO_PROXY; default direct. */
  network?: NetworkRoute;
  /** A CA file to trust besides the system's (NODE_EXTRA_CA_CERTS of a run). */
  caFile?: string;
  /** Under a budget, steer it by what the answers show of the target (lib/run/steer.ts); default true, as a run does. */
  steer?: boolean;
}

export async function runSuiteInProcess(options: InProcessOptions): Promise<CheckExecution[]> {
  return (await runSuiteWithOutcome(options)).executions;
}

export interface InProcessRun {
  executions: CheckExecution[];
  /** Why the run stopped sending (the target unusable: circuit breaker, key refused), when it did. */
  halt?: RunHalt;
  /** The outcome and exit code, as a Playwright run's report records them (lib/report/outcome.ts). */
  outcome: RunOutcome;
}

/** The same run, with how it ended: the exit code a command would end with, mapped as every command maps it. */
export async function runSuiteWithOutcome(options: InProcessOptions): Promise<InProcessRun> {
  // The in-process runs target local servers.
  const client = createHttpClient({
    baseUrl: options.baseUrl,
    key: options.key,
    timeoutMs: options.timeoutMs ?? 5000,
    throttling: options.throttling ?? true,
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.network ? { proxy: options.network.proxy } : {}),
    ...(options.caFile !== undefined ? { caFile: options.caFile } : {}),
    keyRefusal: { after: KEY_REFUSED_AFTER, shows: (spec) => showsKeyAcceptance(spec, options.profile.agency), message: keyRefusedReason(options.profile.agency) },
    routeWatch: { after: WRONG_BASE_AFTER, evidence: routeEvidence, reason: (seen) => wrongBasePathReason(options.baseUrl, seen) },
  });
  // Read-back steps wait for every other case, as a run's do; under a budget they are sent at once (a case holds its reservation until it ends).
  const settings: RunSettings = { seed: 1, runs: 25, strict: false, reusable: reusableRun(options.profile, options.destructive), runEnd: options.budget === undefined ? 'defer' : 'inline', ...options.settings };
  const judge = createJudge({ strict: settings.strict, agency: options.profile.agency, sourceDbs: keySourceDbs(options.profile) });
  const planned = (
    await planSuite(options.profile, {
      destructive: options.destructive,
      runs: settings.runs,
      strict: settings.strict,
      ...(options.plan ? { plan: options.plan } : {}),
      ...(options.budget !== undefined ? { budget: options.budget } : {}),
    })
  ).filter(options.filter ?? (() => true));
  const budget = options.budget;
  const steering =
    budget !== undefined && options.plan !== 'smoke' && (options.steer ?? true)
      ? new Steering(
          planned,
          options.profile.unknownIswcs,
          () => budget,
          () => client.progress().sent + inFlight,
          (p) => estimatedRequests(p, p.runs ?? settings.runs),
        )
      : undefined;
  /** What the cases in flight may still send (their estimates, counted whole until they end). */
  let inFlight = 0;
  const runOne = async (p: PlannedCase): Promise<CaseOutcome> => {
    if (!steering) return runPlannedCase(p, client, options.profile, settings, judge);
    const decided = steering.decide(p);
    if (!decided.run) return runPlannedCase({ ...p, skipReason: decided.reason }, client, options.profile, settings, judge);
    const estimate = decided.planned.skipReason === undefined ? estimatedRequests(decided.planned, decided.planned.runs ?? settings.runs) : 0;
    inFlight += estimate;
    try {
      const outcome = await runPlannedCase(decided.planned, client, options.profile, settings, judge, undefined, (step, format, exchange) => steering.learner.observe(step, format, exchange));
      steering.ran(outcome.executions);
      return outcome;
    } finally {
      inFlight -= estimate;
    }
  };
  // Steering: the first case of each format that shows whether the target serves it runs first; in every run, the first case on each path early.
  const order = probesFirst(planned, (p) => [p], steering !== undefined);
  try {
    const byOrder = await inParallel(order, options.concurrency ?? 8, runOne);
    // The run's last steps: what the cases read back of what their first steps changed (CaseContext.atRunEnd).
    await inParallel(
      byOrder.flatMap((o) => (o.atRunEnd ? [o.atRunEnd] : [])),
      options.concurrency ?? 8,
      (atRunEnd) => atRunEnd(),
    );
    const outcomes = planned.map((p) => byOrder[order.indexOf(p)]);
    const executions = outcomes.flatMap((o) => o.executions);
    const unusable = client.unusable();
    const halt: RunHalt | undefined = unusable !== undefined ? { kind: 'target-unusable', reason: unusable } : undefined;
    const fails = executions.some((e) => e.verdict === 'fail' && gating(e.level, settings.strict));
    return { executions, ...(halt ? { halt } : {}), outcome: runOutcome(halt, fails) };
  } finally {
    await client.close();
  }
}
