import { allChecks } from '../check/registry.ts';
import { isFormatNotServedReason } from '../contract/profile/types.ts';
import type { CheckExecution } from '../run/execution.ts';
import type { RunHalt } from './outcome.ts';

/** Why a spec check has no execution at all in a run. */
export const NO_CASE_RAN_IT = 'no case ran it';

export interface NotExercised {
  checkId: string;
  sections: string[];
  /** The skip reasons of its executions, deduplicated; NO_CASE_RAN_IT when it has none. */
  reasons: string[];
}

/**
 * Each case that could have exercised a check says what it lacked ("needs 3 more merges", or "needs 24 more
 * merges (12 of them with at least 1 agencyWorks)"); any one of them would do, so of the counted needs only
 * the smallest of each kind is worth saying (on a tie, the one without conditions). Other reasons are kept
 * as they are, in their order.
 */
export function smallestNeeds(reasons: readonly string[]): string[] {
  const smallest = new Map<string, { count: number; reason: string; plain: boolean }>();
  const others: string[] = [];
  for (const reason of reasons) {
    const m = /^needs (\d+) more (\w+)( \(.*\))?$/.exec(reason);
    if (!m?.[1] || !m[2]) {
      others.push(reason);
      continue;
    }
    const count = Number(m[1]);
    const plain = m[3] === undefined;
    const had = smallest.get(m[2]);
    if (!had || count < had.count || (count === had.count && plain && !had.plain)) smallest.set(m[2], { count, reason, plain });
  }
  return [...others, ...[...smallest.values()].map((n) => n.reason)];
}

/**
 * The reasons a case gives when the run, not the profile, left it out: a request budget left it out (or the
 * parts that show a check), or the run stopped before it was sent (`not sent: …`: interrupted, its time
 * limit, its budget spent, the target unusable).
 */
const RUN_LEFT_IT_OUT = /^(not in the request budget\b|not sent: )/;

/**
 * A check some case would have shown but for the budget or the run's end (that case had its entries) was
 * kept out by the run, not by the profile: what other cases lacked ("needs 12 more merges") would not bring
 * it in, and read as advice it sends a user adding data a larger budget, another slice or a run to its end
 * needs instead. So the needs go; they stay where no case of the check had its entries.
 */
export function budgetBeforeNeeds(reasons: readonly string[]): string[] {
  return reasons.some((r) => RUN_LEFT_IT_OUT.test(r)) ? reasons.filter((r) => !r.startsWith('needs ')) : [...reasons];
}

/**
 * A check left out in the format the target does not serve and for want of data in the other says only
 * the latter: the format is the target's, the data the profile's to add.
 */
function actionable(reasons: string[]): string[] {
  const rest = reasons.filter((r) => !isFormatNotServedReason(r));
  return rest.length > 0 ? rest : reasons;
}

/** How much of the document a run judged: M spec checks in the registry, N of them exercised. */
export interface SpecCoverage {
  /** M: spec checks in the registry. */
  specChecks: number;
  /** N: spec checks with at least one execution that is not a skip (pass, fail or waived). */
  exercised: number;
  /** The M − N others, in registry order, each with why. */
  notExercised: NotExercised[];
}

/**
 * Which spec checks a run exercised, from its executions alone: a non-destructive run, a request budget,
 * the smoke plan or `--grep` leave some unexercised, and such a run must not read as a full pass.
 */
export function specCoverage(executions: readonly CheckExecution[]): SpecCoverage {
  const spec = allChecks().filter((c) => c.level === 'spec');
  const exercised = new Set<string>();
  const skipReasons = new Map<string, Set<string>>();
  for (const e of executions) {
    if (e.verdict === 'skip') {
      const reasons = skipReasons.get(e.checkId) ?? new Set<string>();
      reasons.add(e.skipReason ?? 'skipped, no reason given');
      skipReasons.set(e.checkId, reasons);
    } else if (e.incidental !== true) {
      // Judged where no step planned it: not counted, so that the run's figure is the plan's.
      exercised.add(e.checkId);
    }
  }
  const notExercised = spec
    .filter((c) => !exercised.has(c.id))
    .map((c) => ({ checkId: c.id, sections: [...c.sections], reasons: actionable(budgetBeforeNeeds(smallestNeeds([...(skipReasons.get(c.id) ?? [NO_CASE_RAN_IT])]))) }));
  return { specChecks: spec.length, exercised: spec.length - notExercised.length, notExercised };
}

/**
 * `conformant`: no gating failure and every spec check exercised; `partial`: no gating failure, some not
 * exercised; `not conformant`: a gating failure. A run that did not end on its own says so instead:
 * `target unusable` (unreachable, circuit breaker, the key refused on every request) and `interrupted`
 * (SIGINT or SIGTERM) say nothing of the target's conformance, whatever was judged before.
 */
export type RunVerdict = 'conformant' | 'partial' | 'not conformant' | 'target unusable' | 'interrupted';

export function runVerdict(gatingFailures: number, coverage: SpecCoverage, halt?: RunHalt): RunVerdict {
  if (halt?.kind === 'target-unusable') return 'target unusable';
  if (halt?.kind === 'interrupted') return 'interrupted';
  if (gatingFailures > 0) return 'not conformant';
  return coverage.exercised < coverage.specChecks ? 'partial' : 'conformant';
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * What the verdict reads in the console, the HTML badge, JUnit and conformance.json: `not conformant`,
 * `conformant`, `conformant on N of M spec checks`, each of the last two `with K waivers` when K waivers
 * waived failures (waiversUsed: the one figure every report gives for waivers).
 */
export function verdictText(gatingFailures: number, coverage: SpecCoverage, waived: number, halt?: { kind: RunHalt['kind']; reason: string; requests: number }): string {
  if (halt?.kind === 'target-unusable') return `target unusable: ${halt.reason}`;
  const judged = (): string => {
    if (gatingFailures > 0) return 'not conformant';
    const base = coverage.exercised < coverage.specChecks ? `conformant on ${coverage.exercised} of ${coverage.specChecks} spec checks` : 'conformant';
    return waived > 0 ? `${base} with ${plural(waived, 'waiver')}` : base;
  };
  if (halt?.kind === 'interrupted') return `${halt.reason} after ${plural(halt.requests, 'request')} (so far: ${judged()})`;
  return judged();
}
