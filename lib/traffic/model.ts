/**
 * Recorded traffic: what an agency's client sent and what it met, one exchange at a time, read from a
 * sandbox session, a HAR file or a gateway's log exported as JSON lines (schemas/traffic-log.schema.json).
 * Nothing here holds a key in clear: every reader refuses an input that does (lib/traffic/credentials.ts).
 */

/** What a recorded request was sent with in Ocp-Apim-Subscription-Key: the right key, none, an empty one, or another. */
export type KeyMode = 'key' | 'none' | 'empty' | 'wrong';

/** Where the traffic came from. */
export type TrafficSource = 'sandbox' | 'har' | 'gateway-log';

export interface TrafficRequest {
  method: string;
  /** Origin-form: the path (under the API's base path) and the query, as sent. */
  target: string;
  /** Header names in lower case; repeated headers joined with ', '. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

export interface TrafficResponse {
  status: number;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string>>;
  /** The body as the client read it (a content coding is kept as sent: see `headers['content-encoding']`). */
  body: Buffer;
}

export interface TrafficExchange {
  /** 1-based, in the order of its session. */
  seq: number;
  /** When the request was sent or arrived (ISO 8601), when recorded. */
  at: string | null;
  /** The agency the line says it belongs to (a gateway's subscription), when it says. */
  agency: string | null;
  request: TrafficRequest;
  /** What the client met; null when it met no answer (`error` says why). */
  response: TrafficResponse | null;
  error: string | null;
  /** Trouble the sandbox gave instead of the answer (429, 503, reset, slow, 401, rate-limit) or `late` (after --requests): no answer of the API. */
  trouble: string | null;
  /** Where the exchange is in its file, for messages: `file:line 12`, `file entries[3]`. */
  where: string;
  /** How long the client waited for the answer (or until it gave up), in milliseconds, when recorded (a line's durationMs, a HAR entry's time). */
  durationMs?: number;
}

/** One agency's recorded traffic: a sandbox session, a HAR file, or one agency's lines of a gateway log. */
export interface TrafficSession {
  /** The file, as the caller reads its path. */
  file: string;
  /** Unique among the sessions read together: the file, and the session's id within it when it holds several. */
  id: string;
  source: TrafficSource;
  /** The agency the session's client acts for: the row of the compatibility matrix. */
  agency: string;
  /** What the recording says of itself (the sandbox writes it; a gateway log may). */
  meta: SessionMeta;
  exchanges: TrafficExchange[];
}

export interface SessionMeta {
  /** `iswc-conformance sandbox 0.1.0`, a gateway's name, … */
  recordedBy?: string;
  startedAt?: string;
  /** The reference server's choices the sandbox answered with. */
  choices?: string;
  /** The sandbox's target profile (by name). */
  profile?: string;
  /** The client's User-Agent, or a name for it. */
  client?: string;
  /** What the right key was written as (`$ISWC_SANDBOX_KEY` in a sandbox session). */
  keyPlaceholder?: string;
  /** The base path the recorded URLs carried before the API's paths (`/agency/v1`), when there was one. */
  basePath?: string;
}

/** A recorded input that cannot be used, said as: the file, where in it, what is wrong, what to do. */
export class TrafficError extends Error {
  readonly code = 'ISWC_TRAFFIC';
  constructor(
    readonly file: string,
    readonly where: string,
    readonly what: string,
    readonly todo: string,
  ) {
    super(`${file}${where ? ` (${where})` : ''}: ${what}; ${todo}`);
    this.name = 'TrafficError';
    this.stack = `${this.name}: ${this.message}`;
  }
}
