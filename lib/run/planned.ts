import type { DisposableKind } from '../contract/profile/types.ts';
import type { CaseDef, CaseFormat } from '../generate/case.ts';
import type { CheckId } from '../generate/checks.generated.ts';
import type { Lack } from '../generate/needs.ts';
import type { CaseShape } from './dry-run.ts';

/** A case in one format, the unit the runners execute. */
export interface PlannedCase {
  def: CaseDef;
  format: CaseFormat;
  /** The Playwright project that runs it: body formats run in their own, 'none' in json. */
  project: 'json' | 'xml';
  key: string;
  entries: Partial<Record<DisposableKind, unknown[]>>;
  /** What it does: its checks and requests, derived by a dry run. */
  shape: CaseShape;
  /** Why it cannot run here (entries ran out, destructive mode off, not in the plan or budget). */
  skipReason?: string;
  /** What the profile lacks for it to run, counted (the data behind a "needs …" skip reason). */
  lacks?: Lack[];
  /** Checks it runs without, for lack of data: each reported skipped with the reason (a merge entry with one agency work shows no demerge-one). */
  checkSkips?: Array<{ checks: CheckId[]; reason: string; lacks: Lack[] }>;
  /** Runs for a generated case, when the plan gives it fewer than ISWC_RUNS. */
  runs?: number;
  /**
   * Of a case with parts (CaseDef.parts), the parts the plan took, each with what it comes after; absent:
   * the whole case. The checks only the other parts exercise are reported skipped with the reason.
   */
  parts?: string[];
  /** What left the other parts out: the smoke plan or a request budget (default). */
  partsLeftOutBy?: 'smoke plan' | 'request budget';
  /**
   * Of a case left out of a request budget: its place among the cases next in the ranking, which the
   * steering runs with what it freed (lib/run/steer.ts); absent otherwise.
   */
  standby?: number;
}
