import type { Format } from '../contract/codec/index.ts';
import type { Exchange } from '../contract/exchange.ts';
import type { OperationId } from '../contract/operations.ts';
import type { Because, Level } from '../generate/expectations.ts';
import type { ReadingPoint } from './readings.ts';

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

/** A JSON Schema of the parameters a check takes beyond `because`, `sections` and `facts`. */
export interface ParamsSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: readonly string[];
}

/**
 * A check: one file of lib/check/checks/, named after its id. The registry, docs/checks.md,
 * docs/readings.md, the expectations' parameter types and the scenario schema are generated from these
 * files (npm run generate).
 */
export interface Check<P = Because> {
  id: string;
  level: Level;
  /** Sections of docs/spec/iswc-agency-api.md the check enforces (e.g. ['4.1', '7']). */
  sections: readonly string[];
  /** The point of docs/readings.md this check gates (spec, http) or records (observed). */
  reading: ReadingPoint;
  description: string;
  /** `every-exchange`: applied to every answer; `targeted`: where a step asks for it, with parameters. */
  scope: 'every-exchange' | 'targeted';
  /** The parameters the check takes beyond `because`, `sections` and `facts`. */
  params?: ParamsSchema;
  /** Returns null when the check does not apply to this exchange. */
  judge(input: JudgeInput<P>): Judgement | null;
}

/** Identity, for type inference of a check file's parameters. */
export function defineCheck<P extends Because = Because>(check: Check<P>): Check<P> {
  return check;
}
