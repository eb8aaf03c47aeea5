import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { Format } from '../lib/contract/codec/index.ts';
import { formatOfContentType } from '../lib/contract/codec/index.ts';
import type { ChoiceSet } from './choices.ts';

/** The faults in play, as writeReply asks about them (server/faults.ts FaultSet; named here so faults.ts, which builds replies, and this file do not import each other). */
export interface ActiveFaults {
  has(id: string): boolean;
}

/**
 * Bytes on the wire: what a handler answers (a Reply, a plain value), how request bodies are read under
 * the size cap, how the request target and the Accept header are read, and how a Reply is written, with
 * the HTTP-level faults on Content-Type and on 204 bodies applied in this one place.
 */

export type BodyKind = 'json' | 'problem' | 'xml' | 'text' | 'html';

export interface Reply {
  status: number;
  body?: { kind: BodyKind; text: string };
  headers?: Record<string, string>;
  /** Close the connection after the answer (413: the rest of the body is never read). */
  close?: boolean;
  /** Fault `no-body-204-violated`: bytes put on the wire after a 204 head, by a raw socket write. */
  bodyOn204?: string;
  /** Fault `hang-on-unsupported-media`: write nothing and keep the connection open. */
  hang?: boolean;
}

const CONTENT_TYPE: Record<BodyKind, string> = {
  json: 'application/json; charset=utf-8',
  problem: 'application/problem+json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

export const text = (status: number, body: string, headers?: Record<string, string>): Reply => ({
  status,
  body: { kind: 'text', text: body },
  ...(headers ? { headers } : {}),
});

export const json = (status: number, value: unknown, headers?: Record<string, string>): Reply => ({
  status,
  body: { kind: 'json', text: JSON.stringify(value) },
  ...(headers ? { headers } : {}),
});

export const xml = (status: number, text: string): Reply => ({ status, body: { kind: 'xml', text } });

export const empty = (status: number): Reply => ({ status });

const REASON: Record<number, string> = { 204: 'No Content' };

/** Choice `early-hints`: the Link sent in the 103 and repeated on the final answer (RFC 8297). */
const EARLY_LINK = '</iswc.css>; rel=preload; as=style';

/** XML text with its declaration (and a byte order mark) replaced by one that says utf-16. */
function declaredUtf16(xml: string): string {
  return `<?xml version="1.0" encoding="utf-16"?>${xml.replace(/^\uFEFF/, '').replace(/^<\?xml[^>]*\?>/, '')}`;
}

/** Writes a Reply. `json-content-type-mislabelled` and `missing-content-type` act here, on every answer. */
export function writeReply(res: ServerResponse, reply: Reply, faults: ActiveFaults, choices?: ChoiceSet): void {
  if (reply.bodyOn204 !== undefined && res.socket) {
    // Node refuses to write a body on 204, so the whole answer goes to the socket by hand; the
    // connection is closed afterwards because a client cannot know where such a response ends.
    const payload = Buffer.from(reply.bodyOn204, 'utf8');
    const head =
      `HTTP/1.1 ${reply.status} ${REASON[reply.status] ?? 'No Content'}\r\n` +
      `Date: ${new Date().toUTCString()}\r\n` +
      `Content-Type: ${CONTENT_TYPE.json}\r\n` +
      `Content-Length: ${payload.length}\r\n` +
      'Connection: close\r\n\r\n';
    res.socket.end(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
    return;
  }
  if (choices?.has('chunked-204') && reply.status === 204 && res.socket) {
    // Choice `chunked-204`: the 204 is framed chunked, with the last chunk only (no bytes of content). Node
    // never frames a 204 so, hence the socket; closed after it, as a client may not know where it ends.
    const head = `HTTP/1.1 204 No Content\r\nDate: ${new Date().toUTCString()}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
    res.socket.end(Buffer.from(`${head}0\r\n\r\n`, 'latin1'));
    return;
  }
  const headers: Record<string, string | number> = { ...reply.headers };
  if (choices?.has('content-type-no-charset')) Object.assign(headers, { Server: 'Kestrel', Date: new Date().toUTCString() });
  if (reply.close || choices?.has('connection-close')) headers.Connection = 'close';
  // Choice `early-hints`: an informational 103 before the final answer (RFC 9110 §15.2: clients must parse 1xx).
  if (choices?.has('early-hints')) {
    res.writeEarlyHints({ link: EARLY_LINK });
    headers.Link = EARLY_LINK;
  }
  if (!reply.body) {
    if (choices?.has('chunked-answers') && reply.status === 204) Object.assign(headers, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': 0 });
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  let payload = Buffer.from(reply.body.text, 'utf8');
  const isJson = reply.body.kind === 'json' || reply.body.kind === 'problem';
  // No byte order mark before JSON: RFC 8259 §8.1 says a BOM must not be added to networked JSON, and strict parsers (Python's json.loads) refuse it, so it is no legitimate choice.
  // Choice `xml-answer-utf16`: XML in UTF-16LE with a byte order mark, as XML 1.0 requires every processor to read.
  const utf16 = reply.body.kind === 'xml' && choices?.has('xml-answer-utf16') === true;
  if (utf16) {
    payload = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(declaredUtf16(reply.body.text), 'utf16le')]);
  }
  // Fault `xml-answer-utf16-declared`: the XML written through a StringWriter (its declaration says utf-16)
  // and sent as UTF-8 bytes, with no byte order mark and no charset to override the declaration.
  const misdeclared = reply.body.kind === 'xml' && !utf16 && faults.has('xml-answer-utf16-declared');
  if (misdeclared) payload = Buffer.from(declaredUtf16(reply.body.text), 'utf8');
  if (!faults.has('missing-content-type')) {
    const kind = isJson && faults.has('json-content-type-mislabelled') ? 'xml' : reply.body.kind;
    headers['Content-Type'] = kind === 'json' && choices?.has('json-text-json') ? 'text/json; charset=utf-8' : utf16 && kind === 'xml' ? 'application/xml; charset=utf-16' : CONTENT_TYPE[kind];
    // Choice `json-text-plain`: Go's net/http sniffs a body written without a Content-Type; JSON reads as text.
    if (kind === 'json' && choices?.has('json-text-plain')) headers['Content-Type'] = CONTENT_TYPE.text;
    // Choice `content-type-no-charset`: the media type alone (UTF-8 is JSON's only encoding, RFC 8259 §8.1).
    if (choices?.has('xml-text-xml') && kind === 'xml' && !utf16) headers['Content-Type'] = reply.status >= 400 ? 'application/problem+xml; charset=utf-8' : 'text/xml; charset=utf-8';
    if (choices?.has('content-type-upper')) headers['Content-Type'] = String(headers['Content-Type']).replace(/[a-z]+(?=\/|\+|;|=|$)/gi, (w) => w.charAt(0).toUpperCase() + w.slice(1)).replace(/=utf-8/i, '=UTF-8');
    if (choices?.has('content-type-no-charset') && !utf16) headers['Content-Type'] = String(headers['Content-Type']).replace(/;\s*charset=[^;]*/i, '');
    if (misdeclared && kind === 'xml') headers['Content-Type'] = 'application/xml';
  }
  if (choices?.has('gzip-unasked') && acceptsGzip(res.req.headers['accept-encoding'])) {
    payload = gzipSync(payload);
    headers['Content-Encoding'] = 'gzip';
  }
  if (choices?.has('chunked-trailers')) {
    res.writeHead(reply.status, { ...headers, Trailer: 'Server-Timing' });
    res.write(payload);
    res.addTrailers({ 'Server-Timing': 'app;dur=1' });
    res.end();
    return;
  }
  if (choices?.has('chunked-answers')) {
    res.writeHead(reply.status, headers);
    res.write(payload.subarray(0, 1));
    res.end(payload.subarray(1));
    return;
  }
  headers['Content-Length'] = payload.length;
  res.writeHead(reply.status, headers);
  res.end(payload);
}

export type BodyRead = { kind: 'ok'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

/** Bodies read before the handler ran (a request hook saw them), handed to readBody instead of the spent stream. */
const readBefore = new WeakMap<IncomingMessage, BodyRead>();

/** Reads a request's body once, ahead of its handler: the handler's readBody gets the same result. */
export async function readBodyAhead(req: IncomingMessage, max: number): Promise<BodyRead> {
  const read = await readBody(req, max);
  readBefore.set(req, read);
  return read;
}

/**
 * Reads a request body up to `max` bytes. Over the cap (by Content-Length, or while streaming) it stops
 * keeping bytes at once and reports `too-large`; the caller answers 413 and closes the connection.
 */
export function readBody(req: IncomingMessage, max: number): Promise<BodyRead> {
  const ahead = readBefore.get(req);
  if (ahead) return Promise.resolve(ahead);
  const declared = req.headers['content-length'];
  if (declared !== undefined && /^[0-9]+$/.test(declared) && Number(declared) > max) {
    return Promise.resolve({ kind: 'too-large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (result: BodyRead): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > max) {
        chunks.length = 0;
        // Keep the stream flowing (discarding) until the connection is closed after the 413.
        req.resume();
        settle({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => settle({ kind: 'ok', bytes: Buffer.concat(chunks, total) });
    req.on('data', onData);
    req.on('end', onEnd);
    req.once('error', () => settle({ kind: 'aborted' }));
    req.once('close', () => {
      if (!req.complete) settle({ kind: 'aborted' });
    });
  });
}

/** Splits the request target into path and raw query (origin-form, or absolute-form as a proxy would send). */
export function splitTarget(target: string): { path: string; query: string } {
  let rest = target;
  if (/^https?:\/\//i.test(rest)) {
    try {
      const url = new URL(rest);
      rest = `${url.pathname}${url.search}`;
    } catch {
      return { path: rest, query: '' };
    }
  }
  const q = rest.indexOf('?');
  return q < 0 ? { path: rest, query: '' } : { path: rest.slice(0, q), query: rest.slice(q + 1) };
}

/**
 * The representation asked for by Accept (application/json, +json, application/xml, text/xml, +xml),
 * the highest q first and the first listed on a tie; `fallback` when Accept names neither.
 */
export function negotiate(accept: string | undefined, fallback: Format): Format {
  if (!accept) return fallback;
  let best: { format: Format; q: number } | undefined;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';');
    const format = formatOfContentType(type.trim());
    if (format !== 'json' && format !== 'xml') continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (!(q > 0)) continue;
    if (!best || q > best.q) best = { format, q };
  }
  return best?.format ?? fallback;
}

/** A header as one string (repeated headers joined), or undefined when absent. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Choice `gzip-unasked`: no Accept-Encoding makes any coding acceptable (RFC 9110 §12.5.3); otherwise gzip must be listed. */
function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return acceptEncoding === undefined || /(^|,)\s*(gzip|\*)\s*(,|$)/i.test(acceptEncoding);
}
