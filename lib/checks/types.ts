import type { Format } from '../codec/index.ts';
import type { OperationId } from '../contract/operations.ts';
import type { Exchange } from '../http/types.ts';

/**
 * `spec`: stated by the interface document. `http`: RFC 9110 and safe-handling conventions the document
 * does not state. `observed`: the document says "not shown"; record what the server does, never fail.
 */
export type Level = 'spec' | 'http' | 'observed';
export const LEVELS: readonly Level[] = ['spec', 'http', 'observed'];

export type Verdict = 'pass' | 'fail' | 'skip' | 'observed' | 'waived';

/** What a check says about one exchange. */
export interface Judgement {
  /** `skip` when the exchange cannot show anything about the check (its reason in `received`). */
  verdict: 'pass' | 'fail' | 'observed' | 'skip';
  /** What the document (or HTTP) expects, in one line. */
  expected: string;
  /** What came, in one line. */
  received: string;
  /** For `observed` checks: the facts recorded (status, content type, body shape, ...). */
  observation?: Record<string, unknown>;
}

/** Everything a check may look at when it judges one exchange. */
export interface JudgeInput<P> {
  operation: OperationId | null;
  format: Format;
  exchange: Exchange;
  params: P;
  /** True for requests that deliberately lack a valid key. */
  authProbe: boolean;
  /** Statuses that are documented answers for this request beyond the operation's (401/403 for auth probes). */
  extraStatuses: readonly number[];
  /** The server may close the connection instead of answering this request (an oversized body). */
  connectionMayClose?: boolean;
  /**
   * The request acts for another agency than the profile's. Which agency a key may act for is not shown
   * (5.3), so 401 or 403 is a fair answer to it.
   */
  foreignAgency?: boolean;
}

/**
 * A check: a small named value (id, level, section of the document, one-line description) with the
 * function that judges an exchange. `every-exchange` checks are applied to every answer the harness
 * gets; `targeted` ones only where a case asks for them, with parameters.
 */
export interface Check<P = undefined> {
  id: string;
  level: Level;
  /** Sections of ../shared/spec/iswc-agency-api.md the check enforces (e.g. ['4.1', '7']). */
  sections: readonly string[];
  description: string;
  scope: 'every-exchange' | 'targeted';
  /** Returns null when the check does not apply to this exchange. */
  judge(input: JudgeInput<P>): Judgement | null;
}

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
  /** Replay information for generated inputs. */
  seed?: number;
  path?: string;
  durationMs?: number;
  /** For `waived`: the waiver (ISWC_WAIVERS) that turned this failure into a known deviation. */
  waiver?: { reason: string; until: string; index: number };
}
