import { readFileSync, writeFileSync } from 'node:fs';
/**
 * The thin HTTP client of the harness: one undici Pool to the base URL's origin (keep-alive), or, when a
 * proxy applies (lib/config/proxy.ts), a ProxyAgent that reaches that one origin through it; no
 * redirects followed, no decompression, a per-request timeout that covers connect, headers and the
 * whole body, a response-size cap, bounded retries on 429/503, and an Exchange record that never holds
 * the subscription key nor an extra header's value. `send` never rejects on a transport failure: it
 * answers an Exchange with `error`.
 * (The one exception is a rejecting `beforeSend` hook, e.g. an unreachable rate pacer: that is a harness
 * failure and propagates, so that requests are never sent unpaced.)
 */
import { errors, Pool, ProxyAgent } from 'undici';
import type { Dispatcher } from 'undici';
import { checkExtraHeaders, headerPlaceholder, headerVariable } from '../../config/headers.ts';
import { credentialsOf } from '../../config/proxy.ts';
import { subscriptionKeyHeader } from '../../contract/openapi.ts';
import { createRedactor, headerSecrets, keyWithCaseChanged, proxySecrets } from '../../foundation/redact.ts';
import { curlCommand } from './curl.ts';
import type { CurlHeader, CurlParts } from './curl.ts';
import { connectFailure, dnsFailure, proxyFailure, proxyVerdict, proxyVerdictFailure, tlsFailure } from './network-errors.ts';
import { readTunnelAnswer } from './tunnel-probe.ts';
import { Availability, isUnavailableAnswer, requestKind, UNAVAILABLE_FIRST_BACKOFF_MS, UNAVAILABLE_RETRIES } from './availability.ts';
import { WaitClock } from './wait-clock.ts';
import type { ProxyInUse } from './network-errors.ts';
import { KEY_CASE_PLACEHOLDER, KEY_NEAR_MISS_PLACEHOLDER, KEY_NEAR_MISSES, KEY_PLACEHOLDER, WRONG_KEY, keyNearMiss } from '../../contract/exchange.ts';
import type { KeyNearMiss } from '../../contract/exchange.ts';
import { decodeResponseText } from './text.ts';
import { isLoopback } from '../../config/loopback.ts';
import { MAX_NESTING_DEPTH } from '../../config/limits.ts';
import { nestingOf } from '../../contract/answer.ts';
import { tooDeepText } from '../../contract/codec/depth.ts';
import { isGatewayNotFound } from '../../contract/routes.ts';
import type {
  AuthMode,
  Exchange,
  HttpClient,
  HttpClientOptions,
  RecordedRequest,
  RecordedResponse,
  RequestSpec,
  TransportError,
  TransportErrorCode,
} from '../../contract/exchange.ts';


/** A near miss of the key (lib/foundation/redact.ts). */
const isNearMiss = (auth: string): auth is KeyNearMiss => (KEY_NEAR_MISSES as readonly string[]).includes(auth);

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_MAX_RETRY_WAIT_MS = 30_000;
export const DEFAULT_USER_AGENT = 'iswc-conformance';
/** Request bodies are recorded up to this many bytes. */
export const RECORDED_REQUEST_BODY_LIMIT = 64 * 1024;
/** Of a body nested too deep to be read (TOO_DEEP), this many characters are kept, to show what came. */
export const TOO_DEEP_KEPT_CHARS = 1024;
/** How often a client reads the run's shared circuit-breaker file, at most. */
export const BREAKER_READ_INTERVAL_MS = 250;
/** Concurrent connections to the target. */
const CONNECTIONS = 16;

/** Thrown by createHttpClient for a base URL it refuses. */
export class BadBaseUrlError extends Error {
  readonly code = 'ISWC_BAD_BASE_URL';
  constructor(baseUrl: string, reason: string) {
    super(`Invalid base URL ${JSON.stringify(baseUrl)}: ${reason}`);
    this.name = 'BadBaseUrlError';
  }
}

interface Base {
  origin: string;
  /** Path prefix without a trailing slash ('' for the root). */
  prefix: string;
}

function parseBaseUrl(baseUrl: string): Base {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new BadBaseUrlError(baseUrl, 'not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BadBaseUrlError(baseUrl, `scheme ${url.protocol} is not http: or https:`);
  if (url.username !== '' || url.password !== '') throw new BadBaseUrlError(baseUrl, 'credentials in the URL are not allowed (the key goes in its header)');
  if (baseUrl.includes('?') || baseUrl.includes('#')) throw new BadBaseUrlError(baseUrl, 'a base URL has no query or fragment');
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
}

class InvalidUrl extends Error {}

/** Path and query of a request; throws InvalidUrl for anything that is not a path under the base URL. */
function requestTarget(base: Base, spec: RequestSpec): string {
  const path = spec.path;
  if (!path.startsWith('/')) throw new InvalidUrl(`path ${JSON.stringify(path)} does not start with '/'`);
  if (path.startsWith('//')) throw new InvalidUrl(`path ${JSON.stringify(path)} starts with '//' (a network-path reference)`);
  if (/[?#]/.test(path)) throw new InvalidUrl(`path ${JSON.stringify(path)} contains '?' or '#' (use query or rawQuery)`);
  let query = '';
  if (spec.rawQuery !== undefined) {
    if (spec.rawQuery.includes('#')) throw new InvalidUrl(`rawQuery ${JSON.stringify(spec.rawQuery)} contains '#'`);
    query = `?${spec.rawQuery}`;
  } else if (spec.query && spec.query.length > 0) {
    try {
      query = `?${spec.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
    } catch (e) {
      throw new InvalidUrl(`query cannot be encoded: ${(e as Error).message}`);
    }
  }
  const target = `${base.prefix}${path}${query}`;
  // What may go on the request line: visible ASCII only (no spaces, controls or raw non-ASCII).
  const bad = /[^\x21-\x7e]/.exec(target);
  if (bad) throw new InvalidUrl(`request target contains the character U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}; percent-encode it`);
  return target;
}

function bodyBytesOf(body: string | Uint8Array | undefined): Buffer | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** Cuts UTF-8 bytes at `limit` without splitting a character. */
function utf8Prefix(bytes: Buffer, limit: number): string {
  if (bytes.length <= limit) return bytes.toString('utf8');
  let end = limit;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

/** The first `max` UTF-16 units of a text, never ending inside a surrogate pair. */
function startOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Retry-After as a delay in ms (delta-seconds or HTTP-date); undefined when absent or unreadable. */
/**
 * API Management's quota policies answer 403 "Out of call volume quota. Quota will be replenished in …"
 * (quota-by-key; "Out of bandwidth quota" for bandwidth): a limit of the subscription, not an answer of the API.
 */
export function isQuotaAnswer(status: number, body: string): boolean {
  return status === 403 && /out of (call volume|bandwidth) quota/i.test(body.slice(0, 2048));
}

export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  if (/[a-z]/i.test(v)) {
    const at = Date.parse(v);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  return undefined;
}

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e instanceof Error; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message !== err.message ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}

type Phase = 'headers' | 'body';

function classify(err: unknown, phase: Phase): TransportErrorCode {
  const code = errorCode(err) ?? '';
  // undici's HTTPParserError does not always carry its HPE_* code.
  if (code.startsWith('HPE_') || (err instanceof Error && err.name === 'HTTPParserError')) return 'PROTOCOL';
  switch (code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return 'TIMEOUT';
    case 'ECONNREFUSED':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EADDRNOTAVAIL':
      return 'CONNECTION_REFUSED';
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
    case 'UND_ERR_HEADERS_OVERFLOW':
    case 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH':
    case 'UND_ERR_NOT_SUPPORTED':
    case 'UND_ERR_INFO':
    case 'EPROTO':
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
      return 'PROTOCOL';
    case 'UND_ERR_INVALID_ARG':
      return /path|url/i.test(errorMessage(err)) ? 'INVALID_URL' : 'PROTOCOL';
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_DESTROYED':
    case 'UND_ERR_ABORTED':
    case 'ABORT_ERR':
      // Closed before the body was complete: the answer is cut short of its framing.
      return phase === 'body' && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') ? 'PROTOCOL' : 'CONNECTION_RESET';
    default:
      if (/^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_SSL)/.test(code)) return 'PROTOCOL';
      return phase === 'body' ? 'PROTOCOL' : 'CONNECTION_RESET';
  }
}

interface Attempt {
  response?: RecordedResponse;
  error?: TransportError;
  durationMs: number;
}

/** Transport failures that leave nothing to judge: the target did not give a usable HTTP answer. */
const UNUSABLE_CODES: ReadonlySet<TransportErrorCode> = new Set(['TIMEOUT', 'CONNECTION_REFUSED', 'CONNECTION_RESET', 'PROXY', 'TLS', 'PROTOCOL', 'BODY_TOO_LARGE', 'DECOMPRESSION', 'TOO_DEEP']);

/**
 * Why an attempt's answer is unusable, or undefined when it is an HTTP answer the checks can judge:
 * no complete answer (timeouts, resets, refused connections, bytes that are not HTTP, short or oversized
 * bodies), a body nested too deep to be read, a redirect to another origin (never followed: nothing of the target is in it), or a body in a
 * content coding the client did not accept (it asks for identity; such a body, a compression bomb for
 * instance, is never inflated, so nothing in it can be judged). Each counts toward the circuit breaker.
 */
export function unusableAnswer(result: { response?: RecordedResponse; error?: TransportError }, origin: string): string | undefined {
  if (result.error) return UNUSABLE_CODES.has(result.error.code) ? `${result.error.code}: ${result.error.message}` : undefined;
  const response = result.response;
  if (!response) return undefined;
  const location = response.headers.location;
  if (response.status >= 300 && response.status < 400 && location !== undefined) {
    let elsewhere: string | undefined;
    try {
      const to = new URL(location, `${origin}/`);
      if (to.origin !== origin) elsewhere = to.origin;
    } catch {
      elsewhere = 'an unreadable location';
    }
    if (elsewhere !== undefined) return `a ${response.status} redirect to ${elsewhere}, another origin (never followed)`;
  }
  const coding = response.headers['content-encoding']?.trim().toLowerCase();
  if (coding !== undefined && coding !== '' && coding !== 'identity') return `a body in content coding "${coding}", which the harness did not accept (it asks for identity)`;
  return undefined;
}

/** What a run's client has done so far: the figures the progress line, the reports and the certificate give. */
export interface ClientProgress {
  /** Requests sent to the target: every attempt, resends included (what a budget caps, what a gateway counts). */
  sent: number;
  /** Of those, resends: after 429 or 503 with Retry-After, 502, 503 or 504 (maintenance), or a connection that failed. */
  retried: number;
  /** Of those, the ones the target (or a gateway in front of it) answered with an HTTP status. */
  answered: number;
  /** Wall time with a request waiting on throttling or on a target in maintenance, in milliseconds. */
  waitedMs: number;
}

/** The client of a run: an HttpClient whose circuit breaker can be read, and which can be told to stop. */
export interface RunClient extends HttpClient {
  /**
   * Why nothing more is sent because of the target: it cannot be reached, too many answers in a row were
   * unusable, it is unavailable (maintenance that does not end), or the key was refused on every request
   * (here or in another client of the run).
   */
  unusable(): string | undefined;
  /** Why nothing more is sent because the request budget is used up, once it is. */
  budgetSpent(): string | undefined;
  /** Lowers the budget (a shard's share of the run's); never raises it, never below what was sent. */
  limitBudget(requests: number): void;
  /** Stops sending for good: no request starts after this call; waits on the pace or Retry-After end at once. */
  stop(reason: string): void;
  /** Why the run stopped sending (interrupted, time limit), once `stop` was called. */
  stopped(): string | undefined;
  progress(): ClientProgress;
}

/** Transport failures that mean the target cannot be reached at all: they will not go away by themselves. */
const UNREACHABLE_CODES: ReadonlySet<TransportErrorCode> = new Set(['CONNECTION_REFUSED', 'PROXY', 'TLS']);
/** The unpaced retries of a connection that could not be made (nothing reached the target): after these, the run stops. */
export const QUICK_RETRY_DELAYS_MS: readonly number[] = [250, 1000];

/** Why the run stops when the target cannot be reached: what it is, said once, with what to do. */
function unreachableReason(error: TransportError, attempts: number): string {
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  if (error.code === 'TLS') return `no TLS connection could be made (${tries}): ${error.message}`;
  if (error.code === 'PROXY') return `the request never reached the target (${tries}): ${error.message}`;
  if (error.message.startsWith('DNS: ')) return `the target could not be reached (${tries}): ${error.message}`;
  return `the target could not be reached (${tries}): ${error.message}; check the base URL's host and port, and that the server runs there`;
}

/** Why the run stops when the target is away for good: maintenance, or a gateway without its service. */
function unavailableReason(status: number, forMs: number, retries: number): string {
  const what = status === 503 ? '503 without Retry-After (maintenance)' : `${status} (a gateway that cannot reach the service)`;
  return `the target is unavailable: every request was answered ${what} for ${Math.round(forMs / 1000)} s, through ${retries} resends with back-off; try again later`;
}

/**
 * A request to a target not on this machine waits this many times the timeout (ISWC_TIMEOUT_MS) before it is
 * no answer: a service started or deployed just before the run (an App Service without Always On, a
 * container scaled from zero) answers its first request late, and a gate runs right after a deployment; a
 * shared staging answers one request in a few hundred late (a pause, a lock). The document states no
 * response time: an answer after the timeout is judged by the spec checks as any answer, and `http.answered`
 * records it late (gating with ISWC_STRICT=1), except a target's first answer. A target that never answers is
 * still found unusable after five timeouts in a row. On this machine a server that answers at all answers in
 * time (the tests' hanging servers keep their timeouts).
 */
export const LATE_ANSWER_FACTOR = 3;

export function createHttpClient(options: HttpClientOptions): RunClient {
  const base = parseBaseUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const lateAnswerFactor = Math.max(1, options.lateAnswerFactor ?? (isLoopback(base.origin) ? 1 : LATE_ANSWER_FACTOR));
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxRetries = Math.max(0, options.maxRetries ?? DEFAULT_MAX_RETRIES);
  const maxRetryWaitMs = Math.max(0, options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS);
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const keyHeader = subscriptionKeyHeader();
  const keyHeaderLower = keyHeader.toLowerCase();
  const keyHeaderOf = (spec: RequestSpec): string => (spec.keyHeaderLower === true ? keyHeaderLower : keyHeader);
  const key = options.key;
  const extraHeaders = options.headers ?? [];
  checkExtraHeaders(extraHeaders, 'extra headers', { [keyHeader]: 'the harness sends the subscription key itself, from ISWC_SUBSCRIPTION_KEY' });
  const proxy: ProxyInUse | null = options.proxy ?? null;
  // No secret may reach a record, whatever form a caller or a server puts it in.
  const redactor = createRedactor([key, ...headerSecrets(extraHeaders), ...(proxy ? proxySecrets(credentialsOf(new URL(proxy.uri))) : [])]);
  const scrub = (s: string): string => redactor.text(s);

  const poolOptions = {
    connections: CONNECTIONS,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  };
  const dispatcher: Dispatcher =
    proxy === null
      ? new Pool(base.origin, { ...poolOptions, connect: { timeout: timeoutMs } })
      : new ProxyAgent({
          uri: proxy.uri,
          // Absolute-form requests for an http:// target (as curl sends them); a CONNECT tunnel otherwise.
          proxyTunnel: proxy.mode === 'connect',
          ...poolOptions,
          // The pool to the target (through the tunnel) and the one to the proxy (absolute-form) keep the client's limits.
          factory: (origin: string | URL, opts: object) => new Pool(origin, { ...poolOptions, ...opts }),
          proxyTls: { timeout: timeoutMs },
        });
  // Pool requests go to the pool's origin; the proxy agent is told which origin to reach.
  const through = proxy === null ? {} : { origin: base.origin };
  let closed = false;

  /** A header the run adds to every request, as sent (value) and as recorded (placeholder). */
  const extraByName = new Map(extraHeaders.map((h) => [h.name.toLowerCase(), h]));

  /** The headers sent, in order, without the key header; and the key header's value. */
  const headersOf = (spec: RequestSpec): { list: Array<[string, string]>; keyValue: string | undefined } => {
    const list: Array<[string, string]> = [];
    let hasUserAgent = false;
    let hasEncoding = false;
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      const lower = name.toLowerCase();
      if (lower === keyHeaderLower) continue; // the client owns the key header
      if (lower === 'user-agent') hasUserAgent = true;
      if (lower === 'accept-encoding') hasEncoding = true;
      list.push([name, value]);
    }
    // Without Accept-Encoding any content coding is acceptable (RFC 9110 §12.5.3), and bodies are judged
    // as they come, never inflated: ask for them uncompressed.
    if (!hasEncoding) list.unshift(['Accept-Encoding', 'identity']);
    if (!hasUserAgent) list.unshift(['User-Agent', userAgent]);
    // The run's extra headers, unless the case sets one of the same name itself.
    if (extraHeaders.length > 0) {
      const own = new Set(Object.keys(spec.headers ?? {}).map((n) => n.toLowerCase()));
      for (const h of extraHeaders) if (!own.has(h.name.toLowerCase())) list.push([h.name, h.value]);
    }
    const auth: AuthMode = spec.auth ?? 'key';
    const keyValue = auth === 'key' ? key : auth === 'wrong' ? WRONG_KEY : auth === 'empty' ? '' : auth === 'key-case' ? (keyWithCaseChanged(key) ?? WRONG_KEY) : isNearMiss(auth) ? (keyNearMiss(key, auth) ?? WRONG_KEY) : undefined;
    return { list, keyValue };
  };

  /** Is this entry of a request's list one of the run's extra headers (not the case's own)? */
  const isExtra = (name: string, value: string): boolean => {
    if (extraByName.size === 0) return false;
    const extra = extraByName.get(name.toLowerCase());
    return extra !== undefined && extra.name === name && extra.value === value;
  };

  const recordRequest = (spec: RequestSpec, url: string, list: Array<[string, string]>, keyValue: string | undefined, body: Buffer | undefined): RecordedRequest => {
    const auth: AuthMode = spec.auth ?? 'key';
    const headers: Record<string, string> = {};
    for (const [name, value] of list) headers[name] = isExtra(name, value) && value !== '' ? headerPlaceholder(name) : scrub(value);
    if (keyValue !== undefined) headers[keyHeaderOf(spec)] = auth === 'key' ? KEY_PLACEHOLDER : auth === 'key-case' && keyValue !== WRONG_KEY ? KEY_CASE_PLACEHOLDER : isNearMiss(auth) && keyValue !== WRONG_KEY ? KEY_NEAR_MISS_PLACEHOLDER[auth] : keyValue;
    const bodyBytes = body?.length ?? 0;
    return {
      method: spec.method,
      url: scrub(url),
      headers,
      body: body ? scrub(utf8Prefix(body, RECORDED_REQUEST_BODY_LIMIT)) : '',
      bodyBytes,
      bodyTruncated: bodyBytes > RECORDED_REQUEST_BODY_LIMIT,
      auth,
    };
  };

  const attempt = async (method: string, target: string, headers: Record<string, string>, body: Buffer | undefined): Promise<Attempt> => {
    const started = performance.now();
    const controller = new AbortController();
    let timedOut = false;
    // An answer may come late (a service waking up after a deployment, a pause): judged, and recorded late.
    const limitMs = timeoutMs * lateAnswerFactor;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no complete answer within ${limitMs} ms`));
    }, limitMs);
    let phase: Phase = 'headers';
    let status = 0;
    let seen = 0;
    // Headers that did arrive before a failure in the body: kept, so checks can still read the framing.
    let partialHeaders: Record<string, string> | undefined;
    try {
      const res: Dispatcher.ResponseData = await dispatcher.request({
        ...through,
        method,
        path: target,
        headers,
        body: body ?? null,
        signal: controller.signal,
        headersTimeout: limitMs,
        bodyTimeout: limitMs,
      });
      phase = 'body';
      status = res.statusCode;
      const responseHeaders = flattenHeaders(res.headers);
      partialHeaders = responseHeaders;
      const chunks: Buffer[] = [];
      let kept = 0;
      let tooLarge = false;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        seen += chunk.length;
        if (kept < maxBodyBytes) {
          const part = chunk.length <= maxBodyBytes - kept ? chunk : chunk.subarray(0, maxBodyBytes - kept);
          chunks.push(part);
          kept += part.length;
        }
        if (seen > maxBodyBytes) {
          tooLarge = true;
          break; // leaving the loop destroys the body, which destroys the connection
        }
      }
      if (!res.body.destroyed && tooLarge) res.body.destroy();
      const bytes = Buffer.concat(chunks, kept);
      const encoding = responseHeaders['content-encoding']?.trim().toLowerCase();
      const raw = encoding !== undefined && encoding !== '' && encoding !== 'identity';
      const scrubbedHeaders: Record<string, string> = {};
      for (const [n, v] of Object.entries(responseHeaders)) scrubbedHeaders[n] = scrub(v);
      const decoded = raw ? { text: bytes.toString('latin1') } : decodeResponseText(bytes, responseHeaders['content-type']);
      // Measured before anything reads the body: a deeper one is never decoded, walked or written whole.
      const nesting = raw || tooLarge ? undefined : nestingOf(decoded.text, responseHeaders['content-type']);
      const tooDeep = nesting !== undefined && nesting.depth > MAX_NESTING_DEPTH ? nesting : undefined;
      // Redacted whole, then cut: a key across the cut is never half kept.
      const text = scrub(decoded.text);
      const response: RecordedResponse = {
        status,
        headers: scrubbedHeaders,
        body: tooDeep ? startOf(text, TOO_DEEP_KEPT_CHARS) : text,
        bodyBytes: tooLarge ? seen : kept,
        truncated: tooLarge || tooDeep !== undefined,
        ...(decoded.encoding !== undefined ? { encoding: decoded.encoding } : {}),
      };
      const durationMs = performance.now() - started;
      if (tooDeep) {
        const format = tooDeep.format === 'json' ? 'JSON' : 'XML';
        return { response, durationMs, error: { code: 'TOO_DEEP', message: `${tooDeepText(format, tooDeep.depth)} (its first ${TOO_DEEP_KEPT_CHARS} characters are kept)` } };
      }
      if (tooLarge) {
        const declared = responseHeaders['content-length'];
        return {
          response,
          durationMs,
          error: {
            code: 'BODY_TOO_LARGE',
            message: `response body over the limit of ${maxBodyBytes} bytes: stopped reading after ${seen} bytes${declared !== undefined ? ` (content-length: ${declared})` : ''}`,
          },
        };
      }
      return { response, durationMs };
    } catch (err) {
      const durationMs = performance.now() - started;
      const where = phase === 'body' ? ` after status ${status} and ${seen} body bytes` : '';
      const via = proxy ? ` (through the proxy at ${proxy.shown})` : '';
      if (timedOut) return { durationMs, error: { code: 'TIMEOUT', message: `no complete answer within ${limitMs} ms${where}${via}` } };
      const errCode = errorCode(err);
      if (phase === 'headers') {
        const message = errorMessage(err);
        const network = (proxy ? proxyFailure(errCode, message, proxy, base.origin) : (dnsFailure(errCode, base.origin) ?? connectFailure(errCode, base.origin))) ?? tlsFailure(errCode, message, base.origin, proxy ?? undefined);
        if (network) return { durationMs, error: { code: network.code, message: scrub(network.message) } };
      }
      const code = classify(err, phase);
      const refused = errCode === 'UND_ERR_INVALID_ARG' || errCode === 'UND_ERR_NOT_SUPPORTED' ? 'request refused by the HTTP client: ' : '';
      const error = { code, message: `${refused}${errCode ? `${errCode}: ` : ''}${errorMessage(err)}${where}` };
      if (phase === 'body' && partialHeaders) {
        const headersSeen: Record<string, string> = {};
        for (const [n, v] of Object.entries(partialHeaders)) headersSeen[n] = scrub(v);
        return { durationMs, error, response: { status, headers: headersSeen, body: '', bodyBytes: seen, truncated: true } };
      }
      return { durationMs, error };
    } finally {
      clearTimeout(timer);
    }
  };

  // The circuit breaker: after `unresponsiveAfter` unusable answers in a row (no usable one in between),
  // nothing more is sent. One shared state per run: the file tells every client of the run.
  const unresponsiveAfter = options.unresponsiveAfter ?? 5;
  let unusableInARow = 0;
  /** Set once API Management said the key's call quota is used up: later requests are not sent. */
  let quotaExhausted: string | undefined;
  let lastUnusable = '';
  /** Why nothing more is sent, once the breaker has tripped (here or in another client of the run). */
  let tripped: string | undefined;
  const trippedReason = (count: number, last: string): string =>
    `the target gave no usable answer to ${count} requests in a row (last: ${last}); the rest of the run is not sent`;
  // Another client of this run may already have given up on the target. The file is read at most once
  // per BREAKER_READ_INTERVAL_MS (not once per request): another client's trip stops this one within that.
  let fileReadAt = Number.NEGATIVE_INFINITY;
  const fromFile = (): string | undefined => {
    if (!options.unresponsiveFile) return undefined;
    const now = performance.now();
    if (now - fileReadAt < BREAKER_READ_INTERVAL_MS) return undefined;
    fileReadAt = now;
    let text: string;
    try {
      text = readFileSync(options.unresponsiveFile, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    return text.trim() || trippedReason(unresponsiveAfter, 'another client of this run');
  };
  tripped = fromFile();
  /** Nothing more is sent, for this reason (the first wins); every client of the run learns it from the file. */
  const trip = (reason: string): void => {
    if (tripped !== undefined) return;
    tripped = reason;
    if (options.unresponsiveFile) writeFileSync(options.unresponsiveFile, tripped);
    releaseWaits();
  };
  const noteAnswer = (why: string | undefined): void => {
    if (why === undefined) {
      unusableInARow = 0;
      return;
    }
    unusableInARow += 1;
    lastUnusable = why;
    if (unusableInARow >= unresponsiveAfter) trip(trippedReason(unusableInARow, lastUnusable));
  };

  // Stopping: no attempt starts once stopped, and a wait on the pace or on Retry-After ends at once.
  let halted: string | undefined;
  const haltWaiters = new Set<() => void>();
  function releaseWaits(): void {
    for (const release of [...haltWaiters]) release();
  }
  /** Resolves when `wait` does, or at once when the client is stopped, tripped or closed (a rejection of `wait` propagates). */
  const untilHalted = (wait: Promise<unknown>): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (halted !== undefined || closed || tripped !== undefined) {
        resolve();
        return;
      }
      const release = (): void => {
        haltWaiters.delete(release);
        resolve();
      };
      haltWaiters.add(release);
      wait.then(release, (e: unknown) => {
        haltWaiters.delete(release);
        reject(e instanceof Error ? e : new Error(String(e)));
      });
    });
  /**
   * Waits `ms` (Retry-After, back-off), or less when the client is stopped, tripped or closed, which clear
   * the timer. The timer is not unref'd: in a one-process command (replay, the in-process pipeline) it is
   * the only thing that keeps Node alive while it waits, and an unref'd one would end the process
   * mid-send (exit 13, nothing printed).
   */
  const pause = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      if (halted !== undefined || closed || tripped !== undefined) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        haltWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      haltWaiters.add(done);
    });
  const counts = { sent: 0, retried: 0, answered: 0 };
  /** Wall time with a request waiting on Retry-After or on a target in maintenance (never summed over requests). */
  const waitClock = new WaitClock();
  /** Waits `ms` as a wait on the target (throttling, maintenance); returns how long it took. */
  const waitOnTarget = async (ms: number): Promise<number> => {
    const end = waitClock.begin();
    const t0 = performance.now();
    try {
      await pause(ms);
    } finally {
      end();
    }
    return performance.now() - t0;
  };

  // The key watch: the first keyed answers that show whether the key is accepted, all 401/403, stop the run.
  const keyWatch = options.keyRefusal;
  let keyWatchOpen = keyWatch !== undefined && keyWatch.after > 0;
  let keyRefusals = 0;
  const noteKeyAnswer = (spec: RequestSpec, status: number, body: string): void => {
    if (!keyWatch || !keyWatchOpen || !keyWatch.shows(spec)) return;
    if ((status === 401 || status === 403) && !isQuotaAnswer(status, body)) {
      keyRefusals += 1;
      if (keyRefusals >= keyWatch.after) {
        keyWatchOpen = false;
        trip(keyWatch.message);
      }
      return;
    }
    keyWatchOpen = false;
  };

  // The route watch: the first answers to documented operations all 404, a run start among them: a wrong base path.
  const routeWatch = options.routeWatch;
  let routeWatchOpen = routeWatch !== undefined;
  const route404 = { count: 0, runStart: false, paths: [] as string[], gateway: false };
  const noteRouteAnswer = (spec: RequestSpec, status: number, body: string): void => {
    if (!routeWatch || !routeWatchOpen) return;
    const evidence = routeWatch.evidence(spec);
    if (evidence === undefined) return;
    if (status !== 404) {
      routeWatchOpen = false;
      return;
    }
    route404.count += 1;
    if (evidence === 'run-start') route404.runStart = true;
    if (isGatewayNotFound(body)) route404.gateway = true;
    const where = `${spec.method} ${base.prefix}${spec.path}`;
    if (!route404.paths.includes(where)) route404.paths.push(where);
    const paths = new Set(route404.paths.map((p) => p.split(' ')[1])).size;
    if (route404.count >= routeWatch.after && route404.runStart && paths >= 2) {
      routeWatchOpen = false;
      trip(routeWatch.reason({ count: route404.count, paths: route404.paths, gateway: route404.gateway }));
    }
  };

  // The budget: a cap on what is sent to the target, every resend included.
  let budget = options.budget;
  let budgetSpent: string | undefined;
  // Maintenance: 502, 503 without Retry-After and 504 are waited out while the target as a whole is away.
  const availability = new Availability();
  const unavailableRetries = options.unavailableRetries ?? UNAVAILABLE_RETRIES;
  const unavailableFirstBackoff = options.unavailableBackoffMs ?? UNAVAILABLE_FIRST_BACKOFF_MS;
  // A connection that cannot be made (refused, a name that does not resolve, a certificate refused, a proxy
  // refusing the way) is tried again at once, unpaced, this many times, then the run stops: it will not go away.
  const quickRetryDelays = options.quickRetryDelaysMs ?? QUICK_RETRY_DELAYS_MS;
  /** Connections that could not be made since the last one that was, over every request (concurrent ones share the retries). */
  let unreachableInARow = 0;
  /** The proxy's own account of a refused tunnel, read once (lib/run/http/tunnel-probe.ts). */
  let tunnelVerdict: Promise<TransportError | undefined> | undefined;
  const explainTunnelRefusal = (status: number): Promise<TransportError | undefined> => {
    if (!proxy || proxy.mode !== 'connect') return Promise.resolve(undefined);
    tunnelVerdict ??= readTunnelAnswer(proxy, base.origin, Math.min(timeoutMs, 5_000)).then((answer) => {
      const verdict = answer ? proxyVerdict(answer.headers, answer.body) : undefined;
      return verdict && answer ? proxyVerdictFailure(verdict, answer.status ?? status, proxy, base.origin) : undefined;
    });
    return tunnelVerdict;
  };

  const notSent = (request: RecordedRequest, attempts: number, waitedMs: number): Exchange | undefined => {
    const none = (code: TransportErrorCode, message: string): Exchange => ({ request, error: { code, message }, durationMs: 0, attempts, waitedMs: Math.round(waitedMs) });
    if (closed) return none('CONNECTION_RESET', 'the HTTP client was closed');
    if (halted !== undefined) return none('NOT_SENT', `not sent: ${halted}`);
    if (quotaExhausted !== undefined) return none('THROTTLED', `not sent: ${quotaExhausted}`);
    tripped ??= fromFile();
    if (tripped !== undefined) return none('UNRESPONSIVE', `not sent: ${tripped}`);
    if (budget !== undefined && counts.sent >= budget) {
      if (budgetSpent === undefined) {
        budgetSpent = `the request budget is used up: ${budget} request${budget === 1 ? '' : 's'} sent, resends included (ISWC_BUDGET${options.budget !== undefined && budget !== options.budget ? `, this shard's share of ${options.budget}` : ''})`;
        // Nothing can be sent any more: whatever waits to send stops waiting.
        releaseWaits();
      }
      return none('NOT_SENT', `not sent: ${budgetSpent}`);
    }
    return undefined;
  };

  const send = async (spec: RequestSpec): Promise<Exchange> => {
    const { list, keyValue } = headersOf(spec);
    const body = bodyBytesOf(spec.body);
    let target: string;
    try {
      target = requestTarget(base, spec);
    } catch (e) {
      if (!(e instanceof InvalidUrl)) throw e;
      const url = `${base.origin}${base.prefix}${spec.path}${spec.rawQuery !== undefined ? `?${spec.rawQuery}` : ''}`;
      return { request: recordRequest(spec, url, list, keyValue, body), error: { code: 'INVALID_URL', message: e.message }, durationMs: 0, attempts: 0, waitedMs: 0 };
    }
    const request = recordRequest(spec, `${base.origin}${target}`, list, keyValue, body);
    const headers: Record<string, string> = {};
    for (const [name, value] of list) headers[name] = value;
    if (keyValue !== undefined) headers[keyHeaderOf(spec)] = keyValue;
    // Worked out only when the target answers as if away (a digest of the body): never on the way of a request that is answered.
    let kind: string | undefined;

    let attempts = 0;
    let waitedMs = 0;
    let backoffMs = 1000;
    let unavailableAttempts = 0;
    let firstUnavailableAt: number | undefined;
    let paced = true;
    for (;;) {
      const before = notSent(request, attempts, waitedMs);
      if (before) return before;
      // While the target as a whole is away, a request it has not answered yet waits for it to come back.
      if (attempts === 0 && availability.unavailableToAll()) {
        const back = availability.untilAnswered();
        haltWaiters.add(back.release);
        const end = waitClock.begin();
        const t0 = performance.now();
        await back.promise;
        end();
        haltWaiters.delete(back.release);
        waitedMs += performance.now() - t0;
        continue;
      }
      if (paced && options.beforeSend) {
        const t0 = performance.now();
        await untilHalted(options.beforeSend());
        waitedMs += performance.now() - t0;
      }
      paced = true;
      const stop = notSent(request, attempts, waitedMs);
      if (stop) return stop;
      attempts += 1;
      counts.sent += 1;
      if (attempts > 1) counts.retried += 1;
      const answeredBefore = counts.answered > 0;
      const result = await attempt(spec.method, target, headers, body);
      // Through a proxy in absolute form, the proxy's own error answer is no answer of the target.
      const fromProxy = result.response && !result.error && proxy?.mode === 'absolute-form' && result.response.status >= 400 ? proxyVerdict(result.response.headers, result.response.body) : undefined;
      if (result.response && !fromProxy) counts.answered += 1;
      if (fromProxy && result.response) result.error = proxyVerdictFailure(fromProxy, result.response.status, proxy as ProxyInUse, base.origin);
      // A refused tunnel: the proxy's page says why (a DNS failure is said as one).
      if (result.error?.code === 'PROXY' && /refused the connection to .* \((\d{3})/.test(result.error.message)) {
        const explained = await explainTunnelRefusal(Number(/\((\d{3})/.exec(result.error.message)?.[1]));
        if (explained) result.error = { code: explained.code, message: scrub(explained.message) };
      }
      const exchange: Exchange = { request, durationMs: Math.round(result.durationMs), attempts, waitedMs: Math.round(waitedMs) };
      // A target's first answer may come late (a cold start); any later one past the timeout is recorded late.
      if (result.response && !result.error && answeredBefore && result.durationMs > timeoutMs) exchange.lateAfterMs = timeoutMs;
      if (result.response) exchange.response = result.response;
      if (result.error) exchange.error = result.error;
      if (result.error && UNREACHABLE_CODES.has(result.error.code)) {
        // Unreachable: retried at once (unpaced: nothing reached the target), then the run stops. The
        // requests in flight share the retries: a target that cannot be reached costs a few attempts, not a few per request.
        unreachableInARow += 1;
        const delay = quickRetryDelays[unreachableInARow - 1];
        if (delay !== undefined && tripped === undefined) {
          await pause(delay);
          paced = false;
          continue;
        }
        noteAnswer(unusableAnswer(result, base.origin));
        trip(unreachableReason(result.error, unreachableInARow));
        return exchange;
      }
      if (!result.error || !UNREACHABLE_CODES.has(result.error.code)) unreachableInARow = 0;
      noteAnswer(unusableAnswer(result, base.origin));
      if (result.response && !result.error) {
        noteKeyAnswer(spec, result.response.status, result.response.body);
        noteRouteAnswer(spec, result.response.status, result.response.body);
      }
      const response = result.response;
      if (result.error || !response) return exchange;
      if (options.throttling !== false && isQuotaAnswer(response.status, response.body)) {
        // A quota (section 8: not shown) replenishes in hours, not seconds: no retry, and no more requests.
        quotaExhausted = `the subscription key's call quota is used up (API Management 403: ${response.body.slice(0, 160).replace(/\s+/g, ' ').trim()})`;
        exchange.error = { code: 'THROTTLED', message: quotaExhausted };
        return exchange;
      }
      const retryAfterHeader = response.headers['retry-after'];
      const retryAfter = retryAfterMs(retryAfterHeader);
      if (options.throttling !== false && isUnavailableAnswer(response.status, retryAfterHeader)) {
        const now = performance.now();
        firstUnavailableAt ??= now;
        kind ??= requestKind(spec);
        availability.unavailableTo(kind, now);
        // The target answers other requests: this answer is this request's own, judged as it came.
        if (availability.answeredSince(firstUnavailableAt)) return exchange;
        if (unavailableAttempts >= unavailableRetries) {
          if (!availability.unavailableToAll()) return exchange;
          const reason = unavailableReason(response.status, now - (availability.since() ?? firstUnavailableAt), unavailableAttempts);
          trip(reason);
          exchange.error = { code: 'UNRESPONSIVE', message: reason };
          return exchange;
        }
        const waited = await waitOnTarget(unavailableFirstBackoff * 2 ** unavailableAttempts);
        unavailableAttempts += 1;
        waitedMs += waited;
        continue;
      }
      availability.answered(performance.now());
      const throttled = options.throttling !== false && (response.status === 429 || (response.status === 503 && retryAfter !== undefined));
      if (!throttled) return exchange;
      if (attempts > maxRetries) {
        exchange.error = {
          code: 'THROTTLED',
          message: `still throttled after ${attempts} attempts: last status ${response.status}${retryAfterHeader !== undefined ? ` (retry-after: ${retryAfterHeader})` : ''}`,
        };
        return exchange;
      }
      let waitMs = retryAfter ?? backoffMs;
      if (retryAfter === undefined) backoffMs *= 2;
      waitMs = Math.min(waitMs, maxRetryWaitMs);
      waitedMs += await waitOnTarget(waitMs);
    }
  };

  const curl = (spec: RequestSpec): string => {
    let target: string;
    try {
      target = requestTarget(base, spec);
    } catch (e) {
      if (e instanceof InvalidUrl) return `# not replayable with curl: ${scrub(e.message).replace(/[\r\n]/g, ' ')}`;
      throw e;
    }
    const { list, keyValue } = headersOf(spec);
    const auth: AuthMode = spec.auth ?? 'key';
    // An extra header's value is never written: the line reads it from $ISWC_HEADER_<NAME>.
    const headers: CurlHeader[] = list.map(([name, value]) => [name, isExtra(name, value) && value !== '' ? { variable: headerVariable(name) } : value]);
    const parts: CurlParts = {
      method: spec.method,
      url: `${base.origin}${target}`,
      headers,
      ...(proxy?.variable !== undefined ? { proxyVariable: proxy.variable } : {}),
      ...(options.caFile !== undefined && base.origin.startsWith('https:') ? { caFile: options.caFile } : {}),
    };
    if (keyValue !== undefined) parts.key = { name: keyHeaderOf(spec), value: auth === 'key' ? 'env' : auth === 'key-case' && keyValue !== WRONG_KEY ? 'env-case-changed' : isNearMiss(auth) && keyValue !== WRONG_KEY ? `env-${auth}` : { literal: keyValue } };
    const body = bodyBytesOf(spec.body);
    if (body !== undefined) parts.body = body;
    return scrub(curlCommand(parts));
  };

  return {
    send,
    curl,
    unusable: () => (tripped ??= fromFile()),
    budgetSpent: () => budgetSpent,
    limitBudget(requests: number): void {
      budget = Math.max(counts.sent, Math.min(budget ?? requests, requests));
    },
    stop(reason: string): void {
      halted ??= reason;
      releaseWaits();
    },
    stopped: () => halted,
    progress: () => ({ ...counts, waitedMs: Math.round(waitClock.ms()) }),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      releaseWaits();
      await dispatcher.destroy(closingError());
    },
  };
}

/**
 * The error undici hands to what a closing client still holds (sockets, requests in flight), as it would
 * make it itself, but without a stack: Node reads the stack of the error a socket is destroyed with, and
 * under a test runner's source-map support that reading cost milliseconds per client closed (13 % of a test
 * that replays traffic against a hundred servers) for an error no one sees.
 */
function closingError(): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new errors.ClientDestroyedError();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
