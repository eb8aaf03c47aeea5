import type { TargetProfile } from '../contract/profile/types.ts';
import type { Claim } from './claims.ts';
import { partition } from './claims.ts';
import type { Allocation } from './claims.ts';
import type { CaseDef } from '../generate/case.ts';
import { allCases } from '../generate/suite.ts';
import type { PlanName } from './budget.ts';
import type { RunConfig } from '../config/config.ts';
import { choose } from './budget.ts';
import { shapeOf } from './dry-run.ts';
import type { PlannedCase } from './planned.ts';

export type { PlannedCase };

export interface SuiteOptions {
  destructive: boolean;
  /** 'smoke': every catchable fault of the catalogue and every spec check, in as few requests as possible. Default 'full'. */
  plan?: PlanName;
  /** ISWC_BUDGET: the most requests the run may send. */
  budget?: number;
  /** ISWC_RUNS, for sizing generated cases within the budget. */
  runs?: number;
  /** Explain why destructive cases are off (remote target without ISWC_DESTRUCTIVE=1). */
  destructiveOffReason?: string;
}

/**
 * Every case in every format, with disposable entries partitioned deterministically: every worker of
 * every project computes the same plan, so no entry is used twice in a run.
 */
export async function planSuite(profile: TargetProfile, options: SuiteOptions, cases: readonly CaseDef[] = allCases(profile)): Promise<PlannedCase[]> {
  const planned: PlannedCase[] = [];
  for (const def of cases) {
    for (const format of def.formats) {
      planned.push({ def, format, project: format === 'xml' ? 'xml' : 'json', key: `${def.id}@${format}`, entries: {}, shape: await shapeOf(def, format, profile) });
    }
  }
  const claims: Claim[] = [];
  for (const p of planned) {
    for (const claim of p.def.claims ?? []) {
      if (!options.destructive && !claim.readOnly) continue;
      claims.push({ key: `${p.key}#${claim.kind}`, kind: claim.kind, count: claim.count, ...(claim.readOnly ? { readOnly: true } : {}) });
    }
  }
  const allocation: Map<string, Allocation<unknown>> = partition(profile, claims);
  for (const p of planned) {
    if (p.def.changesData && !options.destructive) {
      p.skipReason = options.destructiveOffReason ?? 'may change data on a faulty server and destructive checks are off (ISWC_DESTRUCTIVE=0)';
      continue;
    }
    if (!p.def.claims?.length) continue;
    if (!options.destructive && p.def.claims.some((c) => !c.readOnly)) {
      p.skipReason = options.destructiveOffReason ?? 'consumes disposable profile entries and destructive checks are off (ISWC_DESTRUCTIVE=0)';
      continue;
    }
    for (const claim of p.def.claims) {
      const got = allocation.get(`${p.key}#${claim.kind}`);
      if (!got || !got.ok) {
        p.skipReason = got?.ok === false ? got.reason : 'no allocation';
        break;
      }
      p.entries[claim.kind] = got.entries;
    }
  }
  const plan = options.plan ?? 'full';
  if (plan === 'full' && options.budget === undefined) return planned;
  const { chosen, runs } = choose(planned, { plan, budget: options.budget, runs: options.runs ?? 100, destructive: options.destructive });
  for (const p of planned) {
    if (p.skipReason) continue;
    if (!chosen.has(p.key)) {
      p.skipReason =
        plan === 'smoke' ? 'not in the smoke plan (the fewest requests that catch every fault of the catalogue this mode can catch, and exercise every spec check once)' : `not in the request budget (ISWC_BUDGET=${options.budget})`;
    }
    const r = runs.get(p.key);
    if (r !== undefined) p.runs = r;
  }
  return planned;
}

/** Suite options as the run's configuration sets them: one place for the runner and the dry run. */
export function suiteOptionsFrom(config: RunConfig): SuiteOptions {
  return {
    destructive: config.destructive,
    plan: config.plan,
    runs: config.runs,
    ...(config.budget !== undefined ? { budget: config.budget } : {}),
    ...(config.local ? {} : { destructiveOffReason: 'consumes disposable profile entries of a remote target; set ISWC_DESTRUCTIVE=1 to allow it' }),
  };
}
