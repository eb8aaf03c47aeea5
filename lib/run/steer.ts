import type { Exchange } from '../contract/exchange.ts';
import type { Format } from '../contract/codec/index.ts';
import type { CaseFormat, Step } from '../generate/case.ts';
import { CHECK_MANIFEST } from '../generate/checks.generated.ts';
import type { CheckId } from '../generate/checks.generated.ts';
import type { PlannedCase } from './planned.ts';
import { operation } from '../contract/operations.ts';
import { habitCell, queryValue } from './tells.ts';
import { checksTaken } from './parts.ts';

/**
 * A plan that learns the target (issue 31). Under a request budget, what the first answers show steers the
 * rest of the budget away from cases that can tell nothing on this target, to the next cases of the
 * ranking that can. The traits are learned from the answers only (never from what the reference server
 * does), each from requests whose answer the document fixes:
 *
 * - **a format it does not serve**: valid bodies of one format, which the case demands be accepted, are
 *   answered 415 (or 400) again and again while the other format's are accepted: every later request in
 *   that format gets the same answer, which the cases that saw it have already reported;
 * - **data looked up first**: requests naming an unknown preferred ISWC with something else wrong are
 *   answered 404 "ISWC not found" (a right answer, 4.2): every case whose requests all name an unknown
 *   preferred ISWC is then answered 404 whatever else it sends, and passes without showing anything;
 * - **its habits on texts and Content-Type**: what an `observed` check records is recorded once per
 *   operation and format; a case that judges nothing else (no spec or http check of its own) and records
 *   only habits already recorded tells nothing new.
 *
 * Steering never pays for itself with a spec check: a case is steered away only when every spec check it
 * exercises was exercised already by a case that ran.
 */

/** What the answers so far show of the target. */
export interface TargetTraits {
  /** Body formats the target does not serve, with what shows it. */
  notServed: Partial<Record<Format, string>>;
  /** The target answers 404 to a request naming an unknown preferred ISWC, whatever else is wrong in it. */
  looksUpFirst?: string;
  /** Observed check × operation × format cells recorded already. */
  habits: ReadonlySet<string>;
}

/** Answers that show a format is not served: "unsupported media type", or a refusal of a body the case demands be accepted. */
const REFUSED_FORMAT = new Set([400, 415]);
/** Evidence needed for a trait: this many answers, and none against it. */
const EVIDENCE = 2;

/** Checks that demand the request be accepted: a refusal of it says the body was not read. */
const ACCEPTANCE: ReadonlySet<string> = new Set(['status.success', 'limit.accepted']);


/** Learns the target's traits from every judged exchange of a run. */
export class TargetLearner {
  private readonly refused: Record<Format, number> = { json: 0, xml: 0 };
  private readonly accepted: Record<Format, number> = { json: 0, xml: 0 };
  private lookedUpFirst = 0;
  private notLookedUpFirst = 0;
  private readonly habits = new Set<string>();

  constructor(private readonly unknownIswcs: readonly string[]) {}

  observe(step: Step, format: CaseFormat, exchange: Exchange): void {
    const status = exchange.response?.status;
    if (status === undefined) return;
    const body = step.request.body !== undefined && format !== 'none' && step.probe === undefined;
    if (body && step.expect.some((e) => ACCEPTANCE.has(e.checkId))) {
      if (status >= 200 && status < 300) this.accepted[format] += 1;
      else if (REFUSED_FORMAT.has(status)) this.refused[format] += 1;
    }
    // A request naming an unknown preferred ISWC that the case expects refused for something else.
    const preferred = queryValue(step, 'preferredIswc');
    if (preferred !== undefined && this.unknownIswcs.includes(preferred) && step.expect.some((e) => e.checkId !== 'status.not-found' && CHECK_MANIFEST[e.checkId].level !== 'observed')) {
      if (status === 404) this.lookedUpFirst += 1;
      else if (status >= 400 && status < 500) this.notLookedUpFirst += 1;
    }
    for (const e of step.expect) if (CHECK_MANIFEST[e.checkId].level === 'observed') this.habits.add(habitCell(e.checkId, step.operation, format));
  }

  traits(): TargetTraits {
    const notServed: TargetTraits['notServed'] = {};
    for (const [format, other] of [
      ['json', 'xml'],
      ['xml', 'json'],
    ] as const) {
      if (this.refused[format] >= EVIDENCE && this.accepted[format] === 0 && this.accepted[other] > 0) {
        notServed[format] = `valid ${format.toUpperCase()} bodies the cases demand be accepted were refused ${this.refused[format]} times and none accepted, while ${other.toUpperCase()} ones were`;
      }
    }
    return {
      notServed,
      ...(this.lookedUpFirst >= EVIDENCE && this.notLookedUpFirst === 0 ? { looksUpFirst: `${this.lookedUpFirst} requests naming an unknown preferred ISWC with something else wrong were answered 404, none otherwise` } : {}),
      habits: new Set(this.habits),
    };
  }
}


/**
 * Why a case tells nothing on a target with these traits, or undefined when it may tell something. The
 * spec checks already exercised in the run guard it: a case that exercises one not yet exercised runs.
 */
export function tellsNothing(p: PlannedCase, traits: TargetTraits, exercised: ReadonlySet<CheckId>): string | undefined {
  const tells = p.shape.tells;
  const newSpec = checksTaken(p.shape, p.parts).some((c) => CHECK_MANIFEST[c].level === 'spec' && !exercised.has(c));
  if (newSpec) return undefined;
  const format = p.format === 'none' ? undefined : traits.notServed[p.format];
  if (format !== undefined) return `steered away: ${format}: the target serves no ${p.format.toUpperCase()} (say so ahead with the profile's "formats"), and every ${p.format.toUpperCase()} request would be answered alike`;
  if (tells?.unknownPreferredOnly && traits.looksUpFirst !== undefined) return `steered away: the target looks the preferred ISWC up first (${traits.looksUpFirst}), and every request of this case names one that does not exist`;
  if (tells && !tells.judgesMore && tells.habits.length > 0 && tells.habits.every((h) => traits.habits.has(h))) return 'steered away: it records only what the run has recorded already of this target (observed checks), and judges nothing else';
  return undefined;
}

/**
 * The steering of one run under a request budget: before each case starts it says whether the case runs,
 * and runs the cases next in the ranking (standby, PlannedCase.standby) with what steering freed; after
 * each it learns from what the case saw. Deterministic given the answers: every decision is made from the
 * answers so far and the plan.
 */
export class Steering {
  readonly learner: TargetLearner;
  private readonly exercised = new Set<CheckId>();
  private readonly decided = new Set<string>();

  constructor(
    private readonly planned: readonly PlannedCase[],
    unknownIswcs: readonly string[],
    /** The request budget (a shard's share of it). */
    private readonly budget: () => number,
    /** Requests sent so far plus what the cases in flight may still send (lib/run/budget-gate.ts). */
    private readonly committed: () => number,
    /** Requests a case is estimated to send. */
    private readonly estimate: (p: PlannedCase) => number,
  ) {
    this.learner = new TargetLearner(unknownIswcs);
  }

  /**
   * Whether a case runs: a case the plan left out runs as planned (its skip is recorded); one that tells
   * nothing on this target is steered away with the reason; a standby case runs when what is left of the
   * budget covers it after every case chosen and not started, and every standby case ranked before it.
   */
  decide(p: PlannedCase): { run: true; planned: PlannedCase } | { run: false; reason: string } {
    if (this.decided.has(p.key)) return { run: true, planned: p };
    this.decided.add(p.key);
    if (p.skipReason !== undefined && p.standby === undefined) return { run: true, planned: p };
    const why = tellsNothing(p, this.learner.traits(), this.exercised);
    if (why !== undefined) return { run: false, reason: why };
    if (p.standby === undefined) return { run: true, planned: p };
    const ahead = this.pending((q) => (q.skipReason === undefined && q.standby === undefined) || (q.standby !== undefined && q.standby < (p.standby ?? 0)));
    if (this.committed() + ahead + this.estimate(p) > this.budget()) return { run: false, reason: p.skipReason ?? 'not in the request budget' };
    const { skipReason: _leftOut, ...promoted } = p;
    return { run: true, planned: promoted };
  }

  /** What a case that ran exercised (its spec checks, judged or not). */
  ran(executions: ReadonlyArray<{ checkId: string; verdict: string }>): void {
    for (const e of executions) if (e.verdict !== 'skip' && e.checkId in CHECK_MANIFEST) this.exercised.add(e.checkId as CheckId);
  }

  /** Requests the undecided cases that match are estimated to send, less those steering would leave out now. */
  private pending(match: (q: PlannedCase) => boolean): number {
    const traits = this.learner.traits();
    let total = 0;
    for (const q of this.planned) {
      if (this.decided.has(q.key) || !match(q)) continue;
      if (tellsNothing(q, traits, this.exercised) !== undefined) continue;
      total += this.estimate(q);
    }
    return total;
  }
}

/**
 * The order to run tests in ahead of Playwright. When the plan steers (`formats`), for each body format the
 * first test with a chosen case that demands a valid body be accepted goes first, so that whether the target
 * serves the format is known before the budget is spent on it. Then, in every run, the first test on each path
 * those leave out, so that the first answers come from every path (a wrong base path is told from 404s on two
 * paths, one a run start: lib/contract/routes.ts; a plan that begins with the run notification's cases sent a
 * dozen of them first, a minute at 10 a minute). The rest keep their order.
 */
export function probesFirst<T>(tests: readonly T[], casesOf: (test: T) => readonly PlannedCase[], formats = true): T[] {
  const first: T[] = [];
  for (const format of formats ? (['json', 'xml'] as const) : []) {
    const probe = tests.find((t) => !first.includes(t) && casesOf(t).some((p) => p.format === format && p.skipReason === undefined && p.shape.checks.includes('status.success')));
    if (probe !== undefined) first.push(probe);
  }
  const pathsOf = (t: T): string[] => casesOf(t).flatMap((p) => (p.skipReason === undefined && p.def.operation ? [operation(p.def.operation).path] : []));
  const covered = new Set(first.flatMap(pathsOf));
  for (const t of tests) {
    if (first.includes(t)) continue;
    const paths = pathsOf(t);
    if (!paths.some((path) => !covered.has(path))) continue;
    first.push(t);
    for (const path of paths) covered.add(path);
  }
  return [...first, ...tests.filter((t) => !first.includes(t))];
}
