import type { OperationId } from '../../contract/operations.ts';
import type { Level } from '../../generate/expectations.ts';

/**
 * The client conformance report (client-conformance.json, schema schemas/client-report.schema.json): what
 * a sandbox session judged of the client under test. Written redacted: the key never appears in it.
 */

/** A request as the client sent it, the key redacted, the body cut for display. */
export interface SentRequest {
  /** 1-based number in the session. */
  seq: number;
  at: string;
  method: string;
  target: string;
  headers: Record<string, string>;
  body: string;
  bodyBytes: number;
  /** What the client got: a status, `reset`, or `none` when the session ended first. */
  answer: number | 'reset' | 'none';
}

/** One failure or observation of a client check on one request. */
export interface ClientFinding {
  check: string;
  level: Level;
  sections: string[];
  /** Fails the session: spec, and http with --strict. */
  gating: boolean;
  /** An operation id of the document, or `other`. */
  operation: string;
  /** The body format judged: json, xml, or none (no body). */
  format: 'json' | 'xml' | 'none';
  expected: string;
  received: string;
  request: SentRequest;
}

export interface ClientTally {
  passed: number;
  failed: number;
  observed: number;
}

export interface ClientCheckTally extends ClientTally {
  id: string;
  level: Level;
  sections: string[];
  description: string;
}

/** Failed checks that do not gate the session (http ones without --strict), and what --strict would have made of it. */
export interface NotGating {
  checks: Array<{ id: string; level: Level; failed: number }>;
  /** Their failures, all told. */
  failures: number;
  /** The verdict with --strict: not conformant as soon as an http check failed. */
  withStrict: 'conformant' | 'not conformant' | 'incomplete';
}

/** Verdicts of one check on one operation in one format. */
export interface ClientGroupTally extends ClientTally {
  check: string;
  level: Level;
  operation: string;
  format: 'json' | 'xml' | 'none';
}

export type TroubleKind = '429' | '503' | 'reset' | 'slow' | '401' | 'rate-limit';

export interface TroubleMet {
  kind: TroubleKind;
  /** The request that got it. */
  request: number;
  /** The operation id of that request, or `other`. */
  operation: string;
  /**
   * The client got through it: the same operation with the same data (query parameters, and the body's
   * value) succeeded, at that request (a late answer it waited for) or later.
   */
  survived: boolean;
  /** The request whose success survived it, when it was. */
  survivedBy?: number;
}

/** The body format of an operation with a body (json, xml), or `none` for one without (delete, demerge). */
export type CellFormat = 'json' | 'xml' | 'none';

/** What the client did with one operation in one format: how often it sent it, how often it succeeded. */
export interface ExercisedCell {
  operation: OperationId;
  format: CellFormat;
  requests: number;
  /** Answered with a success status (2xx): the operation worked. */
  succeeded: number;
  /** What the other requests got: a status, or `reset`, with counts. */
  answers: Record<string, number>;
  /** Declared: the verdict needs a success here. */
  declared: boolean;
}

/** A declared operation (and format) the client never got to succeed: why the session is not conformant. */
export interface MissingCell {
  operation: OperationId;
  format: CellFormat | 'any';
  reason: string;
}

/** What the session asked of the client (--operations, --formats) and what it did. */
export interface ClientCoverage {
  /** The operations the client declares: each must succeed (--operations; default all four). */
  operations: OperationId[];
  operationsFrom: 'option' | 'default';
  /** The body formats each operation with a body must succeed in (--formats); null: those the client sent it in. */
  formats: Array<'json' | 'xml'> | null;
  cells: ExercisedCell[];
  missing: MissingCell[];
}

/** Requests that came after the session ended by count (--requests): answered 503 with Retry-After, never judged. */
export interface LateRequests {
  count: number;
  /** The first ones (at most 20), as request lines; the key redacted. */
  first: Array<{ seq: number; at: string; method: string; target: string }>;
}

export interface ClientReport {
  kind: 'iswc-conformance-client-report';
  reportVersion: 2;
  /**
   * conformant: every declared operation succeeded (in every declared format) and no spec violation (with
   * --strict, no http violation either). incomplete: the client sent no request the checks judge (the
   * session shows nothing of it). Only a conformant session gets a certificate.
   */
  verdict: 'conformant' | 'not conformant' | 'incomplete';
  verdictText: string;
  strict: boolean;
  startedAt: string;
  finishedAt: string;
  /**
   * `requests`: --requests N were answered (later ones got 503, see lateRequests); `idle`: --idle seconds
   * without a request after the first; `wait-first`: no request within --wait-first seconds; `defect`:
   * judging a request raised (a defect of the sandbox, exit 4); `defect` says what happened.
   */
  endedBy: 'requests' | 'idle' | 'wait-first' | 'signal' | 'stop' | 'defect';
  harnessVersion: string;
  documentDigest: string;
  schemasDigest: string;
  sandbox: {
    url: string;
    choices: string;
    profile: string;
    /** The trouble asked for with --inject: kind, request number, and a run (times) or an outage (forSeconds). */
    inject: Array<{ kind: TroubleKind; at: number; times?: number; forSeconds?: number }>;
    rateLimit: string | null;
    requestLimit: number | null;
    idleSeconds: number | null;
    waitFirstSeconds: number | null;
  };
  client: {
    /** The User-Agent headers the client sent, most frequent first. */
    userAgents: string[];
    /** The agency the client acted for most (query agency, body agencyCode), or null. */
    agency: string | null;
    agencies: Record<string, number>;
  };
  requests: number;
  /** Requests per operation id (and `other`). */
  operations: Record<string, number>;
  checks: ClientTally & { gatingFailures: number; exercised: ClientCheckTally[] };
  /** Failed checks that did not gate (http without --strict): counted in the verdict line, the HTML and the certificate. Absent in reports of earlier versions. */
  notGating?: NotGating;
  groups: ClientGroupTally[];
  violations: ClientFinding[];
  /** Violations beyond the ones kept (the counts above hold them all). */
  violationsOmitted: number;
  observations: ClientFinding[];
  observationsOmitted: number;
  /** What the client declared and what it exercised: operation × format, requests and successes. */
  coverage: ClientCoverage;
  trouble: TroubleMet[];
  runs: { started: number; ended: number };
  /** Requests after the session ended by count (--requests): not judged, answered 503. */
  lateRequests: LateRequests;
  /** Present when the session ended on a defect of the sandbox: what raised, redacted. */
  defect?: string;
}
