import type { Exchange, HttpClient } from '../contract/exchange.ts';
import type { CaseFormat, CaseReplay, Step } from '../generate/case.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import { CaseRun } from './case-run.ts';
import type { CheckExecution, Judge } from './execution.ts';
import type { PlannedCase } from './planned.ts';
import type { RunClient } from './http/client.ts';
import { checksLeftOut, leftOutParts } from './parts.ts';

export interface CaseOutcome {
  /** Why the case did not run at all (the plan's reason, or the tripped circuit breaker's). */
  skipReason?: string;
  executions: CheckExecution[];
  stats: CaseRun['stats'];
  exchanges: CaseRun['exchanges'];
  /** Changes to disposable entries the case undid, and whether each was shown undone (a reusable profile). */
  restored: CaseRun['restored'];
  /** The part each execution came from (core executions absent). */
  partOf: CaseRun['partOf'];
  /** Core executions judged after a part had sent something (CaseRun.afterParts). */
  afterParts: CaseRun['afterParts'];
  /**
   * Steps the case keeps for the run's end (CaseContext.atRunEnd, RunSettings.runEnd 'defer'): the caller
   * sends them once every other case has ended, and they add to the same executions, exchanges and stats.
   */
  atRunEnd?: () => Promise<void>;
}

export interface RunSettings {
  seed: number;
  runs: number;
  strict: boolean;
  /** Replaying one failure of the case (`replay <id>`): which of its generated inputs to send, if any. */
  replay?: CaseReplay;
  /** The profile's disposable entries are never recreated: only changes a run undoes (lib/run/restore.ts). */
  reusable?: boolean;
  /** Read-back steps (CaseContext.atRunEnd) kept for the run's end, or sent at once (default). */
  runEnd?: 'defer' | 'inline';
  /**
   * Whose run starts the ledger of runIds compares a start with (lib/run/run-id-ledger.ts): the whole run's
   * (default), or the case's own, for the plans' measurement, which credits each case with what it catches alone.
   */
  runIdScope?: 'run' | 'case';
}

/** Runs one planned case and returns its check executions (a skipped case records the reason for each of its checks). */
export async function runPlannedCase(
  p: PlannedCase,
  client: HttpClient | RunClient,
  profile: TargetProfile,
  settings: RunSettings,
  judge: Judge,
  watch?: (run: CaseRun) => void,
  observe?: (step: Step, format: CaseFormat, exchange: Exchange) => void,
): Promise<CaseOutcome> {
  // A case the plan sized (a request budget) must not spend more on shrinking a failure.
  const run = new CaseRun(
    p.def,
    { format: p.format, profile, entries: p.entries, ...settings, runs: p.runs ?? settings.runs, noShrink: p.runs !== undefined, ...(p.parts !== undefined ? { parts: p.parts } : {}) },
    client,
    judge,
    observe,
  );
  watch?.(run);
  // Once the circuit breaker has tripped or the run was stopped, a case that has not started is skipped with the reason.
  const halted = 'unusable' in client ? (client.unusable() ?? client.stopped() ?? client.budgetSpent()) : undefined;
  const skipReason = p.skipReason ?? (halted !== undefined ? `not sent: ${halted}` : undefined);
  if (skipReason !== undefined) run.skip(skipReason, p.shape.checks);
  else {
    // Checks the profile's data does not let this case reach: reported skipped, with what is lacking.
    for (const s of p.checkSkips ?? []) run.skip(s.reason, s.checks);
    // Checks only the parts the plan left out exercise: reported skipped, with what left them out.
    const leftOut = checksLeftOut(p.shape, p.parts);
    if (leftOut.length > 0) run.skip(`not in the ${p.partsLeftOutBy ?? 'request budget'}: the parts ${leftOutParts(p.shape, p.parts).map((part) => `"${part.title}"`).join(', ')} were left out`, leftOut);
    try {
      await p.def.run(run);
    } finally {
      // Every run the case started is ended, at the latest now (polite on staging; one open run at a time).
      await run.finish();
    }
  }
  return {
    ...(skipReason !== undefined ? { skipReason } : {}),
    executions: run.executions,
    stats: run.stats,
    exchanges: run.exchanges,
    restored: run.restored,
    partOf: run.partOf,
    afterParts: run.afterParts,
    ...(run.waitsForRunEnd ? { atRunEnd: () => run.sendAtRunEnd() } : {}),
  };
}

/** Maps with at most `limit` calls in flight; results keep the input order. */
export async function inParallel<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      out[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
