import type { Format } from '../../contract/codec/index.ts';
import type { OperationId } from '../../contract/operations.ts';

/**
 * One known deviation of the target, waived in the open: failures of `check` (on `operation`, in
 * `format`, when given) that look like the deviation (answered one of `statuses`; with `case`, in that
 * case; with `step`, at a step whose label holds that text; with `code`, carrying that business code; with `text`, holding that text) are reported as
 * `waived` with the reason, and never fail the run, until the end of the day `until` (UTC). A failure of
 * the same check that looks otherwise still fails, and says what the waiver covers. Written in a YAML
 * file (schemas/waivers.schema.json).
 */
export interface Waiver {
  /** Position of the entry in its file, from 0: how every report names it. */
  index: number;
  /** 1-based line of the entry in its file. */
  line: number;
  check: string;
  operation?: OperationId;
  format?: Format;
  /** The statuses the deviation answers: a failure whose answer has another status (or none) is not waived. */
  statuses: number[];
  /** Only failures of these cases (case ids as the reports name them; a file may give one or a list). */
  case?: string[];
  /**
   * Only failures at a step whose label holds this text (the step the reports name, e.g. "agencyCode" in
   * "agent run with agencyCode broken"): for a deviation that only some requests of a case show, such as a
   * property breaking one field at random.
   */
  step?: string;
  /** Only answers whose JSON body carries this business code (`{"code": "132", …}`). */
  code?: string;
  /** Only answers whose body holds this text. */
  text?: string;
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
 * `used`: live and matched at least one failure. `unused`: live, its check ran on its operation (and
 * format) and nothing matched (the deviation may be fixed: remove the entry). `not exercised`: live, its
 * check never ran on its operation in this run (a smaller plan, a non-destructive run, a format not
 * served): the run says nothing of the deviation, keep the entry. `expired`: past `until`; it matched
 * nothing and its failures gate again.
 */
export type WaiverStatus = 'used' | 'unused' | 'not exercised' | 'expired';

export interface WaiverUse extends Waiver {
  status: WaiverStatus;
  /** Check executions it waived (0 unless used). */
  count: number;
  /** What it covers, in words: `status.not-found on mergeIswcMetadata answering 400 with code "132"`. */
  covers: string;
  /** Failures of its check on its operation (and format) that did not look like it: they failed the run. */
  missed: number;
}

/**
 * The run's waivers counted (lib/report/waivers/figures.ts): entries by status, and failures of a waived
 * check that looked otherwise (missed: not waived, they fail). The one figure for waivers in every output.
 */
export interface WaiverFigures {
  entries: number;
  used: number;
  notExercised: number;
  unused: number;
  expired: number;
  missed: number;
}

/** What a report says about the run's waivers. */
export interface WaiverSummary {
  file: string;
  /** The day (UTC, YYYY-MM-DD) expiry was judged against: the run's start. */
  date: string;
  entries: WaiverUse[];
  /** The entries counted by status, and the failures missed: what every output says of the run's waivers. */
  figures: WaiverFigures;
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
