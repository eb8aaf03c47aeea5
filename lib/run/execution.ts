import type { Format } from '../contract/codec/index.ts';
import type { Exchange } from '../contract/exchange.ts';
import type { OperationId } from '../contract/operations.ts';
import type { Level } from '../generate/expectations.ts';
import type { Step } from '../generate/case.ts';

export type { Level };

export type Verdict = 'pass' | 'fail' | 'skip' | 'observed' | 'waived';

/** One check applied to one exchange: the unit every report is made of. */
export interface CheckExecution {
  checkId: string;
  level: Level;
  sections: string[];
  operation: OperationId | null;
  format: Format;
  caseId: string;
  step: string;
  verdict: Verdict;
  expected?: string;
  received?: string;
  skipReason?: string;
  observation?: Record<string, unknown>;
  /** Present for failures and observations: the exchange, already free of the key. */
  exchange?: Exchange;
  curl?: string;
  /** Replay information for generated inputs: the fast-check seed and the path of the input in its run. */
  seed?: number;
  path?: string;
  /** For the model test's command sequences: fast-check's replayPath, without which a sequence cannot be replayed. */
  replayPath?: string;
  /** For the model test: its model of the target before the sequence ran, which replaying it starts from. */
  modelState?: unknown;
  /** For generated inputs: what fast-check did to get them (runs, shrinks, the sequence), kept out of `step` so that ids do not change with the seed. */
  generated?: string;
  durationMs?: number;
  /**
   * For `fail` and `waived`: the failure's short id (lib/report/identity.ts), set when the report is
   * built; `npx iswc-conformance replay <id>` sends that failure's requests again.
   */
  failureId?: string;
  /**
   * A spec check judged on an answer no step planned it on (an every-answer check on a probe's success,
   * which the document leaves open): judged and gating as any other, but not counted as exercising the
   * check, so that the run's figure is the plan's (`plan`, `profile check`).
   */
  incidental?: true;
  /** For `waived`: the waiver (ISWC_WAIVERS) that turned this failure into a known deviation. */
  waiver?: { reason: string; until: string; index: number };
  /**
   * For a `fail` of a live waiver's check, operation and format that did not look like its deviation:
   * what `received` ends with, saying what the waiver covers and what came instead.
   */
  waiverMiss?: string;
}

/** What one check said about one exchange, as the runner records it. */
export interface Judged {
  checkId: string;
  level: Level;
  sections: string[];
  verdict: 'pass' | 'fail' | 'observed' | 'skip';
  expected: string;
  received: string;
  observation?: Record<string, unknown>;
  /** A failure that fails the run (spec; http too in strict mode). */
  gating: boolean;
}

/**
 * Judges one exchange of a step: every check that applies. The runner is given one (the check stage makes
 * it, lib/check/judge.ts), so that running comes before checking in the pipeline.
 */
export type Judge = (step: Step, exchange: Exchange, format: Format) => Judged[];
