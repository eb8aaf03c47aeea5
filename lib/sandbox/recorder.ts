import { closeSync, openSync, writeSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { subscriptionKeyHeader } from '../contract/openapi.ts';
import type { Redactor } from '../foundation/redact.ts';
import { REDACTED, SANDBOX_KEY_PLACEHOLDER } from '../foundation/redact.ts';
import { HARNESS_VERSION } from '../report/meta.ts';
import { isPlaceholder, namesSecret } from '../traffic/credentials.ts';
import { formatExchangeLine, formatSessionLine } from '../traffic/jsonl.ts';
import type { SessionMeta } from '../traffic/model.ts';
import type { BodyRead, Reply, RequestHook } from '../../server/index.ts';

/**
 * Records every exchange of a sandbox session in the traffic format (schemas/traffic-log.schema.json),
 * line by line as each answer goes out (the lines of one turn of the event loop in one write), in
 * `client-session.jsonl` beside the session's reports: what the
 * client sent and what it met on the wire (status, headers, body), so that `compat` can replay it against
 * another build. The sandbox's key is written `$ISWC_SANDBOX_KEY`, any other value of the key header and of
 * every header whose name marks a secret `<redacted>`, and the key wherever else it occurs too. It wraps the
 * session's request hook and changes nothing of what the session judges or answers.
 */

export const SESSION_FILE = 'client-session.jsonl';

/** Bytes of an answer's body kept in the recording (the reference server's answers are far smaller). */
const MAX_RECORDED_BODY = 1024 * 1024;

interface Wire {
  at: Date;
  started: number;
  status: number | undefined;
  headers: Record<string, string>;
  chunks: Buffer[];
  bytes: number;
  finished: boolean;
}

interface Seen {
  seq: number;
  body: Buffer;
  trouble: string | undefined;
  reply: Reply | null | undefined;
}

function toBuffer(chunk: unknown, encoding?: unknown): Buffer | undefined {
  if (typeof chunk === 'string') return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
}

function addHeaders(into: Record<string, string>, headers: unknown): void {
  if (!headers || typeof headers !== 'object') return;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) into[String(headers[i]).toLowerCase()] = String(headers[i + 1]);
    return;
  }
  const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v) ?? '');
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) if (v !== undefined) into[k.toLowerCase()] = Array.isArray(v) ? v.map(text).join(', ') : text(v);
}

/** Watches what a response writes: its status, its headers and its body, as they go on the wire; `onFinish` once it is all handed to the network. */
function tap(res: ServerResponse, onFinish: () => void): Wire {
  const wire: Wire = { at: new Date(), started: performance.now(), status: undefined, headers: {}, chunks: [], bytes: 0, finished: false };
  const keep = (chunk: unknown, encoding?: unknown): void => {
    const b = toBuffer(chunk, encoding);
    if (!b || wire.bytes >= MAX_RECORDED_BODY) return;
    const part = b.subarray(0, MAX_RECORDED_BODY - wire.bytes);
    wire.chunks.push(Buffer.from(part));
    wire.bytes += part.length;
  };
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  (res as { writeHead: unknown }).writeHead = (status: number, ...rest: unknown[]): ServerResponse => {
    wire.status = status;
    addHeaders(wire.headers, res.getHeaders());
    addHeaders(wire.headers, typeof rest[0] === 'string' ? rest[1] : rest[0]);
    return writeHead(status, ...rest);
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  (res as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]): boolean => {
    keep(chunk, rest[0]);
    return write(chunk, ...rest);
  };
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  (res as { end: unknown }).end = (chunk?: unknown, ...rest: unknown[]): ServerResponse => {
    if (chunk !== undefined && typeof chunk !== 'function') keep(chunk, rest[0]);
    return end(chunk, ...rest);
  };
  res.once('finish', () => {
    wire.finished = true;
    if (wire.status === undefined && res.headersSent) {
      wire.status = res.statusCode;
      addHeaders(wire.headers, res.getHeaders());
    }
    onFinish();
  });
  return wire;
}

/** The session's hook, with every exchange recorded as it ends. */
export class SessionRecorder implements RequestHook {
  private readonly fd: number;
  private readonly wires = new WeakMap<IncomingMessage, Wire>();
  private readonly seen = new WeakMap<IncomingMessage, Seen>();
  private readonly keyHeader = subscriptionKeyHeader().toLowerCase();
  private seq = 0;
  private lines = 0;
  private pending: string[] = [];
  private fdClosed = false;
  private closed = false;

  constructor(
    private readonly inner: RequestHook & { readonly requests: number },
    readonly file: string,
    meta: SessionMeta & { agency: string },
    private readonly redactor: Redactor,
    /** The sandbox's key: what the key header is compared with (it is never written). */
    private readonly key: string,
  ) {
    this.fd = openSync(file, 'w');
    writeSync(this.fd, formatSessionLine({ ...meta, recordedBy: `iswc-conformance sandbox ${HARNESS_VERSION}` }));
  }

  /** Exchanges written so far. */
  get exchanges(): number {
    return this.lines;
  }

  received(req: IncomingMessage, res: ServerResponse): void {
    // Written once the answer is handed to the network, before the client can have read it: a client that
    // has its answer finds its exchange in the file.
    this.wires.set(req, tap(res, () => this.flush(req)));
    this.inner.received?.(req, res);
  }

  before(req: IncomingMessage, body: Exclude<BodyRead, { kind: 'aborted' }>): Reply | null | undefined | Promise<Reply | null | undefined> {
    const before = this.inner.requests;
    const instead = this.inner.before?.(req, body);
    // The sandbox answered instead of the API: trouble on purpose, or a request after the session's end (--requests).
    const late = this.inner.requests === before;
    const trouble = instead === undefined || instead instanceof Promise ? undefined : late ? 'late' : instead === null ? 'reset' : instead.status === 429 ? '429' : String(instead.status);
    this.seen.set(req, { seq: ++this.seq, body: body.kind === 'ok' ? body.bytes : Buffer.alloc(0), trouble, reply: undefined });
    return instead;
  }

  after(req: IncomingMessage, reply: Reply | null): void {
    const seen = this.seen.get(req);
    if (seen) seen.reply = reply;
    this.inner.after?.(req, reply);
  }

  finished(req: IncomingMessage): void {
    this.inner.finished?.(req);
    this.flush(req);
  }

  /** Writes a request's exchange once: when its answer is handed over, or when its connection closes without one. */
  private flush(req: IncomingMessage): void {
    const seen = this.seen.get(req);
    const wire = this.wires.get(req);
    if (!seen || !wire || this.closed) return;
    this.seen.delete(req);
    this.write(req, seen, wire);
  }

  /**
   * Headers as recorded: the key header as the key's placeholder, empty, or `<redacted>` (another key);
   * cookies and every header whose name marks a secret `<redacted>`. The key anywhere else is taken out of
   * the whole line at once (see write).
   */
  private headers(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, raw] of Object.entries(headers)) {
      if (raw === undefined) continue;
      const lower = name.toLowerCase();
      const value = Array.isArray(raw) ? raw.join(', ') : raw;
      if (lower === this.keyHeader) out[lower] = value === this.key ? SANDBOX_KEY_PLACEHOLDER : value === '' ? '' : REDACTED;
      else if (lower === 'cookie' || lower === 'set-cookie') out[lower] = value === '' ? '' : REDACTED;
      else if (namesSecret(lower, 'header')) out[lower] = isPlaceholder(value) ? value : REDACTED;
      else out[lower] = value;
    }
    return out;
  }

  private write(req: IncomingMessage, seen: Seen, wire: Wire): void {
    const reply = seen.reply;
    // A 204 with a body put on the socket by hand (a fault) never goes through writeHead: its Reply says what went.
    const status = wire.status ?? (reply ? reply.status : undefined);
    let body = Buffer.concat(wire.chunks);
    if (wire.status === undefined && reply?.bodyOn204 !== undefined) body = Buffer.from(reply.bodyOn204, 'utf8');
    const headers = wire.status !== undefined ? wire.headers : Object.fromEntries(Object.entries(reply?.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    // A body sent gzip (a choice of the reference server) is recorded as the client read it once inflated.
    if (/^\s*gzip\s*$/i.test(headers['content-encoding'] ?? '')) {
      try {
        body = gunzipSync(body);
        delete headers['content-encoding'];
        delete headers['content-length'];
      } catch {
        // Left as sent.
      }
    }
    const answered = status !== undefined && (wire.finished || reply?.bodyOn204 !== undefined);
    const line = formatExchangeLine({
      seq: seen.seq,
      time: wire.at.toISOString(),
      method: req.method ?? '',
      url: this.redactor.url(req.url ?? '/'),
      requestHeaders: this.headers(req.headers),
      requestBody: seen.body,
      status: answered ? status : null,
      ...(answered ? { responseHeaders: this.headers(headers), responseBody: body } : { error: reply === null ? 'reset' : 'the connection closed before the answer was complete' }),
      ...(seen.trouble !== undefined ? { trouble: seen.trouble } : {}),
      durationMs: performance.now() - wire.started,
    });
    // The key in any form it can take (raw, JSON-escaped, URL-encoded, base64 of a text body) is taken out of
    // the whole line at once: one pass, wherever the client put it (a body, a header of its own).
    this.pending.push(this.redactor.text(line));
    this.lines += 1;
    // Lines of one turn of the event loop go out in one write, right after it: a client that has its answer
    // (it needs at least one turn more to read it) finds its exchange in the file.
    if (this.pending.length === 1) setImmediate(() => this.flushPending());
  }

  private flushPending(): void {
    if (this.pending.length === 0 || this.fdClosed) return;
    const text = this.pending.join('');
    this.pending = [];
    writeSync(this.fd, text);
  }

  /** Stops recording and closes the file (exchanges still in progress are left out). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.flushPending();
    closeSync(this.fd);
    this.fdClosed = true;
  }
}
