/**
 * Types of the thin HTTP layer. An Exchange is what one request and its answer left behind; it never
 * holds the subscription key (the client records the placeholder instead), so it can be written to any
 * report as it is.
 */

/**
 * How the request authenticates: the target's key, no key header, a key that is wrong on purpose, the
 * header with an empty value, the target's key with the case of its letters changed (a key with no
 * letter has no such twin: the wrong key goes instead), or a near miss of the key (one character more,
 * its last left out, its last changed, a hyphen inside: lib/foundation/redact.ts).
 */
export type AuthMode = 'key' | 'none' | 'wrong' | 'empty' | 'key-case' | KeyNearMiss;

export interface RequestSpec {
  method: string;
  /** Path relative to the base URL, starting with '/', e.g. '/agent/run'. */
  path: string;
  /** Query parameters in order, encoded with encodeURIComponent. Ignored when rawQuery is set. */
  query?: ReadonlyArray<readonly [string, string]>;
  /** Query string used verbatim (without the leading '?'), for percent-encoding cases. */
  rawQuery?: string;
  /** Extra headers. The subscription-key header is added by the client according to `auth`. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Default 'key'. */
  auth?: AuthMode;
  /** The key header's name in lower case (a valid spelling, RFC 9110 §5.1); default as configured. */
  keyHeaderLower?: boolean;
}

export { KEY_CASE_PLACEHOLDER, KEY_NEAR_MISS_PLACEHOLDER, KEY_NEAR_MISSES, KEY_PLACEHOLDER, WRONG_KEY, keyNearMiss } from '../foundation/redact.ts';
import type { KeyNearMiss } from '../foundation/redact.ts';
export type { KeyNearMiss };

export interface RecordedRequest {
  method: string;
  /** Full URL with query string (the key is never in the URL). */
  url: string;
  headers: Record<string, string>;
  /** Body as text (UTF-8), cut to the report limit; `bodyBytes` is the real size. */
  body: string;
  bodyBytes: number;
  bodyTruncated: boolean;
  auth: AuthMode;
}

export interface RecordedResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** The body as text (complete unless `truncated`), decoded as lib/run/http/text.ts says. */
  body: string;
  bodyBytes: number;
  /**
   * True when `body` is not the whole body: cut at the maximum response size (BODY_TOO_LARGE), or only its
   * start kept because it nests too deep to be read (TOO_DEEP).
   */
  truncated: boolean;
  /** How the body was decoded when it was not plain UTF-8 (a byte order mark, a UTF-16 charset). */
  encoding?: string;
}

/** Stable codes of transport failures: a hostile or broken server gives one of these, never a throw. */
export type TransportErrorCode =
  | 'TIMEOUT' // no complete answer within the per-request timeout
  | 'BODY_TOO_LARGE' // response body over ISWC_MAX_BODY
  | 'CONNECTION_REFUSED'
  | 'CONNECTION_RESET' // closed or reset before a complete answer
  | 'PROXY' // the proxy (HTTPS_PROXY, HTTP_PROXY) could not be reached, or refused the request or the tunnel (407, 502, …)
  | 'TLS' // the target's certificate was not accepted (an unknown CA: NODE_EXTRA_CA_CERTS; another host name; expired)
  | 'PROTOCOL' // bytes that are not HTTP, or a body shorter than its Content-Length
  | 'DECOMPRESSION' // a content-encoding that fails or inflates past the limit
  | 'TOO_DEEP' // a JSON or XML body nested deeper than MAX_NESTING_DEPTH (lib/config/limits.ts): never decoded
  | 'REDIRECT_BLOCKED' // never produced as an error: redirects are answers; reserved for cross-origin URLs
  | 'THROTTLED' // still 429/503 after the bounded retries
  | 'UNRESPONSIVE' // not sent: too many answers in a row were unusable (timeouts, resets, not HTTP, …), or the key was refused on every request: the run fails fast instead of hanging
  | 'NOT_SENT' // not sent: the run stopped sending (interrupted by a signal, or at its time limit)
  | 'INVALID_URL';

export interface TransportError {
  code: TransportErrorCode;
  message: string;
}

export interface Exchange {
  request: RecordedRequest;
  response?: RecordedResponse;
  error?: TransportError;
  /** Wall time of the last attempt, in milliseconds. */
  durationMs: number;
  /** 1 + the number of resends (after 429, 502, 503, 504, or a connection that failed); 0 when nothing was sent. */
  attempts: number;
  /** Time spent waiting on Retry-After and the rate limiter, in milliseconds. */
  waitedMs: number;
  /**
   * An answer that came after `timeoutMs` (within the patience a target not on this machine gets,
   * `lateAnswerFactor`), from a target that had answered before: the timeout it passed. The document states no
   * response time, so the spec checks judge the answer as any; `http.answered` records it late.
   */
  lateAfterMs?: number;
}

export interface HttpClientOptions {
  /** http(s) URL without credentials; the key is sent only to this origin. */
  baseUrl: string;
  /** The subscription key; only ever sent to baseUrl's origin, never recorded. */
  key: string;
  /** Per-request timeout covering connect, headers and body (ms). Default 10000. */
  timeoutMs?: number;
  /**
   * How many times `timeoutMs` a request waits for its answer before it is no answer (TIMEOUT). A service
   * waking up after a deployment answers its first request late, and a shared staging one now and then; the
   * document states no response time, so a late answer is judged as any answer (and recorded late, Exchange
   * `lateAfterMs`). Default: 3 for a target not on this machine, 1 on it (the tests' hanging servers keep their timeouts).
   */
  lateAnswerFactor?: number;
  /** Maximum response body kept, in bytes; more is a BODY_TOO_LARGE failure. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Honour 429 and 503 with Retry-After as throttling (wait, resend, never a conformance failure).
   * Default true; off for a local target, where a 429 is an answer like any other and is judged.
   */
  throttling?: boolean;
  /** Resends after 429/503 (honouring Retry-After, capped by maxRetryWaitMs). Default 3. */
  maxRetries?: number;
  maxRetryWaitMs?: number;
  /**
   * After this many unusable answers in a row (timeouts, resets, refused connections, a proxy that refuses,
   * an untrusted certificate, bytes that are not HTTP, short, oversized or too deeply nested bodies, redirects to another origin, bodies in a coding not asked for; no
   * usable answer in between), later requests are not sent and come back at once with UNRESPONSIVE: a
   * broken target gives a clear failure in seconds, not a run of hours. Default 5.
   */
  unresponsiveAfter?: number;
  /**
   * A file shared by every client of the run (all workers, and the workers Playwright restarts after a
   * failing test): once one client gives up on the target, the others start from there.
   */
  unresponsiveFile?: string;
  /**
   * Stop the run when the target refuses the key: once the first `after` requests that show whether the
   * key is accepted (`shows`: the run's own key, a documented operation, the profile's agency) have all
   * been answered 401 or 403 (never an API Management quota answer, which is throttling), nothing more is
   * sent and `message` says why. One such request answered otherwise ends the watch for good.
   */
  keyRefusal?: { after: number; shows: (spec: RequestSpec) => boolean; message: string };
  /**
   * The route watch: the first `after` answers to documented operations (a run start among them, two paths
   * or more), all 404, stop the run with `reason` (a wrong base path); any other answer first ends the watch.
   */
  routeWatch?: { after: number; evidence: (spec: RequestSpec) => 'run-start' | 'documented' | undefined; reason: (seen: { count: number; paths: readonly string[]; gateway: boolean }) => string };
  /**
   * The most requests sent to the target, resends included (ISWC_BUDGET): once reached, nothing more is
   * sent and requests come back at once with NOT_SENT. Default: no cap.
   */
  budget?: number;
  /** Resends of a request answered 502, 503 without Retry-After or 504 while the target is away (maintenance). Default 6. */
  unavailableRetries?: number;
  /** The first back-off before such a resend, doubled each time, in ms. Default 1000 (6 resends: 63 s). */
  unavailableBackoffMs?: number;
  /** The pauses before the unpaced resends of a connection that could not be made (refused, DNS, TLS, proxy). Default 250 and 1000 ms. */
  quickRetryDelaysMs?: readonly number[];
  /** Called before every attempt; resolves when the request may go (rate limiting). */
  beforeSend?: () => Promise<void>;
  /** Sent as User-Agent so the API team can find the harness's traffic. */
  userAgent?: string;
  /**
   * Extra headers sent on every request (to the base URL's origin, the only one the client talks to):
   * a case's own header of the same name wins. Their values are never recorded: records and curl lines
   * show `$ISWC_HEADER_<NAME>`.
   */
  headers?: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  /**
   * The proxy to reach the base URL through (lib/config/proxy.ts decides it from HTTPS_PROXY, HTTP_PROXY
   * and NO_PROXY); absent or null: a direct connection pool to the origin.
   */
  proxy?: { readonly uri: string; readonly shown: string; readonly mode: 'connect' | 'absolute-form'; readonly variable?: string } | null;
  /** The CA file the run trusts besides Node's (NODE_EXTRA_CA_CERTS): the curl lines carry it as --cacert. */
  caFile?: string;
}

export interface HttpClient {
  send(spec: RequestSpec): Promise<Exchange>;
  /** Builds the curl line that replays a request, the key as $ISWC_SUBSCRIPTION_KEY. */
  curl(spec: RequestSpec): string;
  close(): Promise<void>;
}
