import { XMLValidator } from 'fast-xml-parser';
import type { Format } from './codec/index.ts';
import { MAX_NESTING_DEPTH } from '../config/limits.ts';
import { decodeBody, decodeJson, formatOfContentType, sniffFormat } from './codec/index.ts';
import { jsonDepth, xmlDepth } from './codec/depth.ts';
import { rootAttributes } from './codec/xml.ts';
import { resourceSchema } from './constraints.ts';
import type { ResourceName } from './json-schema.ts';
import type { Exchange } from './exchange.ts';

/** Helpers to describe an answer in one line, the same way in every check. */

export function statusOf(exchange: Exchange): number | null {
  return exchange.error && exchange.error.code !== 'THROTTLED' ? null : (exchange.response?.status ?? null);
}

export function contentTypeOf(exchange: Exchange): string | undefined {
  return exchange.response?.headers['content-type'];
}

function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** "404 text/plain \"Iswc not found\"" or "no answer (TIMEOUT: ...)". */
export function describeAnswer(exchange: Exchange): string {
  if (!exchange.response || (exchange.error && exchange.error.code !== 'THROTTLED')) {
    return `no answer (${exchange.error?.code ?? 'UNKNOWN'}: ${exchange.error?.message ?? 'no response'})`;
  }
  const { status, body } = exchange.response;
  const type = contentTypeOf(exchange) ?? 'no Content-Type';
  return body.length === 0 ? `${status}, no body` : `${status} ${type} ${JSON.stringify(clip(body))}`;
}

/** What the answer's Content-Type names: json, xml, text, other, or undefined when there is none. */
export function declaredFormat(exchange: Exchange): ReturnType<typeof formatOfContentType> {
  return formatOfContentType(contentTypeOf(exchange));
}

/**
 * The format of an answer's body: the one its Content-Type declares when that is JSON or XML, else what
 * the body looks like (the document does not say how the representation is chosen, section 4.1).
 */
export function bodyFormat(exchange: Exchange): Format | undefined {
  const declared = declaredFormat(exchange);
  return declared === 'json' || declared === 'xml' ? declared : sniffFormat(exchange.response?.body ?? '');
}

/**
 * The answer's body read as a resource of section 2, in whichever format it came: the format its
 * Content-Type declares, or what the body is when the label is not JSON or XML or does not fit the body.
 */
export function decodeAnswer(exchange: Exchange, resource: ResourceName): { ok: true; format: Format; value: unknown } | { ok: false; format: Format | undefined; error: string } {
  const format = bodyFormat(exchange);
  if (!format) return { ok: false, format, error: 'a body that is neither JSON nor XML' };
  const body = exchange.response?.body ?? '';
  let decoded = decodeBody(format, resource, body);
  let read: Format = format;
  // The body is judged by what it is; a label that says otherwise is http.content-type's to report.
  const sniffed = sniffFormat(body);
  if (!decoded.ok && sniffed !== undefined && sniffed !== format) {
    const again = decodeBody(sniffed, resource, body);
    if (again.ok) [decoded, read] = [again, sniffed];
  }
  if (!decoded.ok) return { ok: false, format, error: decoded.error };
  return { ok: true, format: read, value: read === 'xml' ? withRootAttributes(decoded.value, resource, body) : decoded.value };
}

/**
 * Why an XML answer cannot be read as it declares itself, or undefined: a declaration naming UTF-16 or UTF-32
 * over bytes that are not (no byte order mark of one, no charset in Content-Type to override the declaration:
 * RFC 7303 §3.2) is a fatal error to every XML processor (XML 1.0 §4.3.3); .NET's XmlReader and libxml2
 * refuse it. The harness decodes such bytes as UTF-8 and reads on; this says what a client would meet.
 */
export function xmlDeclarationMismatch(exchange: Exchange): string | undefined {
  const response = exchange.response;
  if (!response || bodyFormat(exchange) !== 'xml') return undefined;
  if (/;\s*charset\s*=/i.test(contentTypeOf(exchange) ?? '')) return undefined;
  if (response.encoding !== undefined && !response.encoding.startsWith('utf-8')) return undefined;
  const declared = /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([^"']+)["']/i.exec(response.body ?? '')?.[1];
  if (declared === undefined || !/^(utf-?16|utf-?32|ucs-?2|ucs-?4|iso-10646-ucs-[24])/i.test(declared)) return undefined;
  return `XML declaring encoding="${declared}" sent as ${response.encoding ?? 'UTF-8'} without a UTF-16 or UTF-32 byte order mark, and no charset in Content-Type to override the declaration: a fatal error to an XML processor (XML 1.0 §4.3.3)`;
}

/**
 * Section 2.2 names the answer's fields, not whether XML carries them as elements or attributes: a field
 * the root holds as an attribute (<CsnNotification runId="…"/>) is read like an element.
 */
function withRootAttributes(value: unknown, resource: ResourceName, body: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const fields = Object.keys(resourceSchema(resource).properties ?? {}).filter((f) => !(f in value));
  if (fields.length === 0) return value;
  const attrs = rootAttributes(body);
  const found = fields.filter((f) => f in attrs);
  return found.length === 0 ? value : { ...value, ...Object.fromEntries(found.map((f) => [f, attrs[f]])) };
}

/** The runId of a 200 answer of the run notification, whatever representation the server chose. */
export function runIdOf(exchange: Exchange): string | undefined {
  if (exchange.response?.status !== 200) return undefined;
  const decoded = decodeAnswer(exchange, 'CsnNotification');
  const runId = decoded.ok && decoded.value !== null && typeof decoded.value === 'object' ? (decoded.value as { runId?: unknown }).runId : undefined;
  return typeof runId === 'string' ? runId : undefined;
}

/**
 * The runId a run notification sent, read from its body as sent (JSON or XML): a non-empty one ends that run.
 * Undefined when the body carries none, or cannot be read (cut to the report limit, or malformed on purpose).
 */
export function sentRunIdOf(exchange: Exchange): string | undefined {
  const { body, bodyTruncated } = exchange.request;
  if (bodyTruncated || body === '') return undefined;
  const decoded = decodeBody(body.trimStart().startsWith('<') ? 'xml' : 'json', 'AgentRun', body);
  const runId = decoded.ok && decoded.value !== null && typeof decoded.value === 'object' ? (decoded.value as { runId?: unknown }).runId : undefined;
  return typeof runId === 'string' ? runId : undefined;
}

/**
 * How deep a body nests as the harness's readers would take it: as JSON when it is declared JSON or starts
 * like JSON (`{` or `[`: the stated texts are looked for in any such body), as XML when it is declared XML
 * or starts with `<`, unless it is HTML (declared `text/html`, or opening with `<!DOCTYPE html` or `<html`:
 * HTML leaves elements unclosed, so counting them would overstate it, and nothing here walks an HTML tree
 * beyond the XML decoder, which measures again). The deeper reading wins; undefined when neither applies.
 * One linear scan, no recursion (lib/contract/codec/depth.ts).
 */
export function nestingOf(body: string, contentType: string | undefined): { format: Format; depth: number } | undefined {
  const declared = formatOfContentType(contentType);
  const at = body.search(/\S/);
  const start = at < 0 ? '' : body.slice(at, at + 14);
  const html = (contentType ?? '').trim().toLowerCase().startsWith('text/html') || /^<(?:!doctype\s+html|html[\s>])/i.test(start);
  const asJson = declared === 'json' || start.startsWith('{') || start.startsWith('[');
  const asXml = declared === 'xml' || (start.startsWith('<') && !html);
  const json = asJson ? jsonDepth(body) : -1;
  const xml = asXml ? xmlDepth(body) : -1;
  if (json < 0 && xml < 0) return undefined;
  return json >= xml ? { format: 'json', depth: json } : { format: 'xml', depth: xml };
}

/** A short structural description of a body, for `observed` records and regression diffs. */
export function bodyShape(exchange: Exchange): string {
  const response = exchange.response;
  if (!response || response.bodyBytes === 0) return 'empty';
  const format = bodyFormat(exchange);
  if (format === 'json') {
    const decoded = decodeJson(response.body);
    if (decoded.ok) return `json ${shapeOf(decoded.value, 1)}`;
    return jsonDepth(response.body) > MAX_NESTING_DEPTH ? `json nested deeper than ${MAX_NESTING_DEPTH} levels` : 'text (not JSON)';
  }
  if (format === 'xml') {
    const root = /<([A-Za-z_][\w.-]*)/.exec(response.body.replace(/<\?[^>]*\?>/g, ''));
    return `xml <${root?.[1] ?? '?'}>`;
  }
  return `text ${JSON.stringify(clip(response.body, 60))}`;
}

function shapeOf(value: unknown, depth: number): string {
  if (depth > MAX_NESTING_DEPTH) return '…';
  if (Array.isArray(value)) return `[${value.length > 0 ? shapeOf(value[0], depth + 1) : ''}]`;
  if (value === null) return 'null';
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${k}: ${typeof (value as Record<string, unknown>)[k]}`).join(', ')}}`;
  }
  return typeof value;
}

/** Does the body parse as what its Content-Type declares? Returns a reason when it does not. */
export function bodyMismatch(exchange: Exchange): string | null {
  const response = exchange.response;
  if (!response || response.bodyBytes === 0 || response.truncated) return null;
  const declared = declaredFormat(exchange);
  if (declared === 'json') {
    try {
      JSON.parse(response.body);
    } catch {
      return 'declares JSON but the body is not JSON';
    }
  }
  if (declared === 'xml') {
    if (XMLValidator.validate(response.body) !== true) return 'declares XML but the body is not well-formed XML';
  }
  return null;
}

/** The body as a plain text value: the text itself, or a JSON string literal's value. */
export function plainText(body: string): string {
  const trimmed = body.trim();
  // A single XML element holding the text (<string>Bad Request</string>, as some frameworks write it).
  const element = /^(?:<\?xml[^>]*\?>\s*)?<([A-Za-z_][\w.:-]*)(?:\s[^>]*)?>([^<]*)<\/\1>$/.exec(trimmed);
  if (element) return (element[2] ?? '').trim();
  if (trimmed.startsWith('"')) {
    try {
      const parsed = JSON.parse(trimmed) as unknown;
      if (typeof parsed === 'string') return parsed;
    } catch {
      // not a JSON string: compare the text itself
    }
  }
  return trimmed;
}

/** Every string value of a decoded JSON value, at any depth (a loop over a stack: no recursion). */
function jsonStrings(root: unknown): string[] {
  const out: string[] = [];
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) for (const item of value as unknown[]) pending.push(item);
    else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) pending.push(item);
  }
  return out;
}

const XML_ENTITY: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * Does the body carry the stated text as a whole string (sections 4.1, 7: the format is free)? The body
 * itself, any JSON string value at any depth (a problem+json `title`, an API Management `message`), or
 * the text of any XML or HTML element; surrounding whitespace aside, case and wording exact.
 */
/**
 * Does a string carry the stated text as a whole: the text itself, or the text followed by a detail after a
 * separator ("Bad Request: agencyCode must be 3 characters", "Bad Request\n…", "Bad Request - …"), after the
 * status it names or not ("HTTP 400 Bad Request")? A text that merely starts the same way ("Bad Requests",
 * "Bad Request body") does not.
 */
export function leadsWithText(value: string, text: string): boolean {
  // The text after the status it names ("HTTP 400 Bad Request", "400 Bad Request"): a message stating the
  // status and its reason phrase carries the reason phrase.
  // So do the forms frameworks write: "Status Code: 400; Bad Request" (ASP.NET Core's UseStatusCodePages),
  // "HTTP Status 400 – Bad Request" (Tomcat's error page), "400: Bad Request".
  const s = value.trim().replace(/^(?:HTTP(?:\/\d(?:\.\d)?)?\s+)?(?:Status(?:\s+Code)?\s*:?\s*)?[1-5][0-9]{2}(?:\s*[;:\u2013\u2014-]\s*|\s+)(?=\S)/i, '');
  if (s === text) return true;
  return s.startsWith(text) && /^(?:\s*[:;,.(\[]|\s+[-\u2013\u2014]\s|\s*\r?\n)/.test(s.slice(text.length));
}

export function carriesText(body: string, text: string): boolean {
  // The body as one text (a JSON string literal's value, a lone element's text): the text, or the text and a detail.
  if (leadsWithText(plainText(body), text)) return true;
  const trimmed = body.trim();
  // A plain text that is the stated text, or leads with it and gives a detail after it.
  if (!/^[{[<"]/.test(trimmed) && leadsWithText(trimmed, text)) return true;
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    // Not JSON (or nested too deep to read): the text nodes below may still carry it.
    const decoded = decodeJson(trimmed);
    if (decoded.ok && jsonStrings(decoded.value).some((s) => leadsWithText(s, text))) return true;
  }
  const unwrapped = trimmed.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_w, inner: string) => inner.replace(/</g, '&lt;'));
  for (const m of unwrapped.matchAll(/>([^<]+)</g)) {
    const node = (m[1] ?? '')
      .replace(/&#(x[0-9a-fA-F]+|[0-9]+);/g, (whole, ref: string) => {
        const code = ref.startsWith('x') ? parseInt(ref.slice(1), 16) : parseInt(ref, 10);
        return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      })
      .replace(/&(lt|gt|amp|quot|apos);/g, (_w, name: string) => XML_ENTITY[name] ?? '')
      .trim();
    if (leadsWithText(node, text)) return true;
  }
  return false;
}

/** The length of a text under each reading of "characters": where these differ, a limit is only observed. */
let graphemeSegmenter: Intl.Segmenter | undefined;
const PLAIN_ASCII = /^[\x00-\x7f]*$/;

export function lengthsOf(text: string): { codePoints: number; utf16Units: number; graphemes: number; utf8Bytes: number } {
  // ASCII without a CR LF (the one pair of ASCII characters that is a single grapheme cluster): every
  // reading counts each character once. Most values are so, and segmenting them was a planning's largest cost.
  if (PLAIN_ASCII.test(text) && !text.includes('\r\n')) return { codePoints: text.length, utf16Units: text.length, graphemes: text.length, utf8Bytes: text.length };
  // One segmenter for every call: building one costs far more than segmenting a short value.
  graphemeSegmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  let graphemes = 0;
  for (const _segment of graphemeSegmenter.segment(text)) graphemes += 1;
  return {
    codePoints: [...text].length,
    utf16Units: text.length,
    graphemes,
    utf8Bytes: Buffer.byteLength(text, 'utf8'),
  };
}

/**
 * Do the readings of "characters" (code points, UTF-16 units, grapheme clusters, code points after NFC)
 * agree on this text's length? True of ASCII, and of letters of the Basic Multilingual Plane written
 * precomposed ("é"): a length past a limit in such text is past it for every reading. UTF-8 bytes are no
 * reading of characters: a server that counts them is wrong about "é".
 */
export function charactersAgree(text: string): boolean {
  const l = lengthsOf(text);
  return l.codePoints === l.utf16Units && l.codePoints === l.graphemes && l.codePoints === [...text.normalize('NFC')].length;
}

/** Do every reading of "characters" (code points, UTF-16 units, grapheme clusters, UTF-8 bytes) agree on this text's length? */
export function readingsAgree(text: string): boolean {
  const l = lengthsOf(text);
  return l.codePoints === l.utf16Units && l.codePoints === l.graphemes && l.codePoints === l.utf8Bytes;
}
