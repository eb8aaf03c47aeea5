/**
 * How a run ended, and the exit code that follows: the one mapping every command uses (the run command
 * and certify read it back from conformance.json; the in-process pipeline computes it the same way).
 *
 * The numbers are those of `EXIT` in lib/cli/command.ts (a test holds them equal): this stage may not
 * import the command line.
 */

/** How a run ended. */
export type RunStatus = 'completed' | 'interrupted' | 'target-unusable' | 'max-duration' | 'budget' | 'data-consumed';

/** Why a run stopped sending before the end of its plan. */
export interface RunHalt {
  kind: Exclude<RunStatus, 'completed'>;
  /** In words, e.g. "interrupted by SIGINT", "the target refused the key on every request: …". */
  reason: string;
}

/** The exit codes a run can end with (see EXIT in lib/cli/command.ts). */
export const OUTCOME_EXIT = Object.freeze({ conformant: 0, notConformant: 1, targetUnusable: 3, interrupted: 130 } as const);
export type OutcomeExitCode = (typeof OUTCOME_EXIT)[keyof typeof OUTCOME_EXIT];

/** `summary.outcome` of conformance.json. */
export interface RunOutcome {
  status: RunStatus;
  /** Why the run did not complete its plan (absent when it did). */
  reason?: string;
  /** The exit code the run implies: 0 conformant, 1 not conformant, 3 target unusable, 130 interrupted. */
  exitCode: OutcomeExitCode;
}

/** Of several halts (one per shard, or per test), the one that says most: the target first, then a signal, then the time limit, then the budget. */
export function firstHalt(halts: ReadonlyArray<RunHalt | undefined>): RunHalt | undefined {
  const order: ReadonlyArray<RunHalt['kind']> = ['target-unusable', 'interrupted', 'max-duration', 'budget'];
  for (const kind of order) {
    const found = halts.find((h) => h?.kind === kind);
    if (found) return found;
  }
  return undefined;
}

/**
 * The outcome of a run: a target found unusable exits 3 and an interrupted run 130, whatever was judged
 * before; otherwise (completed, or stopped at its time limit or its request budget: a partial run) 1 when the run fails
 * (a gating failure, or with ISWC_REQUIRE_ALL=1 a spec check not exercised), else 0.
 */
export function runOutcome(halt: RunHalt | undefined, fails: boolean): RunOutcome {
  if (halt?.kind === 'target-unusable') return { status: halt.kind, reason: halt.reason, exitCode: OUTCOME_EXIT.targetUnusable };
  if (halt?.kind === 'interrupted') return { status: halt.kind, reason: halt.reason, exitCode: OUTCOME_EXIT.interrupted };
  // Disposable entries an earlier run consumed (lib/report/consumed.ts): what needed them was not judged,
  // so the run cannot say the target conforms; a failure elsewhere still says it does not.
  if (halt?.kind === 'data-consumed') return { status: halt.kind, reason: halt.reason, exitCode: fails ? OUTCOME_EXIT.notConformant : OUTCOME_EXIT.targetUnusable };
  const exitCode = fails ? OUTCOME_EXIT.notConformant : OUTCOME_EXIT.conformant;
  return halt ? { status: halt.kind, reason: halt.reason, exitCode } : { status: 'completed', exitCode };
}

/** The outcome of a report written before outcomes were recorded: completed, its exit code from its verdict. */
export function outcomeOf(summary: { outcome?: RunOutcome; verdict: string }): RunOutcome {
  return summary.outcome ?? { status: 'completed', exitCode: summary.verdict === 'not conformant' ? OUTCOME_EXIT.notConformant : OUTCOME_EXIT.conformant };
}
