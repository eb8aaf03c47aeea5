import type { CheckExecution } from '../run/execution.ts';
import { gating } from '../check/gating.ts';
import { executionSections } from '../check/sections.ts';
import type { ConformanceReport, ReplayFiles, RunMeta, RunNetwork, RunPlan } from './model.ts';
import { sortExecutions, tallyByLevel } from './model.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import { profileDigest, waiversDigest } from './binding.ts';
import type { ConsumedEntry } from './consumed.ts';
import { formatsLabel } from '../contract/profile/types.ts';
import { failureId, hasFailureId } from './identity.ts';
import { HARNESS_VERSION, documentDigest, safeBaseUrl, schemasDigest } from './meta.ts';
import { runOutcome } from './outcome.ts';
import type { RunHalt } from './outcome.ts';
import { NO_CASE_RAN_IT, runVerdict, specCoverage, verdictText } from './verdict.ts';
import { applyWaivers, waiversUsed } from './waivers/apply.ts';
import { waiverFigures } from './waivers/figures.ts';
import type { WaiverSet, WaiverSummary } from './waivers/types.ts';

/** The run's figures as a report records them (lib/report/model.ts RunFigures): sent as requests, retried as retries. */
export interface RunStats {
  requests: number;
  retries: number;
  waitedMs: number;
  answered?: number;
  planned?: number;
}

export interface BuildInput {
  executions: CheckExecution[];
  stats: RunStats;
  baseUrl: string | undefined;
  embedded: boolean;
  profile: string;
  seed: number | null;
  runs: number;
  strict: boolean;
  destructive: boolean;
  startedAt: Date;
  finishedAt: Date;
  /** The run's waivers file (ISWC_WAIVERS) and the UTC day their expiry is judged against (the run's start). */
  waivers?: { set: WaiverSet; date: string };
  /** ISWC_PLAN and ISWC_BUDGET, recorded so that a diff can say two runs chose their cases differently. */
  plan?: RunPlan;
  /** The proxy (without credentials) and the extra header names (without values) of the run. */
  network?: RunNetwork;
  /** The profile the run used: its content digest and agency are recorded (what a certificate is bound to). */
  targetProfile?: TargetProfile;
  /** Why the run stopped sending before the end of its plan, when it did (or found disposable data consumed). */
  halt?: RunHalt;
  /** Disposable entries consumed (lib/report/consumed.ts): recorded for the next run against the target. */
  consumed?: ConsumedEntry[];
  /** ISWC_REQUIRE_ALL: a spec check not exercised fails the run (its exit code). */
  requireAll?: boolean;
  /** The report file and profile as the run's caller types them (replay commands). */
  replay?: ReplayFiles;
}

/**
 * The one place a run becomes a ConformanceReport: the reporter (live or from merged blob reports) and
 * the tests that build fixture reports in-process all call it, so every writer sees the same verdicts.
 * Waivers are applied here (lib/waivers/apply.ts), to the executions as the tests recorded them, and
 * every execution cites the sections of its own operation (lib/check/sections.ts).
 * When no base URL is known (a merge of blob reports in another process) it is taken from the first
 * recorded exchange, reduced to scheme, host and path.
 */
export function buildConformanceReport(input: BuildInput): ConformanceReport {
  let waivers: WaiverSummary | undefined;
  let judged = input.executions;
  if (input.waivers) {
    const applied = applyWaivers(input.executions, input.waivers.set.waivers, input.waivers.date);
    judged = applied.executions;
    waivers = { file: input.waivers.set.file, date: input.waivers.date, entries: applied.uses, figures: waiverFigures(applied.uses, applied.executions) };
  }
  // Skips the runner records carry their check's whole list of sections; each execution cites only its
  // operation's (the judge already narrows the others, and narrowing is idempotent).
  // Failures get their short id (replay <id>); nothing else carries one.
  const executions = sortExecutions(
    judged.map(({ failureId: _previous, ...e }) => ({ ...e, sections: executionSections(e.sections, e.operation), ...(hasFailureId(e) ? { failureId: failureId(e) } : {}) })),
  );
  const byLevel = tallyByLevel(executions);
  const gatingFailures = executions.filter((e) => e.verdict === 'fail' && gating(e.level, input.strict)).length;
  const measured = specCoverage(executions);
  // Checks no test reached before the run stopped: say so rather than "no case ran it".
  const coverage =
    input.halt && input.halt.kind !== 'target-unusable' && input.halt.kind !== 'data-consumed'
      ? { ...measured, notExercised: measured.notExercised.map((n) => ({ ...n, reasons: n.reasons.map((r) => (r === NO_CASE_RAN_IT ? `not reached: ${input.halt?.reason ?? ''}` : r)) })) }
      : measured;
  let baseUrl = safeBaseUrl(input.baseUrl);
  if (baseUrl === null) {
    const url = executions.find((e) => e.exchange)?.exchange?.request.url;
    if (url) {
      try {
        baseUrl = safeBaseUrl(new URL(url).origin);
      } catch {
        baseUrl = null;
      }
    }
  }
  const meta: RunMeta = {
    harnessVersion: HARNESS_VERSION,
    documentDigest: documentDigest(),
    schemasDigest: schemasDigest(),
    baseUrl,
    embedded: input.embedded,
    profile: input.profile,
    seed: input.seed,
    runs: input.runs,
    strict: input.strict,
    destructive: input.destructive,
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    requests: input.stats.requests,
    retries: input.stats.retries,
    waitedMs: Math.round(input.stats.waitedMs),
    ...(input.stats.answered !== undefined ? { answered: input.stats.answered } : {}),
    ...(input.stats.planned !== undefined ? { planned: input.stats.planned } : {}),
    ...(input.plan ? { plan: input.plan } : {}),
    ...(input.network ? { network: input.network } : {}),
    ...(input.replay ? { replay: input.replay } : {}),
    ...(input.consumed && input.consumed.length > 0 ? { consumed: input.consumed } : {}),
    ...(input.targetProfile ? { profileDigest: profileDigest(input.targetProfile), agency: input.targetProfile.agency } : {}),
    ...(input.targetProfile && formatsLabel(input.targetProfile) !== undefined ? { formats: [...input.targetProfile.formats] } : {}),
    waiversDigest: input.waivers ? waiversDigest(input.waivers.set) : null,
  };
  const summary: ConformanceReport['summary'] = {
    byLevel,
    gatingFailures,
    verdict: runVerdict(gatingFailures, coverage, input.halt),
    verdictText: verdictText(gatingFailures, coverage, waiversUsed(executions), input.halt ? { ...input.halt, requests: input.stats.requests } : undefined),
    coverage,
    ...(waivers ? { waivers } : {}),
    outcome: runOutcome(input.halt, gatingFailures > 0 || (input.requireAll === true && coverage.notExercised.length > 0)),
  };
  return { meta, summary, executions };
}

export { executionKey } from './identity.ts';
