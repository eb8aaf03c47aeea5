import type { TargetProfile } from '../profile/types.ts';
import type { Claim } from '../profile/allocate.ts';
import { partition } from '../profile/allocate.ts';
import type { Allocation } from '../profile/allocate.ts';
import type { CaseDef, CaseFormat } from './case.ts';
import { httpCases } from './cases/http.ts';
import { limitCases } from './cases/limits.ts';
import { mergeCases } from './cases/merge.ts';
import { modelCases } from './cases/model.ts';
import { propertyCases } from './cases/properties.ts';
import { removalCases } from './cases/removal.ts';
import { runCases } from './cases/run.ts';
import { scenarioCases } from '../scenarios/cases.ts';
import type { DisposableKind } from '../profile/types.ts';
import type { PlanName } from './plan.ts';
import type { RunConfig } from './config.ts';
import { choose } from './plan.ts';

/** A case in one format, the unit the runners execute. */
export interface PlannedCase {
  def: CaseDef;
  format: CaseFormat;
  /** The Playwright project that runs it: body formats run in their own, 'none' in json. */
  project: 'json' | 'xml';
  key: string;
  entries: Partial<Record<DisposableKind, unknown[]>>;
  /** Why it cannot run here (entries ran out, destructive mode off, not in the plan or budget). */
  skipReason?: string;
  /** Runs for a generated case, when the plan gives it fewer than ISWC_RUNS. */
  runs?: number;
}

export interface SuiteOptions {
  destructive: boolean;
  /** 'smoke': every spec check once, in as few requests as possible. Default 'full'. */
  plan?: PlanName;
  /** ISWC_BUDGET: the most requests the run may send. */
  budget?: number;
  /** ISWC_RUNS, for sizing generated cases within the budget. */
  runs?: number;
  /** Explain why destructive cases are off (remote target without ISWC_DESTRUCTIVE=1). */
  destructiveOffReason?: string;
}

export function allCases(profile: TargetProfile): CaseDef[] {
  const cases = [...runCases(profile), ...mergeCases(profile), ...removalCases(profile), ...limitCases(profile), ...httpCases(profile), ...propertyCases(profile), ...modelCases(profile), ...scenarioCases(profile)];
  const ids = new Set<string>();
  for (const c of cases) {
    if (ids.has(c.id)) throw new Error(`Duplicate case id ${c.id}`);
    ids.add(c.id);
  }
  return cases;
}

/**
 * Every case in every format, with disposable entries partitioned deterministically: every worker of
 * every project computes the same plan, so no entry is used twice in a run.
 */
export function planSuite(profile: TargetProfile, options: SuiteOptions): PlannedCase[] {
  const planned: PlannedCase[] = [];
  for (const def of allCases(profile)) {
    for (const format of def.formats) {
      planned.push({ def, format, project: format === 'xml' ? 'xml' : 'json', key: `${def.id}@${format}`, entries: {} });
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
  const { chosen, runs } = choose(planned, { plan, budget: options.budget, runs: options.runs ?? 100 });
  for (const p of planned) {
    if (p.skipReason) continue;
    if (!chosen.has(p.key)) p.skipReason = plan === 'smoke' ? 'not in the smoke plan (every spec check once)' : `not in the request budget (ISWC_BUDGET=${options.budget})`;
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
