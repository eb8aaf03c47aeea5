import type { IncomingMessage } from 'node:http';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { resourceSchema } from '../lib/contract/constraints.ts';
import type { Format } from '../lib/contract/codec/index.ts';
import { decodeJson, decodeXml, formatOfContentType } from '../lib/contract/codec/index.ts';
import type { RequestBodySpec } from '../lib/contract/operations.ts';
import type { Context } from './context.ts';
import { header, readBody } from './wire.ts';
import { parseLenientJson } from './lenient-json.ts';
import { readBody as readValue } from './readings.ts';
import { expandInternalEntities } from './xml-entities.ts';
import { bodyAsMisread } from './spelling-faults.ts';

/**
 * Reading and decoding the request body of the run notification and of the merge (sections 2.1, 2.3,
 * 4.1, 4.2). Content-Type is optional: JSON for application/json and +json, XML for application/xml,
 * text/xml and +xml; without it the body is sniffed (first non-space character `<` is XML, anything else
 * JSON) by the reference choices. Any other media type is refused with 415. The text is UTF-8; invalid
 * UTF-8 is a bad request.
 */

export type BodyOutcome =
  | { ok: true; value: unknown; format: Format }
  | { ok: false; kind: 'too-large' | 'aborted' | 'unsupported-media' | 'malformed' | 'invalid'; error: string; format?: Format };

const utf8 = new TextDecoder('utf-8', { fatal: true });

export async function decodeRequestBody(ctx: Context, req: IncomingMessage, spec: RequestBodySpec): Promise<BodyOutcome> {
  const read = await readBody(req, ctx.maxBodyBytes);
  if (read.kind === 'too-large') return { ok: false, kind: 'too-large', error: `body over ${ctx.maxBodyBytes} bytes` };
  if (read.kind === 'aborted') return { ok: false, kind: 'aborted', error: 'request aborted' };

  const contentType = header(req, 'content-type')?.trim();
  let format: Format;
  if (contentType) {
    // Review fault `content-type-params-refused`: the header is compared as a whole string.
    if (ctx.faults.has('content-type-params-refused') && contentType.includes(';')) return { ok: false, kind: 'unsupported-media', error: `unsupported media type ${contentType}` };
    const named = formatOfContentType(contentType);
    if (named !== 'json' && named !== 'xml') return { ok: false, kind: 'unsupported-media', error: `unsupported media type ${contentType}` };
    format = named;
  } else {
    // Choice `no-content-type-refused`: an unlabelled body is application/octet-stream (RFC 9110 §8.3), which the server does not read.
    if (ctx.choices.has('no-content-type-refused')) return { ok: false, kind: 'unsupported-media', error: 'no Content-Type: application/octet-stream is not read' };
    if (ctx.choices.has('no-content-type-json')) {
      const t = new TextDecoder().decode(read.bytes);
      const decoded = ctx.choices.has('newtonsoft-json') ? parseLenientJson(t) : decodeJson(t);
      return decoded.ok ? { ok: true, value: readValue(ctx, spec.resource, 'json', decoded.value), format: 'json' } : { ok: false, kind: 'malformed', error: decoded.error, format: 'json' };
    }
    format = 'json';
  }
  let text: string;
  try {
    text = utf8.decode(read.bytes);
  } catch {
    return { ok: false, kind: 'invalid', error: 'body is not UTF-8' };
  }
  if (!contentType && text.trimStart().startsWith('<')) format = 'xml';
  // The spelling family's body faults (server/spelling-faults.ts): a spelling refused, or read as text.
  const misread = bodyAsMisread((id) => ctx.faults.has(id), format, spec.resource, text);
  if (misread === null) return { ok: false, kind: 'invalid', error: 'the body is spelled in a way this server does not read' };
  text = misread;

  if (format === 'json') {
    if (text.trim() === '') return { ok: false, kind: 'invalid', error: 'empty body' };
    const decoded = ctx.choices.has('newtonsoft-json') ? parseLenientJson(text) : decodeJson(text);
    return decoded.ok ? { ok: true, value: readValue(ctx, spec.resource, format, decoded.value), format } : { ok: false, kind: 'malformed', error: decoded.error, format };
  }

  if (ctx.faults.has('xml-request-unsupported')) return { ok: false, kind: 'invalid', error: 'XML is not supported' };
  // Fault `xml-bodies-415`: no XML input formatter (production registers JSON ones only).
  if (ctx.faults.has('xml-bodies-415')) return { ok: false, kind: 'unsupported-media', error: 'no input formatter reads XML' };
  // Review fault `xml-whitespace-refused`: whitespace between elements is taken for mixed content.
  if (ctx.faults.has('xml-whitespace-refused') && />\s+</.test(text.replace(/^\s*<\?xml[^>]*\?>/, ''))) return { ok: false, kind: 'invalid', error: 'text between elements' };
  if (ctx.faults.has('xml-entities-expanded')) {
    const expanded = expandInternalEntities(text);
    if (!expanded.ok) return { ok: false, kind: 'invalid', error: expanded.error };
    text = expanded.text;
  }
  if (ctx.faults.has('xml-request-namespace')) {
    const root = /<([A-Za-z_][\w.:-]*)((?:\s[^>]*)?)\/?>/.exec(text.replace(/<\?[^>]*\?>/g, '').replace(/<!--[\s\S]*?-->/g, ''));
    if (root && !/\sxmlns\s*=\s*["']http:\/\/schemas\.datacontract\.org\/2004\/07\/Iswc\.Api\.Models["']/.test(root[2] ?? '')) {
      return { ok: false, kind: 'invalid', error: `Expecting element '${spec.xmlRoot}' from namespace 'http://schemas.datacontract.org/2004/07/Iswc.Api.Models'` };
    }
  }
  const dropEntities = ctx.choices.has('xml-entities-dropped');
  if (dropEntities) {
    // A DOCTYPE is skipped unprocessed; references to the entities it declared stay unresolved and are dropped.
    text = text.replace(/<!DOCTYPE[^[>]*(?:\[[\s\S]*?\])?\s*>/i, '').replace(/&(?!(?:lt|gt|amp|quot|apos);|#)[A-Za-z_][\w.-]*;/g, '');
  }
  if (ctx.choices.has('xml-sequence-order')) {
    const problem = outOfOrder(spec.resource, text);
    if (problem) return { ok: false, kind: 'invalid', error: problem };
  }
  if (ctx.choices.has('xml-any-root')) {
    const root = spec.xmlRoot;
    text = text.replace(/<([A-Za-z_][\w.-]*)(?=[\s/>])/, (_m, _name: string) => `<${root}`).replace(/<\/([A-Za-z_][\w.-]*)>\s*$/, `</${root}>`);
  }
  const decoded = ctx.choices.has('xml-wrapped-arrays') && spec.resource === 'MergeRequest' ? decodeWrapped(text) : decodeXml(spec.resource, text);
  if (decoded.ok) return { ok: true, value: readValue(ctx, spec.resource, format, dropEntities ? withoutEmptyText(decoded.value) : decoded.value), format };
  return { ok: false, kind: decoded.code === 'malformed' ? 'malformed' : 'invalid', error: decoded.error, format };
}

/** Choice `xml-entities-dropped`: an element left without text (an empty string) reads as an absent field. */
function withoutEmptyText(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmptyText);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== '').map(([k, v]) => [k, withoutEmptyText(v)]));
}

const ordered = new XMLParser({ preserveOrder: true, ignoreAttributes: true, parseTagValue: false, trimValues: false, processEntities: false, ignoreDeclaration: true, ignorePiTags: true });

type Ordered = Array<Record<string, unknown>>;
const tagOf = (node: Record<string, unknown>): string | undefined => Object.keys(node).find((k) => k !== ':@' && k !== '#text' && k !== '#comment');

/** Choice `xml-sequence-order`: the root's child elements must follow the schema's property order. */
function outOfOrder(resource: RequestBodySpec['resource'], text: string): string | undefined {
  let doc: Ordered;
  try {
    doc = ordered.parse(text) as Ordered;
  } catch {
    return undefined;
  }
  const root = doc.find((n) => tagOf(n) !== undefined);
  const tag = root ? tagOf(root) : undefined;
  if (!root || !tag) return undefined;
  const order = Object.keys(resourceSchema(resource).properties ?? {});
  let last = -1;
  for (const child of (root[tag] as Ordered) ?? []) {
    const name = tagOf(child);
    if (!name) continue;
    const at = order.indexOf(name);
    if (at < 0) continue;
    if (at < last) return `element <${name}> out of the sequence order`;
    last = at;
  }
  return undefined;
}

/** Choice `xml-wrapped-arrays`: MergeRequest arrays read as XmlSerializer's default wrapped collections. */
function decodeWrapped(text: string): { ok: true; value: unknown } | { ok: false; code: 'malformed' | 'root'; error: string } {
  if (XMLValidator.validate(text) !== true) return { ok: false, code: 'malformed', error: 'malformed XML' };
  let doc: Ordered;
  try {
    doc = ordered.parse(text) as Ordered;
  } catch (e) {
    return { ok: false, code: 'malformed', error: (e as Error).message };
  }
  const root = doc.find((n) => tagOf(n) !== undefined);
  if (!root || tagOf(root) !== 'MergeRequest') return { ok: false, code: 'root', error: 'root element is not MergeRequest' };
  const textOf = (nodes: Ordered): string => nodes.map((n) => (typeof n['#text'] === 'string' ? n['#text'] : '')).join('');
  const elements = (nodes: Ordered): Array<[string, Ordered]> => nodes.flatMap((n) => { const t = tagOf(n); return t ? [[t, n[t] as Ordered] as [string, Ordered]] : []; });
  const out: { iswcs: string[]; agencyWorks: Array<Record<string, string>> } = { iswcs: [], agencyWorks: [] };
  for (const [name, children] of elements(root.MergeRequest as Ordered)) {
    if (name === 'iswcs') for (const [, item] of elements(children)) out.iswcs.push(textOf(item));
    if (name === 'agencyWorks') {
      for (const [, item] of elements(children)) {
        const work: Record<string, string> = {};
        for (const [field, v] of elements(item)) work[field] = textOf(v);
        out.agencyWorks.push(work);
      }
    }
  }
  return { ok: true, value: out };
}
