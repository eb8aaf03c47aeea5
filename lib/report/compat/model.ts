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
}

export type Counts = Record<CompatVerdict, number>;

export interface CompatCell {
  agency: string;
  operation: OperationId | 'other';
  format: CellFormat;
  verdict: CompatVerdict;
  counts: Counts;
  /** Exchange ids, in order. */
  exchanges: string[];
}

export interface CompatAgency {
  agency: string;
  sessions: string[];
  /** What a client certificate beside a session says of it (certify --client binds the session's digest), by session. */
  certified?: Record<string, string>;
  verdict: CompatVerdict;
  counts: Counts;
}

export type CompatHaltKind = 'interrupted' | 'target-unusable' | 'budget' | 'max-duration';

export interface CompatReport {
  kind: 'iswc-conformance-compat';
  reportVersion: 1;
  harnessVersion: string;
  startedAt: string;
  finishedAt: string;
  target: { baseUrl: string | null; embedded: boolean; profile: string; profileDigest: string; agency: string };
  settings: { destructive: boolean; strict: boolean; rate: string | null; budget: number | null; maxDuration: string | null };
  /** Where the noise was learned. */
  baseline: string;
  /** How the requests sent were chosen. */
  sampling: string;
  outcome: {
    /** broken: an agency is broken; changed: none, but one meets something different; compatible: every replayed exchange as recorded; incomplete: nothing could be replayed. */
    verdict: 'broken' | 'changed' | 'compatible' | 'incomplete';
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

/** The worst verdict of a set: broken, then changed, then compatible; skipped only when nothing was judged. */
export function worstOf(counts: Counts): CompatVerdict {
  if (counts.broken > 0) return 'broken';
  if (counts.changed > 0) return 'changed';
  if (counts.compatible > 0) return 'compatible';
  return 'skipped';
}

export function emptyCounts(): Counts {
  return { broken: 0, changed: 0, compatible: 0, skipped: 0 };
}
