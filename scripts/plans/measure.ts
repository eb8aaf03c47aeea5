/**
 * Measures what each case catches: the whole suite, every case in every format, against the reference
 * server with each fault of its catalogue (and clean with each set of legitimate choices, where nothing
 * may fail), at several seeds. A generated case runs as it would under a request budget (it stops at its
 * first failing input, no shrinking), so the requests it sent say how many runs it needed.
 */
import { gating } from '../../lib/check/gating.ts';
import { createJudge } from '../../lib/check/judge.ts';
import { keySourceDbs } from '../../lib/contract/agency.ts';
import type { TargetProfile } from '../../lib/contract/profile/types.ts';
import { reusableRun } from '../../lib/contract/profile/types.ts';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { planSuite } from '../../lib/run/plan.ts';
import type { PlannedCase } from '../../lib/run/planned.ts';
import { inParallel, runPlannedCase } from '../../lib/run/runner.ts';
import type { Judge } from '../../lib/run/execution.ts';
import { EMBEDDED_KEY, profileForChoiceSet, startReferenceServer } from '../../server/index.ts';
import type { ChoiceId, ChoiceSetName } from '../../server/index.ts';
import { profileForChoices } from '../../server/choice-space.ts';

/** A failing step of a case's core sent after a part: it may rest on that part, so it shows nothing of the core alone. */
export const AFTER_PARTS = '\u0000after-parts';

/**
 * Per-request timeout of a measurement: far above the reference server's answer time, so that a loaded
 * machine does not turn a slow answer into a false alarm (only hang-on-unsupported-media waits it out).
 */
const MEASURE_TIMEOUT_MS = 10_000;

/** Runs per generated case in a measurement: the default ISWC_RUNS. */
export const MEASURED_RUNS = 100;

export interface CaseResult {
  /** The case had a gating failure (spec; http too against an http-level fault, as a strict run would). */
  caught: boolean;
  requests: number;
  /** Gating failures that came from checks, for the clean runs' error message. */
  failures: string[];
  /**
   * Of a case with parts: the parts whose steps failed ('' for the core, AFTER_PARTS for a step of the core
   * judged after a part had sent something), when it caught something.
   */
  parts?: string[];
}

export interface Target {
  /** Destructive checks on (the disposable entries are consumed) or off. */
  destructive: boolean;
  fault?: string;
  /** The fault's level: an http-level fault is caught in a strict run. */
  strict: boolean;
  /** A set of legitimate choices by name, or choice ids (a false alarm's search for the choice behind it). */
  choices?: ChoiceSetName | readonly ChoiceId[];
  /**
   * Only the cases that judge this operation run (the others are recorded as catching nothing): a lenient
   * family fault (server/lenient.ts) changes how one operation reads its input, so no other case can show it.
   */
  operation?: string;
}

export interface MeasureOptions {
  /** Only the planned cases this keeps (a false alarm's case, run again). */
  only?: (key: string) => boolean;
  /** The judge of the run (tests give one that adds a check of their own). */
  judge?: Judge;
  /**
   * Of cases with parts, the parts each runs (a selection, closed under `after`; [] the core alone), in place
   * of the whole case: what the measurement asks again of a catch that may rest on what other parts sent
   * (attributionToVerify).
   */
  selections?: Readonly<Record<string, readonly string[]>>;
}

/** The planned suite of a profile in a mode, every generated case at MEASURED_RUNS without shrinking. */
export async function measuredPlan(profile: TargetProfile, destructive = true): Promise<PlannedCase[]> {
  const planned = await planSuite(profile, { destructive, runs: MEASURED_RUNS });
  // A set `runs` is what a request budget gives: a failing property stops at its first failing input.
  for (const p of planned) if (p.shape.generated) p.runs = MEASURED_RUNS;
  return planned;
}

/** One run of the whole suite against one server; per case key, whether it caught something and what it sent. */
export async function measure(base: TargetProfile, target: Target, seed: number, options: MeasureOptions = {}): Promise<Map<string, CaseResult>> {
  const choices = target.choices;
  const profile = choices === undefined || typeof choices === 'string' ? profileForChoiceSet(base, choices) : profileForChoices(base, choices);
  const server = await startReferenceServer({ profile, key: EMBEDDED_KEY, faults: target.fault ? [target.fault] : [], ...(choices !== undefined ? { choices } : {}) });
  const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: MEASURE_TIMEOUT_MS, throttling: true });
  const judge = options.judge ?? createJudge({ strict: target.strict, agency: profile.agency, sourceDbs: keySourceDbs(profile) });
  try {
    const all = (await measuredPlan(profile, target.destructive)).filter((p) => options.only?.(p.key) ?? true);
    for (const p of all) {
      const selection = options.selections?.[p.key];
      if (selection !== undefined) p.parts = [...selection];
    }
    const planned = target.operation === undefined ? all : all.filter((p) => p.shape.cells.some((cell) => cell.startsWith(`${target.operation}/`)));
    const outcomes = await inParallel(planned, 4, (p) => runPlannedCase(p, client, profile, { seed, runs: MEASURED_RUNS, strict: target.strict, reusable: reusableRun(profile, target.destructive), runIdScope: 'case' }, judge));
    const out = new Map<string, CaseResult>();
    planned.forEach((p, i) => {
      const outcome = outcomes[i];
      if (!outcome) return;
      const failing = outcome.executions.filter((e) => e.verdict === 'fail' && gating(e.level, target.strict));
      const parts = p.def.parts && failing.length > 0 ? [...new Set(failing.map((e) => outcome.partOf.get(e) ?? (outcome.afterParts.has(e) ? AFTER_PARTS : '')))] : undefined;
      out.set(p.key, {
        caught: failing.length > 0,
        requests: outcome.stats.requests,
        failures: failing.map((e) => `${e.checkId} ${e.caseId}@${e.format} ${e.step}: ${e.received ?? ''}`),
        ...(parts ? { parts } : {}),
      });
    });
    return out;
  } finally {
    await client.close();
    await server.close();
  }
}

/**
 * What of a case with parts caught a fault: the core ('') when a step of it sent before any part failed;
 * else the parts whose own steps failed (any one of them taken catches it; the cheapest first, one as a
 * string); undefined when only steps of the core sent after parts failed (they may rest on what those parts
 * sent: the fault needs the whole case). The parts given are those the measurement holds to catch it alone
 * (attributionToVerify: the first to fail, and each other one run alone).
 */
export function attributedPart(shapes: ReadonlyArray<{ id: string; requests: number }>, parts: ReadonlySet<string>): string | string[] | undefined {
  if (parts.has('')) return '';
  const own = [...parts].filter((id) => id !== AFTER_PARTS).sort((a, b) => (shapes.find((s) => s.id === a)?.requests ?? 0) - (shapes.find((s) => s.id === b)?.requests ?? 0) || a.localeCompare(b));
  return own.length === 0 ? undefined : own.length === 1 ? own[0] : own;
}

/**
 * Of the parts whose steps failed in a run of the whole case, in the order they failed ('' the core before any
 * part, AFTER_PARTS the core after one): what is sure to catch the fault alone, and what must be run alone to
 * know. The first part to fail showed it with what it sent (the parts before it failed nothing); a part that
 * failed after it may rest on what that part did (a keyless merge taken by a filter keyed on the request's
 * shape leaves merged the work whose demerge the next part demands refused), and so may the core's steps
 * after the parts. `verify` lists those: a part id, or '' for the core alone.
 */
export function attributionToVerify(ordered: readonly string[]): { sure?: string; verify: string[] } {
  if (ordered.includes('')) return { sure: '', verify: [] };
  const own = ordered.filter((id) => id !== AFTER_PARTS);
  const [first, ...rest] = own;
  return first === undefined ? { verify: [''] } : { sure: first, verify: rest };
}
