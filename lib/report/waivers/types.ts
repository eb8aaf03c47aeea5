import type { Format } from '../../contract/codec/index.ts';
import type { OperationId } from '../../contract/operations.ts';

/**
 * One known deviation of the target, waived in the open: failures of `check` (on `operation`, in
 * `format`, when given) are reported as `waived` with the reason, and never fail the run, until the
 * end of the day `until` (UTC). Written in a YAML file (schemas/waivers.schema.json).
 */
export interface Waiver {
  /** Position of the entry in its file, from 0: how every report names it. */
  index: number;
  /** 1-based line of the entry in its file. */
  line: number;
  check: string;
  operation?: OperationId;
  format?: Format;
  reason: string;
  /** YYYY-MM-DD: the last day (UTC) the waiver applies. */
  until: string;
}

/** A loaded waivers file: where it came from (as shown in reports) and its entries in file order. */
export interface WaiverSet {
  file: string;
  waivers: Waiver[];
}

/**
 * `used`: live and matched at least one failure. `unused`: live, matched nothing (the deviation may be
 * fixed: remove the entry). `expired`: past `until`; it matched nothing and its failures gate again.
 */
export type WaiverStatus = 'used' | 'unused' | 'expired';

export interface WaiverUse extends Waiver {
  status: WaiverStatus;
  /** Check executions it waived (0 unless used). */
  count: number;
}

/** What a report says about the run's waivers. */
export interface WaiverSummary {
  file: string;
  /** The day (UTC, YYYY-MM-DD) expiry was judged against: the run's start. */
  date: string;
  entries: WaiverUse[];
}

/** One reason a waivers file cannot be used. */
export interface WaiverProblem {
  file: string;
  /** The entry (from 0), when the problem is inside one. */
  index?: number;
  line?: number;
  col?: number;
  /** JSON pointer inside the file ("/1/until"). */
  path: string;
  message: string;
}
