import type { TargetProfile } from '../contract/profile/types.ts';
import { NOT_UNDONE_REASON } from '../contract/profile/types.ts';
import type { CaseDef } from '../generate/case.ts';
import type { CheckId } from '../generate/checks.generated.ts';
import { CHECK_MANIFEST } from '../generate/checks.generated.ts';
import type { Lack } from '../generate/needs.ts';
import { addLacks, isEntryNeed, lackSize } from '../generate/needs.ts';
import { allCases } from '../generate/suite.ts';
import { fieldsOfNeighbourCase } from '../generate/cases/neighbours.ts';
import { ampleEntriesFor, ampleProfile, withAddition } from './ample.ts';
import { estimatedRequests } from './budget.ts';
import type { CaseShape } from './dry-run.ts';
import { shapeOf } from './dry-run.ts';
import { checksTaken } from './parts.ts';
import type { AllocatedCase, SuiteOptions } from './plan.ts';
import { allocateSuite, planSuite } from './plan.ts';
import type { PlannedCase } from './planned.ts';

/**
 * What a target profile lets a run exercise, without sending anything: for a mode (destructive or not,
 * smoke, a budget), how many of the document's spec checks the plan exercises and, for each one it does
 * not, why, and the smallest addition to the profile that would let a case exercise it. What
 * `npx iswc-conformance profile check` prints.
 */

/** Why a spec check is not exercised, and what would change that. */
export type Advice =
  /** Add this to the profile (the smallest addition, among the cases that could exercise it, confirmed by planning with it). */
  | { add: Lack[] }
  /** Only destructive runs exercise it (every case that does consumes entries or may change data). */
  | { destructive: true }
  /** A case could exercise it with this profile, but the smoke plan or the budget leaves it out. */
  | { beyond: 'smoke' | 'budget' }
  /** No case of the harness exercises it in this mode, whatever the profile. */
  | { unreachable: true }
  /** Every case that exercises it consumes an entry or makes a change no request undoes: a reusable profile cannot show it. */
  | { notUndone: true };

export interface CheckAdvice {
  checkId: CheckId;
  advice: Advice;
}

export interface ModeCoverage {
  /** `non-destructive`, `destructive`, `smoke`, `budget`. */
  mode: 'non-destructive' | 'destructive' | 'smoke' | 'budget';
  options: SuiteOptions;
  /** Spec checks the plan exercises (M is SPEC_CHECKS.length). */
  exercised: CheckId[];
  notExercised: CheckAdvice[];
  /** Requests the plan sends, at the runs given. */
  requests: number;
}

/** The spec checks of the document, in registry order. */
export const SPEC_CHECKS: readonly CheckId[] = (Object.keys(CHECK_MANIFEST) as CheckId[]).filter((id) => CHECK_MANIFEST[id].level === 'spec');

const isSpec = (id: CheckId): boolean => CHECK_MANIFEST[id].level === 'spec';

/** The checks a case exercises when the profile gives it everything: its shape on made-up data. */
async function fullShape(p: Pick<PlannedCase, 'def' | 'format'>, profile: TargetProfile): Promise<CaseShape> {
  return shapeOf(p.def, p.format, ampleProfile(profile, p.def.needs ?? []), ampleEntriesFor(p.def, profile.agency));
}

/** Spec checks a planned case exercises: those of the parts it takes and its core, less the checks it runs without. */
function exercisedBy(p: Pick<PlannedCase, 'skipReason' | 'checkSkips' | 'parts'>, shape: CaseShape): CheckId[] {
  if (p.skipReason !== undefined) return [];
  const without = new Set((p.checkSkips ?? []).flatMap((s) => s.checks));
  return checksTaken(shape, p.parts).filter((c) => isSpec(c) && !without.has(c));
}

/**
 * What a case lacks for it to exercise one check: its own lacks, or those of the need that names the
 * check. A claim that was not served, for a check that needs what the entry carries, asks for entries
 * that carry it (so "1 more merges" becomes "a merges entry with at least 2 agencyWorks").
 */
function lacksFor(p: AllocatedCase, checkId: CheckId): Lack[] | undefined {
  const shaped = (p.def.needs ?? []).filter(isEntryNeed).filter((n) => n.checks?.includes(checkId));
  const widest = shaped.reduce<(typeof shaped)[number] | undefined>((best, n) => (best === undefined || n.atLeast > best.atLeast ? n : best), undefined);
  if (p.lacks) {
    if (!widest) return p.lacks;
    return p.lacks.map((l) => ('list' in l && !('entry' in l) && l.list === widest.entry ? { entry: widest.entry, list: widest.list, atLeast: widest.atLeast, more: l.more } : l));
  }
  const skip = p.checkSkips?.find((s) => s.checks.includes(checkId));
  return skip?.lacks;
}

function isDestructiveOff(p: AllocatedCase, options: SuiteOptions): boolean {
  return !options.destructive && ((p.def.changesData ?? false) || (p.def.claims ?? []).some((c) => !c.readOnly));
}

/**
 * The advice for one check not exercised, from every case that could exercise it: the additions that
 * would let one of them run it, smallest first (each still to be confirmed by planning with it), or why
 * no addition is needed or would do.
 */
function adviceFor(checkId: CheckId, planned: readonly AllocatedCase[], shapes: ReadonlyMap<string, CaseShape>, options: SuiteOptions): { additions: Lack[][]; otherwise: Exclude<Advice, { add: Lack[] }> } {
  const candidates = planned.filter((p) => shapes.get(p.key)?.checks.includes(checkId));
  const additions = new Map<string, Lack[]>();
  let beyond = false;
  let destructiveOnly = candidates.length > 0;
  let notUndone = false;
  for (const p of candidates) {
    if (isDestructiveOff(p, options)) continue;
    destructiveOnly = false;
    if (p.skipReason === NOT_UNDONE_REASON) {
      notUndone = true;
      continue;
    }
    const lacks = lacksFor(p, checkId);
    if (!lacks) beyond = true;
    else additions.set(JSON.stringify(lacks), lacks);
  }
  const otherwise = beyond
    ? { beyond: options.plan === 'smoke' ? ('smoke' as const) : ('budget' as const) }
    : destructiveOnly
      ? { destructive: true as const }
      : notUndone
        ? { notUndone: true as const }
        : { unreachable: true as const };
  return { additions: [...additions.values()].sort((a, b) => lackSize(a) - lackSize(b)), otherwise };
}

/** The smallest addition for one check, unconfirmed: what the search for one addition for all builds on. */
function smallestAddition(checkId: CheckId, planned: readonly AllocatedCase[], shapes: ReadonlyMap<string, CaseShape>, options: SuiteOptions): Lack[] | undefined {
  return adviceFor(checkId, planned, shapes, options).additions[0];
}

/** Additions tried, smallest first, before a check is said not to fit the plan. */
const ADDITIONS_TRIED = 3;

/**
 * The advice for one check not exercised, each addition confirmed by planning the mode again with it: an
 * addition that lets a case run the check may still leave it out of the smoke plan or the budget (or give
 * the new entries to a case planned earlier). None confirmed: the plan leaves it out (a larger budget), or,
 * in a mode without a plan or budget, no addition tried makes a case exercise it.
 */
async function confirmedAdvice(checkId: CheckId, profile: TargetProfile, options: SuiteOptions, found: ReturnType<typeof adviceFor>, casesOf: (p: TargetProfile) => readonly CaseDef[]): Promise<Advice> {
  for (const add of found.additions.slice(0, ADDITIONS_TRIED)) {
    const grown = withAddition(profile, add);
    const plan = await planSuite(grown, options, casesOf(grown));
    if (plan.some((p) => exercisedBy(p, p.shape).includes(checkId))) return { add };
  }
  if (found.additions.length === 0 || 'beyond' in found.otherwise || 'notUndone' in found.otherwise) return found.otherwise;
  if (options.plan === 'smoke') return { beyond: 'smoke' };
  if (options.budget !== undefined) return { beyond: 'budget' };
  return { unreachable: true };
}

/**
 * The plan of one mode, with each spec check not exercised and what would exercise it. The cases are the
 * harness's for the profile (and for the profile with an addition, to confirm it) unless given.
 */
export async function modeCoverage(profile: TargetProfile, mode: ModeCoverage['mode'], options: SuiteOptions, cases?: readonly CaseDef[]): Promise<ModeCoverage> {
  const casesOf = (p: TargetProfile): readonly CaseDef[] => cases ?? allCases(p);
  const planned = await planSuite(profile, options, casesOf(profile));
  const shapes = new Map<string, CaseShape>();
  for (const p of planned) shapes.set(p.key, await fullShape(p, profile));
  const exercised = new Set(planned.flatMap((p) => exercisedBy(p, p.shape)));
  const requests = planned.filter((p) => !p.skipReason).reduce((n, p) => n + estimatedRequests(p, p.runs ?? options.runs ?? 100), 0);
  const notExercised: CheckAdvice[] = [];
  for (const checkId of SPEC_CHECKS.filter((id) => !exercised.has(id))) {
    notExercised.push({ checkId, advice: await confirmedAdvice(checkId, profile, options, adviceFor(checkId, planned, shapes, options), casesOf) });
  }
  return { mode, options, exercised: SPEC_CHECKS.filter((id) => exercised.has(id)), notExercised, requests };
}

/**
 * The spec checks a plan of this profile exercises, and nothing else (no advice for the others): what
 * confirms an addition, as modeCoverage works it out.
 */
export async function exercisedChecks(profile: TargetProfile, options: SuiteOptions, cases: readonly CaseDef[] = allCases(profile)): Promise<CheckId[]> {
  const exercised = new Set((await planSuite(profile, options, cases)).flatMap((p) => exercisedBy(p, p.shape)));
  return SPEC_CHECKS.filter((id) => exercised.has(id));
}

/**
 * One addition that lets a destructive run exercise every spec check some case can: the smallest
 * addition for one check at a time, made, until none is left (the additions overlap, so this is less than
 * their sum). Undefined when the profile needs nothing.
 */
export async function completion(profile: TargetProfile, cases: readonly CaseDef[] = allCases(profile)): Promise<Lack[] | undefined> {
  const options: SuiteOptions = { destructive: true };
  let current = profile;
  const added: Lack[] = [];
  let seed = 0;
  // What each case exercises with everything it needs does not change as the profile grows.
  const shapes = new Map<string, CaseShape>();
  for (const p of allocateSuite(profile, options, cases)) shapes.set(p.key, await fullShape(p, profile));
  for (let round = 0; round < SPEC_CHECKS.length; round++) {
    const planned = allocateSuite(current, options, cases);
    const exercised = new Set(planned.flatMap((p) => exercisedBy(p, shapes.get(p.key) as CaseShape)));
    let smallest: Lack[] | undefined;
    for (const id of SPEC_CHECKS) {
      if (exercised.has(id)) continue;
      const add = smallestAddition(id, planned, shapes, options);
      if (add && (smallest === undefined || lackSize(add) < lackSize(smallest))) smallest = add;
    }
    if (!smallest) break;
    added.push(...smallest);
    current = withAddition(current, smallest, (seed += 1000));
  }
  return added.length > 0 ? addLacks(added) : undefined;
}

/**
 * The four modes `profile check` reports: non-destructive, destructive, smoke and a budget (the last two
 * destructive). `planning` hears of each mode before it is planned (a new profile takes tens of seconds).
 */
export async function profileCoverage(profile: TargetProfile, settings: { budget: number; runs?: number }, planning?: (mode: ModeCoverage['mode'], index: number, count: number) => void): Promise<ModeCoverage[]> {
  const runs = settings.runs ?? 100;
  const modes: Array<[ModeCoverage['mode'], SuiteOptions]> = [
    ['non-destructive', { destructive: false, runs }],
    ['destructive', { destructive: true, runs }],
    ['smoke', { destructive: true, plan: 'smoke', runs }],
    ['budget', { destructive: true, budget: settings.budget, runs }],
  ];
  const out: ModeCoverage[] = [];
  for (const [i, [mode, options]] of modes.entries()) {
    planning?.(mode, i, modes.length);
    out.push(await modeCoverage(profile, mode, options));
  }
  return out;
}

/** The near-neighbour cases (tag @neighbours: one per field with a stated limit or pattern, one for the run's counters) a profile lets a run send. */
export interface NeighbourCoverage {
  /** Fields whose neighbours a destructive run sends. */
  sent: string[];
  /** Fields whose neighbours it leaves out, with what the profile lacks. */
  left: Array<{ field: string; reason: string }>;
  /** Fields a non-destructive run probes (the others may change data on a lenient server). */
  safe: string[];
}

/**
 * What `profile check` says of near neighbours (issue 28): a value one step from data the target holds, so
 * that a server cutting, trimming, folding or leniently parsing it lands on that data. Some need data at the
 * limit of its field (a work code of 20 characters), which the needs of each case state.
 */
export function neighbourCoverage(profile: TargetProfile, cases: readonly CaseDef[] = allCases(profile)): NeighbourCoverage {
  const ofNeighbours = cases.filter((c) => c.tags.includes('@neighbours'));
  const byField = (planned: readonly AllocatedCase[]) => {
    const out = new Map<string, AllocatedCase[]>();
    for (const p of planned) for (const field of fieldsOfNeighbourCase(p.def)) out.set(field, [...(out.get(field) ?? []), p]);
    return out;
  };
  const destructive = byField(allocateSuite(profile, { destructive: true }, ofNeighbours));
  const safe = byField(allocateSuite(profile, { destructive: false }, ofNeighbours));
  const sent: string[] = [];
  const left: NeighbourCoverage['left'] = [];
  for (const [field, planned] of destructive) {
    const running = planned.find((p) => p.skipReason === undefined);
    if (running) sent.push(field);
    else left.push({ field, reason: planned[0]?.skipReason ?? 'not planned' });
  }
  return { sent, left, safe: [...safe].filter(([, planned]) => planned.some((p) => p.skipReason === undefined)).map(([field]) => field) };
}
