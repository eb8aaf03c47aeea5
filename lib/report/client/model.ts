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
  /** The client went on: a later request got an answer that was not trouble. */
  survived: boolean;
}

export interface ClientReport {
  kind: 'iswc-conformance-client-report';
  reportVersion: 1;
  /** conformant: no spec violation (with --strict, no http violation either). */
  /** incomplete: the client sent no request the checks judge (the session shows nothing of it): no certificate. */
  verdict: 'conformant' | 'not conformant' | 'incomplete';
  verdictText: string;
  strict: boolean;
  startedAt: string;
  finishedAt: string;
  /** `defect`: judging a request raised (a defect of the sandbox, exit 4); `defect` says what happened. */
  endedBy: 'requests' | 'idle' | 'signal' | 'stop' | 'defect';
  harnessVersion: string;
  documentDigest: string;
  schemasDigest: string;
  sandbox: {
    url: string;
    choices: string;
    profile: string;
    /** The trouble asked for with --inject: kind and request number. */
    inject: Array<{ kind: TroubleKind; at: number }>;
    rateLimit: string | null;
    requestLimit: number | null;
    idleSeconds: number | null;
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
  groups: ClientGroupTally[];
  violations: ClientFinding[];
  /** Violations beyond the ones kept (the counts above hold them all). */
  violationsOmitted: number;
  observations: ClientFinding[];
  observationsOmitted: number;
  trouble: TroubleMet[];
  runs: { started: number; ended: number };
  /** Present when the session ended on a defect of the sandbox: what raised, redacted. */
  defect?: string;
}
