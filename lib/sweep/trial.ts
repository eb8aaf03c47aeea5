import { gating } from '../check/gating.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import { runSuiteWithOutcome } from '../engine/pipeline.ts';
import type { RunHalt } from '../report/outcome.ts';
import type { PlanName } from '../run/budget.ts';
import type { CheckExecution } from '../run/execution.ts';
import type { ChoiceId } from '../../server/choices.ts';
import { profileForChoices } from '../../server/choice-space.ts';
import type { Fault } from '../../server/faults.ts';
import { startReferenceServer } from '../../server/index.ts';
import { caseKeyOf } from '../selfcheck/fault-proofs.ts';

/** A failure that fails a run, as the sweep compares them: the check, the case and the step. */
export interface GatingFailure {
  checkId: string;
  level: string;
  caseId: string;
  /** The planned case it failed in (PlannedCase key: the case and its format). */
  key: string;
  step: string;
  received?: string;
}

export interface TrialResult {
  failures: GatingFailure[];
  /** Why the run stopped sending, when it did (a target the run found unusable is a false alarm too). */
  halt?: RunHalt;
  ms: number;
}

export interface TrialOptions {
  key: string;
  /** The profile of the reference server's own choices; each combination's needs are applied to it. */
  profile: TargetProfile;
  /** How long a fault's run waits for each answer (a fault may hang: short). */
  timeoutMs: number;
  /**
   * How long a clean run waits for each answer: a clean server never hangs, so a wait it times out is the
   * machine's load, never a finding; long, so that a loaded machine does not make false alarms.
   */
  cleanTimeoutMs?: number;
  plan?: PlanName;
  /** fast-check seed of the properties (the run's seed). */
  seed?: number;
  /** Only these cases of the plan (PlannedCase keys): a fault's proof. */
  cases?: ReadonlySet<string>;
}

/** The wait for each answer of a clean server in a sweep (TrialOptions.cleanTimeoutMs). */
export const CLEAN_TIMEOUT_MS = 15_000;

/** Same check, case and step: the same failure. */
export const failureKey = (f: Pick<GatingFailure, 'checkId' | 'caseId' | 'step'>): string => `${f.checkId} ${f.caseId} ${f.step}`;

/**
 * One run of the whole suite, in this process, against a fresh reference server making `choices` (with the
 * fault, if any) and described by the profile those choices need. Strict for a clean server and for an
 * http-level fault, as the fault self-check runs them (lib/selfcheck/selfcheck.ts).
 */
export async function trial(choices: readonly ChoiceId[], fault: Pick<Fault, 'id' | 'level'> | null, options: TrialOptions): Promise<TrialResult> {
  const profile = profileForChoices(options.profile, choices);
  const strict = fault === null || fault.level === 'http';
  const started = Date.now();
  const keyOf = caseKeyOf(profile);
  const server = await startReferenceServer({ profile, key: options.key, choices, faults: fault ? [fault.id] : [] });
  try {
    const run = await runSuiteWithOutcome({
      baseUrl: server.url,
      key: options.key,
      profile,
      destructive: true,
      settings: { strict, ...(options.seed !== undefined ? { seed: options.seed } : {}) },
      timeoutMs: fault === null ? (options.cleanTimeoutMs ?? options.timeoutMs) : options.timeoutMs,
      ...(options.plan ? { plan: options.plan } : {}),
      ...(options.cases ? { filter: (p: { key: string }) => options.cases?.has(p.key) === true } : {}),
    });
    return {
      failures: run.executions.filter((e) => e.verdict === 'fail' && gating(e.level, strict)).map((e) => gatingFailure(e, keyOf(e))),
      ...(run.halt ? { halt: run.halt } : {}),
      ms: Date.now() - started,
    };
  } finally {
    await server.close();
  }
}

function gatingFailure(e: CheckExecution, key: string): GatingFailure {
  return { checkId: e.checkId, level: e.level, caseId: e.caseId, key, step: e.step, ...(e.received !== undefined ? { received: e.received.slice(0, 300) } : {}) };
}
