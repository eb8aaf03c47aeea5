import type { ChoiceId } from '../../server/choices.ts';
import { choicesAroundFault, isBlind } from '../../server/choice-space.ts';
import type { FaultExclusion } from '../../server/choice-space.ts';
import { FAULTS } from '../../server/faults.ts';
import type { Fault } from '../../server/faults.ts';
import { dealFaults, drawCombinations, inCatalogueOrder } from './combinations.ts';
import { explainingRegression } from './regressions.ts';
import type { ChoiceRegression } from './regressions.ts';
import { shrinkList } from './shrink.ts';
import { readProofs } from '../selfcheck/fault-proofs.ts';
import { failureKey, trial } from './trial.ts';
import type { GatingFailure, TrialOptions, TrialResult } from './trial.ts';

/** A fault tried behind the choices of one combination. */
export interface FaultTrial {
  fault: string;
  /** The combination's choices the fault was tried behind (all but those declared to hide it). */
  kept: ChoiceId[];
  /** Choices left out for this fault, each with the declared exclusion that says why. */
  dropped: Array<{ choice: ChoiceId; exclusion: FaultExclusion }>;
  /** Checks whose gating failures (not failing on the clean server of the combination) caught the fault. */
  caughtBy: string[];
  /** What caught it: the fault's proof alone, the smoke plan, or the whole suite (which also ran when nothing did). */
  by: TrialStage;
  ms: number;
}

export interface CombinationResult {
  index: number;
  choices: ChoiceId[];
  clean: TrialResult;
  faults: FaultTrial[];
}

/** A clean run that fails: the harness fails a server that only makes legitimate choices. */
export const isFalseAlarm = (clean: TrialResult): boolean => clean.failures.length > 0 || clean.halt?.kind === 'target-unusable';

const faultById = (id: string): Fault => {
  const fault = FAULTS.find((f) => f.id === id);
  if (!fault) throw new Error(`Unknown fault ${id}`);
  return fault;
};

/** The runs a fault's trial goes through, cheapest first, until one catches it. */
export type TrialStage = 'proof' | 'smoke' | 'full';

/**
 * A fault behind some choices: its proof first (the fewest cases that catch it on the reference choices,
 * tests/expectations/fault-proofs.json, or the cases given), then the smoke plan (it catches every fault of
 * the catalogue on the reference choices, at a tenth of the cost), the whole suite when neither catches it.
 * What the clean server already fails does not count as catching it.
 */
export async function faultTrial(choices: readonly ChoiceId[], fault: Fault, options: TrialOptions, cleanFailures: ReadonlySet<string> = new Set(), proof: readonly string[] | null | undefined = readProofs()[fault.id]): Promise<{ caughtBy: string[]; by: TrialStage; ms: number }> {
  const caughtIn = (r: TrialResult): string[] => [...new Set(r.failures.filter((f) => !cleanFailures.has(failureKey(f))).map((f) => f.checkId))].sort();
  let ms = 0;
  const stages: Array<[TrialStage, TrialOptions]> = [
    ...(proof && proof.length > 0 ? [['proof', { ...options, plan: 'full', cases: new Set(proof) }] as [TrialStage, TrialOptions]] : []),
    ['smoke', { ...options, plan: 'smoke' }],
    ['full', { ...options, plan: 'full' }],
  ];
  for (const [by, stageOptions] of stages) {
    const run = await trial(choices, fault, stageOptions);
    ms += run.ms;
    const caughtBy = caughtIn(run);
    if (caughtBy.length > 0 || by === 'full') return { caughtBy, by, ms };
  }
  throw new Error('unreachable: the whole suite ends every trial');
}

/** Runs one combination: the clean server (strict, whole suite), then each fault behind the choices that do not hide it. */
export async function runCombination(index: number, choices: readonly ChoiceId[], faults: readonly string[], options: TrialOptions): Promise<CombinationResult> {
  const clean = await trial(choices, null, { ...options, plan: 'full' });
  const known = new Set(clean.failures.map(failureKey));
  const tried: FaultTrial[] = [];
  for (const id of faults) {
    const { kept, dropped } = choicesAroundFault(id, choices);
    tried.push({ fault: id, kept, dropped, ...(await faultTrial(kept, faultById(id), options, known)) });
  }
  return { index, choices: [...choices], clean, faults: tried };
}

export interface SweepPlan {
  seed: number;
  count: number;
  faultsPerCombination: number;
  maxChoices?: number;
}

export interface PlannedCombination {
  index: number;
  choices: ChoiceId[];
  faults: string[];
}

/** The combinations of a sweep and the faults dealt to each (the blind ones to none), all from its seed. */
export function planSweep(plan: SweepPlan, faults: readonly Pick<Fault, 'id'>[] = FAULTS): PlannedCombination[] {
  const combos = drawCombinations(plan.seed, plan.count, plan.maxChoices);
  // A blind fault is caught by nothing whatever the choices (server/choice-space.ts): dealing it would only report a known miss.
  const dealt = dealFaults(
    faults.filter((f) => !isBlind(f.id)).map((f) => f.id),
    plan.seed,
    plan.count,
    plan.faultsPerCombination,
  );
  return combos.map((choices, index) => ({ index, choices, faults: dealt[index] ?? [] }));
}

export interface Shrunk {
  /** The fewest choices of the combination that still reproduce it. */
  choices: ChoiceId[];
  /** What the shrunk combination fails (for a false alarm). */
  failures: GatingFailure[];
  tries: number;
  capped: boolean;
}

/** The fewest choices of a combination that still make the harness fail the same check on the same case. */
export async function shrinkFalseAlarm(choices: readonly ChoiceId[], target: GatingFailure | 'halt', options: TrialOptions, maxTries?: number): Promise<Shrunk> {
  const reproduces = (r: TrialResult): boolean => (target === 'halt' ? r.halt?.kind === 'target-unusable' : r.failures.some((f) => failureKey(f) === failureKey(target)));
  const { minimal, tries, capped } = await shrinkList(choices, async (subset) => reproduces(await trial(subset, null, { ...options, plan: 'full' })), maxTries !== undefined ? { maxTries } : {});
  const final = await trial(minimal, null, { ...options, plan: 'full' });
  return { choices: inCatalogueOrder(minimal), failures: final.failures, tries, capped };
}

/** The fewest choices of a combination behind which a fault still goes uncaught. */
export async function shrinkMiss(choices: readonly ChoiceId[], faultId: string, options: TrialOptions, maxTries?: number): Promise<Shrunk> {
  const fault = faultById(faultId);
  const missed = async (subset: readonly ChoiceId[]): Promise<boolean> => {
    const clean = await trial(subset, null, { ...options, plan: 'full' });
    const run = await faultTrial(choicesAroundFault(fault.id, subset).kept, fault, options, new Set(clean.failures.map(failureKey)));
    return run.caughtBy.length === 0;
  };
  const { minimal, tries, capped } = await shrinkList(choices, missed, maxTries !== undefined ? { maxTries } : {});
  return { choices: inCatalogueOrder(minimal), failures: [], tries, capped };
}

/** What a child of the sweep is asked to do. */
export type SweepJob =
  | { kind: 'combination'; index: number; choices: ChoiceId[]; faults: string[] }
  | { kind: 'shrink-false-alarm'; choices: ChoiceId[]; target: GatingFailure | 'halt' }
  | { kind: 'shrink-miss'; choices: ChoiceId[]; fault: string };

export type SweepJobResult = { kind: 'combination'; result: CombinationResult } | { kind: 'shrunk'; result: Shrunk };

export async function runSweepJob(job: SweepJob, options: TrialOptions): Promise<SweepJobResult> {
  switch (job.kind) {
    case 'combination':
      return { kind: 'combination', result: await runCombination(job.index, job.choices, job.faults, options) };
    case 'shrink-false-alarm':
      return { kind: 'shrunk', result: await shrinkFalseAlarm(job.choices, job.target, options) };
    case 'shrink-miss':
      return { kind: 'shrunk', result: await shrinkMiss(job.choices, job.fault, options) };
  }
}

/** A combination the harness got wrong: a false alarm (the clean server failed) or a fault it missed. */
export interface Finding {
  kind: 'false-alarm' | 'miss';
  index: number;
  /** The combination (for a miss: the choices the fault was tried behind). */
  choices: ChoiceId[];
  fault?: string;
  /** For a false alarm: the first failure (or 'halt' for a run that found the target unusable). */
  target?: GatingFailure | 'halt';
  /** The regression set that already accounts for it, if any. */
  explainedBy?: ChoiceRegression;
  shrunk?: Shrunk;
}

/**
 * The findings of a combination's result, each matched against the regression sets that still fail (marked
 * `known`): a fixed set whose choices a failing combination holds does not account for it (what failed
 * there is another cause, to be shrunk and found).
 */
export function findingsOf(result: CombinationResult, sets: readonly ChoiceRegression[]): Finding[] {
  const regressions = sets.filter((r) => r.known !== undefined);
  const out: Finding[] = [];
  if (isFalseAlarm(result.clean)) {
    const first: GatingFailure | undefined = result.clean.failures[0];
    const target: GatingFailure | 'halt' = first ?? 'halt';
    const explainedBy = explainingRegression(regressions, { ...(first ? { checkId: first.checkId } : {}), choices: result.choices });
    out.push({ kind: 'false-alarm', index: result.index, choices: result.choices, target, ...(explainedBy ? { explainedBy } : {}) });
  }
  for (const t of result.faults) {
    if (t.caughtBy.length > 0) continue;
    const explainedBy = explainingRegression(regressions, { fault: t.fault, choices: t.kept });
    out.push({ kind: 'miss', index: result.index, choices: t.kept, fault: t.fault, ...(explainedBy ? { explainedBy } : {}) });
  }
  return out;
}

/** A one-line name of what a finding is about: the fault missed, or the check that failed. */
export function findingSubject(f: Pick<Finding, 'kind' | 'fault' | 'target'>): string {
  if (f.kind === 'miss') return `fault ${f.fault ?? '?'} missed`;
  const target = f.target;
  return target === undefined || target === 'halt' ? 'the run found the target unusable' : `${target.checkId} failed (${target.caseId}, ${target.step})`;
}
