import type { DisposableKind } from '../contract/profile/types.ts';
import type { CaseDef, CaseFormat } from '../generate/case.ts';
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
  /** Runs for a generated case, when the plan gives it fewer than ISWC_RUNS. */
  runs?: number;
}
