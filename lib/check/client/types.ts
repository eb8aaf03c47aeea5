import type { Format } from '../../contract/codec/index.ts';
import type { Operation } from '../../contract/operations.ts';
import type { XmlArrays } from '../../contract/profile/types.ts';
import type { Level } from '../../generate/expectations.ts';
import type { ClientReadingPoint } from './readings.ts';

/**
 * Client checks: the same interface judged from the other side. A client check looks at one request a
 * client under test sent to the sandbox (lib/sandbox/), or at the whole session when it ends, and says
 * whether the client kept what the document asks of it. Same levels and the same rule as the server
 * checks: `spec` only where every reasonable reading of the document agrees the client is wrong, `http`
 * for RFC conventions the document does not state, `observed` where the client relies on a point the
 * document leaves open.
 */

/** A request as the client sent it, read once; `view` decodes its body on first use. */
export interface ClientRequest {
  /** 1-based number of the request in the session. */
  seq: number;
  /** When its head arrived (ms since the epoch): the closest the sandbox sees to when the client sent it. */
  at: number;
  method: string;
  /** The request target as sent (path and query). */
  target: string;
  path: string;
  /** The raw query string, without '?'. */
  rawQuery: string;
  /** Header names in lower case; repeated headers joined with ', '. */
  headers: Readonly<Record<string, string>>;
  /** The body's bytes (empty when there was none); `tooLarge` when over the server's cap (bytes not kept). */
  body: Buffer;
  tooLarge: boolean;
  /** The documented operation the method and path name exactly, or null. */
  operation: Operation | null;
}

/** A query parameter as decoded from the query string. */
export interface QueryPair {
  name: string;
  value: string;
  /** False when the pair was not valid percent-encoding (then `value` is the raw text). */
  decoded: boolean;
}

export type DecodedBody =
  | { ok: true; value: unknown; root: string | undefined; xmlNotes: string[] }
  | { ok: false; error: string };

/** The request's body and query, decoded once for every check (lib/check/client/request.ts). */
export interface RequestView {
  query: readonly QueryPair[];
  /** Bytes in the body (0: no body). */
  bodyBytes: number;
  /** The format the Content-Type names: json, xml, text, other; undefined without the header. */
  declared: Format | 'text' | 'other' | undefined;
  /** What the bytes look like: `<` first is XML, anything else JSON; undefined without a body. */
  sniffed: Format | undefined;
  /** The format the body is judged in: the declared one when it is JSON or XML, else the sniffed one. */
  format: Format | undefined;
  /** The body as text; undefined when it is not valid in its encoding (then `textError`). */
  text: string | undefined;
  textError: string | undefined;
  /** The body parsed in its format (JSON: any value; XML: read along the resource's schema). */
  parsed: DecodedBody | undefined;
  /**
   * Why a body the sandbox could not read was left unread (XML nested deeper than it reads): the body
   * checks do not judge it, and client.xml records this (never a client's violation).
   */
  unread: string | undefined;
}

/** What the session knows when a request is judged: the key, the runs issued, throttling, retries. */
export interface SessionView {
  /** The subscription-key header name (lower case) and the key the client was given. */
  keyHeader: string;
  key: string;
  /** How the target reads XML arrays of a MergeRequest (the profile says; not shown by the document). */
  xmlArrays: XmlArrays;
  /** runIds the sandbox answered to run starts in this session, and those already ended. */
  issuedRunIds: ReadonlySet<string>;
  /**
   * The Retry-After this request is judged against: the latest answered to the same request (method,
   * target, body) before it arrived, on any connection, until a request after its delay lifts it; the
   * answer that set it and until when. Never another request's.
   */
  throttle: { setBy: number; status: number; notBefore: number; retryAfter: string } | undefined;
  /** This request repeats one whose answers were trouble (429, 5xx, a reset): how many times in a row. */
  retry: { of: number; attempt: number } | undefined;
  /** The rate limit of the session (--rate-limit): requests in its window (less the tolerance) with this one, and whether it exceeds it. */
  rate: { limit: number; windowMs: number; toleranceMs: number; inWindow: number; exceeded: boolean; text: string } | undefined;
}

export interface ClientJudgeInput {
  request: ClientRequest;
  view: RequestView;
  session: SessionView;
}

/** What a client check says about one request (or one item of the session, from `conclude`). */
export interface ClientJudgement {
  verdict: 'pass' | 'fail' | 'observed';
  /** What the document (or HTTP) asks of the client, in one line. */
  expected: string;
  /** What the client did, in one line. */
  received: string;
  /** For `conclude`: the request the judgement is about. */
  request?: number;
}

/** An answer as the client got it, or as production as built gives it: status, media type, the start of its body. */
export interface AnswerSeen {
  /** The status, or `reset` (the connection closed unanswered), or `none` (no answer came in time). */
  status: number | 'reset' | 'none';
  contentType: string | undefined;
  /** The start of the body as text. */
  body: string;
}

/**
 * One request compared with what production as built answers it (lib/sandbox/production.ts: the model
 * production-as-built of the reference server, sent the same requests the sandbox's own server answered).
 */
export interface ProductionComparison {
  request: ClientRequest;
  /** What the sandbox answered. */
  sandbox: AnswerSeen;
  /** What production as built answers the same request, after the same requests before it. */
  production: AnswerSeen;
  /** Earlier requests of the session that production as built refused where the sandbox did not: what follows may differ because of them. */
  earlierRefused: { count: number; first: number | undefined };
}

/** The whole session, for checks judged when it ends. */
export interface SessionRecord {
  /** The run starts answered with a runId: the runId and the request that started it. */
  runsStarted: ReadonlyArray<{ runId: string; request: number }>;
  /** runIds the client ended. */
  runsEnded: ReadonlySet<string>;
}

/** One file of lib/check/client/checks/, named after its id; the registry and docs/client-checks.md are generated. */
export interface ClientCheck {
  /** `client.<point>`: the file name without .ts. */
  id: string;
  level: Level;
  /** Sections of the interface document (or RFCs) the check enforces. */
  sections: readonly string[];
  /** The point of the client readings (lib/check/client/readings.ts) it gates or records. */
  reading: ClientReadingPoint;
  description: string;
  /** Judges one request; null when the check does not apply to it. */
  judge?: (input: ClientJudgeInput) => ClientJudgement | null;
  /** Judges the session when it ends (runs left open, …). */
  conclude?: (session: SessionRecord) => ClientJudgement[];
  /** Judges one request once production as built has answered it too (observed checks only: the sandbox's own choices are the client's test). */
  compare?: (input: ProductionComparison) => ClientJudgement | null;
}

/** Identity, for type checking of a check file. */
export function defineClientCheck(check: ClientCheck): ClientCheck {
  return check;
}

/** A pass: only counted (reports keep failures and observations), so one shared value without texts. */
export const PASSED: ClientJudgement = Object.freeze({ verdict: 'pass', expected: '', received: '' });
export const fail = (expected: string, received: string): ClientJudgement => ({ verdict: 'fail', expected, received });
export const noted = (expected: string, received: string): ClientJudgement => ({ verdict: 'observed', expected, received });
