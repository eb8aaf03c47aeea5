import { XMLValidator } from 'fast-xml-parser';
import { formatOfContentType, sniffFormat } from '../codec/index.ts';
import type { Exchange } from '../http/types.ts';

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

/** A short structural description of a body, for `observed` records and regression diffs. */
export function bodyShape(exchange: Exchange): string {
  const response = exchange.response;
  if (!response || response.bodyBytes === 0) return 'empty';
  const declared = formatOfContentType(contentTypeOf(exchange));
  const format = declared === 'json' || declared === 'xml' ? declared : sniffFormat(response.body);
  if (format === 'json') {
    try {
      return `json ${shapeOf(JSON.parse(response.body) as unknown)}`;
    } catch {
      return 'text (not JSON)';
    }
  }
  if (format === 'xml') {
    const root = /<([A-Za-z_][\w.-]*)/.exec(response.body.replace(/<\?[^>]*\?>/g, ''));
    return `xml <${root?.[1] ?? '?'}>`;
  }
  return `text ${JSON.stringify(clip(response.body, 60))}`;
}

function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length > 0 ? shapeOf(value[0]) : ''}]`;
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
  const declared = formatOfContentType(contentTypeOf(exchange));
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
