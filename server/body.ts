import type { IncomingMessage } from 'node:http';
import type { Format } from '../lib/contract/codec/index.ts';
import { decodeJson, decodeXml, formatOfContentType } from '../lib/contract/codec/index.ts';
import type { RequestBodySpec } from '../lib/contract/operations.ts';
import type { Context } from './context.ts';
import { header, readBody } from './wire.ts';
import { parseLenientJson } from './lenient-json.ts';
import { readBody as readValue } from './readings.ts';
import { expandInternalEntities } from './xml-entities.ts';

/**
 * Reading and decoding the request body of the run notification and of the merge (sections 2.1, 2.3,
 * 4.1, 4.2). Content-Type is optional: JSON for application/json and +json, XML for application/xml,
 * text/xml and +xml; without it the body is sniffed (first non-space character `<` is XML, anything else
 * JSON). Any other media type is refused with 415. The text is UTF-8; invalid UTF-8 is a bad request.
 */

export type BodyOutcome =
  | { ok: true; value: unknown; format: Format }
  | { ok: false; kind: 'too-large' | 'aborted' | 'unsupported-media' | 'malformed' | 'invalid'; error: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

export async function decodeRequestBody(ctx: Context, req: IncomingMessage, spec: RequestBodySpec): Promise<BodyOutcome> {
  const read = await readBody(req, ctx.maxBodyBytes);
  if (read.kind === 'too-large') return { ok: false, kind: 'too-large', error: `body over ${ctx.maxBodyBytes} bytes` };
  if (read.kind === 'aborted') return { ok: false, kind: 'aborted', error: 'request aborted' };

  const contentType = header(req, 'content-type')?.trim();
  let format: Format;
  if (contentType) {
    const named = formatOfContentType(contentType);
    if (named !== 'json' && named !== 'xml') return { ok: false, kind: 'unsupported-media', error: `unsupported media type ${contentType}` };
    format = named;
  } else {
    if (ctx.faults.has('content-type-required')) return { ok: false, kind: 'invalid', error: 'Content-Type is required' };
    format = 'json';
  }
  let text: string;
  try {
    text = utf8.decode(read.bytes);
  } catch {
    return { ok: false, kind: 'invalid', error: 'body is not UTF-8' };
  }
  if (!contentType && text.trimStart().startsWith('<')) format = 'xml';

  if (format === 'json') {
    if (text.trim() === '') return { ok: false, kind: 'invalid', error: 'empty body' };
    const decoded = ctx.choices.has('newtonsoft-json') ? parseLenientJson(text) : decodeJson(text);
    return decoded.ok ? { ok: true, value: readValue(ctx, spec.resource, format, decoded.value), format } : { ok: false, kind: 'malformed', error: decoded.error };
  }

  if (ctx.faults.has('xml-request-unsupported')) return { ok: false, kind: 'invalid', error: 'XML is not supported' };
  if (ctx.faults.has('xml-entities-expanded')) {
    const expanded = expandInternalEntities(text);
    if (!expanded.ok) return { ok: false, kind: 'invalid', error: expanded.error };
    text = expanded.text;
  }
  const decoded = decodeXml(spec.resource, text);
  if (decoded.ok) return { ok: true, value: readValue(ctx, spec.resource, format, decoded.value), format };
  return { ok: false, kind: decoded.code === 'malformed' ? 'malformed' : 'invalid', error: decoded.error };
}
