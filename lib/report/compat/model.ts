import type { CompatVerdict } from '../../check/compat/compare.ts';
import type { CellFormat } from '../../check/compat/shape.ts';
import type { OperationId } from '../../contract/operations.ts';

/**
 * The compatibility report (`compat.json`): agencies' recorded traffic replayed against a build, each
 * exchange judged against the document and against what the agency's client met when it was recorded,
 * gathered in the matrix agencies × operations × formats.
 */

export type { CompatVerdict, CellFormat };

export const COMPAT_VERDICTS: readonly CompatVerdict[] = ['broken', 'changed', 'compatible', 'skipped'];

export interface ExchangeSide {
  request?: { method: string; target: string; headers: Record<string, string>; body: string; bodyBytes: number };
  /** What came back; `error` when nothing did. */
  answer: { status: number | null; headers: Record<string, string>; body: string; bodyBytes: number; error?: string };
}

export interface DocumentCheck {
  checkId: string;
  level: string;
  sections: string[];
  expected: string;
  received: string;
  /** The answer the client met failed it too: a deviation it lived with, which breaks nothing by itself. */
  alsoWhenRecorded: boolean;
}

export interface CompatExchange {
  /** `e1`, `e2`, …: stable within the report, the anchor of its side-by-side view. */
  id: string;
  agency: string;
  /** The session (its file, and its id within it). */
  session: string;
  seq: number;
  /** Where it is in its file. */
  where: string;
  operation: OperationId | 'other';
  format: CellFormat;
  shape: { key: string; text: string };
  verdict: CompatVerdict;
  /** Why: document failures, a success turned refusal, differences; or why it was not replayed. */
  reasons: string[];
  /** The exchange whose replay judged this one: itself when it was replayed, else one of the same shape. */
  judgedBy: string;
  /** What the client met when the session was recorded. */
  recorded: ExchangeSide;
  /** What was sent to the build and what it answered (only on the exchange that was replayed). */
  replayed?: ExchangeSide;
  /** Differences left out as noise (they differ between two answers of the baseline to the same request). */
  noise?: string[];
  /** Gating failures of the document's checks on the build's answer. */
  documentFailures?: DocumentCheck[];
  /** How the identifiers of a request that changes data were mapped onto a disposable entry. */
  mapping?: string;
  /** What the client meets that breaks nothing (an answer slower than recorded, within the client's wait). */
  findings?: string[];
  /** Not replayed although the client met an answer of the API (no key for its agency, the build refused it, requests that change data off, the budget, a stop): its agency is not judged. */
  notJudged?: boolean;
  /** How long the client of its session waits for an answer, in milliseconds, and where that comes from. */
  clientWait?: { ms: number; source: string };
}

export type Counts = Record<CompatVerdict, number>;

export interface CompatCell {
  agency: string;
  operation: OperationId | 'other';
  format: CellFormat;
  /** skipped: not judged (an exchange of it could not be replayed, or none could), unless one is broken. */
  verdict: CompatVerdict;
  counts: Counts;
  /** Exchanges not replayed although the client met an answer of the API: the cell is not judged unless one is broken. */
  notJudged: number;
  /** Exchange ids, in order. */
  exchanges: string[];
}

export interface CompatAgency {
  agency: string;
  sessions: string[];
  /** What a client certificate beside a session says of it (certify --client binds the session's digest), by session. */
  certified?: Record<string, string>;
  /** skipped: not judged (an exchange of it could not be replayed), unless one is broken: never compatible. */
  verdict: CompatVerdict;
  counts: Counts;
  /** Exchanges not replayed although the client met an answer of the API. */
  notJudged: number;
}

export type CompatHaltKind = 'interrupted' | 'target-unusable' | 'budget' | 'max-duration';

export interface CompatReport {
  kind: 'iswc-conformance-compat';
  reportVersion: 1;
  harnessVersion: string;
  startedAt: string;
  finishedAt: string;
  target: { baseUrl: string | null; embedded: boolean; profile: string; profileDigest: string; agency: string };
  settings: { destructive: boolean; strict: boolean; rate: string | null; budget: number | null; maxDuration: string | null; clientTimeout?: string | null; agencyKeys?: string[] };
  /** Where the noise was learned. */
  baseline: string;
  /** How the requests sent were chosen. */
  sampling: string;
  outcome: {
    /** broken: an agency is broken; not judged: none is, but an agency could not be judged whole; changed: every agency judged, one meets something different; compatible: every replayed exchange as recorded; incomplete: nothing could be replayed; unusable: the build was found unusable and nothing is judged. */
    verdict: 'broken' | 'not judged' | 'changed' | 'compatible' | 'incomplete' | 'unusable';
    text: string;
    exitCode: number;
    halt?: { kind: CompatHaltKind; reason: string };
  };
  figures: {
    sessions: number;
    agencies: number;
    exchanges: number;
    shapes: number;
    /** Shapes replayed against the build. */
    replayed: number;
    /** Requests to the build: planned, sent (resends included), resends, answered; time waiting on throttling. */
    requests: { planned: number; sent: number; retried: number; answered: number; waitedMs: number };
  };
  agencies: CompatAgency[];
  cells: CompatCell[];
  exchanges: CompatExchange[];
}

/** The worst verdict of a set: broken, then not judged (skipped) when an exchange that should have been judged was not, then changed, then compatible; skipped too when nothing was judged. */
export function worstOf(counts: Counts, notJudged = 0): CompatVerdict {
  if (counts.broken > 0) return 'broken';
  if (notJudged > 0) return 'skipped';
  if (counts.changed > 0) return 'changed';
  if (counts.compatible > 0) return 'compatible';
  return 'skipped';
}

export function emptyCounts(): Counts {
  return { broken: 0, changed: 0, compatible: 0, skipped: 0 };
}
