import type { DisposableKind, TargetProfile } from '../contract/profile/types.ts';
import { formatNotServedReason, NOT_UNDONE_REASON, reusableRun, servesFormat } from '../contract/profile/types.ts';
import type { Allocation, Claim, EntryPreference } from './claims.ts';
import { partition, preferredEntriesToAdd } from './claims.ts';
import type { CaseDef } from '../generate/case.ts';
import type { Lack, Need } from '../generate/needs.ts';
import { isApartNeed, isAtLimitNeed, isEntryNeed, lackOf, needsText, widestLacks } from '../generate/needs.ts';
import { ampleEntriesFor, ampleProfile } from './ample.ts';
import { allCases } from '../generate/suite.ts';
import type { PlanName, SliceInfo } from './budget.ts';
import type { RunConfig } from '../config/config.ts';
import { choose, rankingFor } from './budget.ts';
import { shapeOf } from './dry-run.ts';
import { saveShapes } from './shape-cache.ts';
import type { PlannedCase } from './planned.ts';
import { PLAN_DATA } from './plans.generated.ts';

export type { PlannedCase };

export interface SuiteOptions {
  destructive: boolean;
  /** 'smoke': every catchable fault of the catalogue and every spec check, in as few requests as possible. Default 'full'. */
  plan?: PlanName;
  /** ISWC_BUDGET: the most requests the run may send. */
  budget?: number;
  /** ISWC_RUNS, for sizing generated cases within the budget. */
  runs?: number;
  /** ISWC_SLICE: which slice of the budget's rotation (lib/run/budget.ts); default 0. */
  slice?: number;
  /** ISWC_STRICT: a budget walks the ranking of what fails the run, strict or not (lib/run/budget.ts rankingFor); default false. */
  strict?: boolean;
  /** Explain why destructive cases are off (remote target without ISWC_DESTRUCTIVE=1). */
  destructiveOffReason?: string;
}

/** A planned case before its dry run: allocated, and judged against its needs. */
export type AllocatedCase = Omit<PlannedCase, 'shape'>;

function claimKey(p: Pick<PlannedCase, 'key'>, kind: DisposableKind): string {
  return `${p.key}#${kind}`;
}

/** What a case would rather its claimed entries of a kind were: its entry and apart needs, as preferences. */
function preferences(def: CaseDef, kind: DisposableKind): EntryPreference[] {
  return (def.needs ?? []).flatMap((n): EntryPreference[] => {
    if (isEntryNeed(n)) return n.entry === kind ? [{ index: n.index, list: n.list, atLeast: n.atLeast }] : [];
    if (isApartNeed(n)) return n.apart === kind ? [{ index: n.index, apartFrom: n.from }] : [];
    if (isAtLimitNeed(n)) return n.atLimit === kind ? [{ index: n.index, value: n.value, length: n.length }] : [];
    return [];
  });
}

/** The claims of every planned case, in plan order (the order the partition serves them in). */
export function suiteClaims(planned: readonly Pick<PlannedCase, 'def' | 'key'>[], destructive: boolean, reusable = false): Claim[] {
  const claims: Claim[] = [];
  for (const p of planned) {
    // On a reusable profile a case is given entries only when every claim it makes is undone (or only names).
    if (reusable && !(p.def.claims ?? []).every((c) => c.readOnly || c.restores)) continue;
    for (const claim of p.def.claims ?? []) {
      if (!destructive && !claim.readOnly) continue;
      const prefer = preferences(p.def, claim.kind);
      claims.push({
        key: claimKey(p, claim.kind),
        kind: claim.kind,
        count: claim.count,
        ...(claim.readOnly ? { readOnly: true } : {}),
        ...(claim.atLeast !== undefined ? { atLeast: claim.atLeast } : {}),
        ...(prefer.length > 0 ? { prefer } : {}),
      });
    }
  }
  return claims;
}

/** What a need lacks, with an entry or apart need's count of entries to add found by the partition. */
function lackFor(need: Need, p: AllocatedCase, profile: TargetProfile, claims: readonly Claim[]): Lack | undefined {
  const lack = lackOf(need, profile, p.entries);
  if (lack && 'entry' in lack) return { ...lack, more: Math.max(1, preferredEntriesToAdd(profile, claims, claimKey(p, lack.entry))) };
  if (lack && 'apart' in lack) return { ...lack, more: Math.max(1, preferredEntriesToAdd(profile, claims, claimKey(p, lack.apart))) };
  if (lack && 'atLimit' in lack) return { ...lack, more: Math.max(1, preferredEntriesToAdd(profile, claims, claimKey(p, lack.atLimit))) };
  return lack;
}

/**
 * Every case in every format, with disposable entries partitioned deterministically (every worker of
 * every project computes the same plan, so no entry is used twice in a run) and its needs weighed: a case
 * the profile cannot serve is skipped with what it lacks, counted; a case that runs without some of its
 * checks for lack of data says which, and why. No dry run: what `profile check` simulates additions with.
 */
export function allocateSuite(profile: TargetProfile, options: Pick<SuiteOptions, 'destructive' | 'destructiveOffReason'>, cases: readonly CaseDef[], served?: ReadonlyMap<string, number>): AllocatedCase[] {
  const planned: AllocatedCase[] = cases.flatMap((def) => def.formats.map((format) => ({ def, format, project: format === 'xml' ? ('xml' as const) : ('json' as const), key: `${def.id}@${format}`, entries: {} })));
  // A format the target does not serve (profile formats) is sent nothing, and claims no entry.
  for (const p of planned) if (!servesFormat(profile, p.format)) p.skipReason = formatNotServedReason(profile, p.format);
  const reusable = reusableRun(profile, options.destructive);
  const claimants = planned.filter((p) => p.skipReason === undefined);
  // `served`: the order the entries are handed out in (a budget's ranking), else the suite's.
  const rank = (p: AllocatedCase): number => served?.get(p.key) ?? Number.MAX_SAFE_INTEGER;
  const claims = suiteClaims(served ? [...claimants].sort((a, b) => rank(a) - rank(b)) : claimants, options.destructive, reusable);
  const allocation: Map<string, Allocation<unknown>> = partition(profile, claims);
  for (const p of planned) {
    if (p.skipReason !== undefined) continue;
    if (p.def.changesData && !options.destructive) {
      p.skipReason = options.destructiveOffReason ?? 'may change data on a faulty server and destructive checks are off (ISWC_DESTRUCTIVE=0)';
      continue;
    }
    if (!options.destructive && p.def.claims?.some((c) => !c.readOnly)) {
      p.skipReason = options.destructiveOffReason ?? 'consumes disposable profile entries and destructive checks are off (ISWC_DESTRUCTIVE=0)';
      continue;
    }
    if (reusable && ((p.def.changesData ?? false) || p.def.claims?.some((c) => !c.readOnly && !c.restores))) {
      p.skipReason = NOT_UNDONE_REASON;
      continue;
    }
    const lacks: Lack[] = [];
    for (const claim of p.def.claims ?? []) {
      const got = allocation.get(claimKey(p, claim.kind));
      if (!got) continue;
      if (got.ok) p.entries[claim.kind] = got.entries;
      else lacks.push({ list: got.kind, more: got.more });
    }
    const needs = p.def.needs ?? [];
    for (const need of needs) {
      if (need.checks) continue;
      const lack = lackFor(need, p, profile, claims);
      if (lack) lacks.push(lack);
    }
    if (lacks.length > 0) {
      p.lacks = widestLacks(lacks);
      p.skipReason = needsText(p.lacks);
      continue;
    }
    for (const need of needs) {
      if (!need.checks) continue;
      const lack = lackFor(need, p, profile, claims);
      if (lack) (p.checkSkips ??= []).push({ checks: [...need.checks], reason: needsText([lack]), lacks: [lack] });
    }
  }
  return planned;
}

/**
 * Every case in every format, allocated (allocateSuite), each with its shape from a dry run: on the
 * profile and entries it got, or, when it cannot run, on made-up ones, so that the checks it would
 * exercise are known and reported skipped with the reason. Then the smoke plan or the budget.
 */
export async function planSuite(profile: TargetProfile, options: SuiteOptions, cases: readonly CaseDef[] = allCases(profile)): Promise<PlannedCase[]> {
  const planned: PlannedCase[] = [];
  // Under a budget, the cases its ranking takes first get their entries first: handed out in suite order, a
  // small profile's entries went to cases the budget never sends, and a gate went without proofs it had the
  // data for (a profile of six merges was told to add twelve for status.item-refused at 60 requests).
  const served = options.budget !== undefined && (options.plan ?? 'full') === 'full' ? rankOrder(options.destructive, options.strict ?? false) : undefined;
  for (const p of allocateSuite(profile, options, cases, served)) {
    const runnable = p.skipReason === undefined;
    const shape = runnable ? await shapeOf(p.def, p.format, profile, p.entries) : await shapeOf(p.def, p.format, ampleProfile(profile, p.def.needs ?? []), ampleEntriesFor(p.def, profile.agency));
    planned.push({ ...p, shape });
  }
  saveShapes();
  const plan = options.plan ?? 'full';
  if (plan === 'full' && options.budget === undefined) return planned;
  const choice = choose(planned, { plan, budget: options.budget, runs: options.runs ?? 100, destructive: options.destructive, strict: options.strict ?? false, ...(options.slice !== undefined ? { slice: options.slice } : {}) });
  if (choice.slice) PLAN_SLICES.set(planned, choice.slice);
  applyChoice(planned, choice, plan === 'smoke' ? 'not in the smoke plan (the fewest requests that catch every fault of the catalogue this mode can catch, and exercise every spec check once)' : `not in the request budget (ISWC_BUDGET=${options.budget})`, plan === 'smoke' ? 'smoke plan' : 'request budget');
  return planned;
}

/** The committed ranking a run walks (lib/run/plans.generated.ts) as case key → its first place in it. */
function rankOrder(destructive: boolean, strict: boolean): Map<string, number> {
  const order = new Map<string, number>();
  for (const [i, entry] of rankingFor(PLAN_DATA, destructive, strict).entries.entries()) if (!order.has(entry.key)) order.set(entry.key, i);
  return order;
}

/** Of a budgeted plan (planSuite's answer): the slice of the rotation it took (lib/run/budget.ts SliceInfo). */
export const PLAN_SLICES = new WeakMap<readonly PlannedCase[], SliceInfo>();

/**
 * Applies a plan's choice to the planned cases: those it left out get `leftOut` as their skip reason; the
 * chosen ones their runs and parts; the standby ones (next in the ranking) their place, runs and parts.
 */
export function applyChoice(planned: PlannedCase[], choice: ReturnType<typeof choose>, leftOut: string, partsLeftOutBy: PlannedCase['partsLeftOutBy'] = 'request budget'): void {
  for (const p of planned) {
    if (p.skipReason) continue;
    if (!choice.chosen.has(p.key)) p.skipReason = leftOut;
    const r = choice.runs.get(p.key);
    if (r !== undefined) p.runs = r;
    const taken = choice.parts.get(p.key);
    if (taken !== undefined) {
      p.parts = taken;
      p.partsLeftOutBy = partsLeftOutBy;
    }
  }
  // The cases next in the ranking: left out, with the runs and parts the steering would run them at.
  choice.standby.forEach((s, rank) => {
    const p = planned.find((q) => q.key === s.key);
    if (!p) return;
    p.standby = rank;
    if (s.runs !== undefined) p.runs = s.runs;
    if (s.parts !== undefined) p.parts = s.parts;
  });
}

/** Suite options as the run's configuration sets them: one place for the runner and the dry run. */
export function suiteOptionsFrom(config: RunConfig): SuiteOptions {
  return {
    destructive: config.destructive,
    plan: config.plan,
    runs: config.runs,
    strict: config.strict,
    ...(config.budget !== undefined ? { budget: config.budget } : {}),
    ...(config.slice !== undefined ? { slice: config.slice } : {}),
    ...(config.local ? {} : { destructiveOffReason: 'consumes disposable profile entries of a remote target; set ISWC_DESTRUCTIVE=1 to allow it' }),
  };
}
