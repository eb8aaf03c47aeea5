import { XMLValidator } from 'fast-xml-parser';
import { MAX_NESTING_DEPTH } from '../../config/limits.ts';
import { xmlDepth } from '../../contract/codec/depth.ts';
import type { Format } from '../../contract/codec/index.ts';
import { formatOfContentType } from '../../contract/codec/index.ts';
import type { ResourceName } from '../../contract/json-schema.ts';
import type { SchemaNode } from '../../contract/openapi.ts';
import { deref } from '../../contract/openapi.ts';
import type { ClientRequest, DecodedBody, QueryPair, RequestView } from './types.ts';
import type { XmlElement } from './xml-tree.ts';
import { plainWellFormed, xmlRoots } from './xml-tree.ts';

/**
 * Reading a client's request once for every client check: the query pairs, the body's format (declared
 * and sniffed), its text and its value. XML is read along the resource's schema (as the document's
 * mapping writes it: root element, child elements named after the fields, arrays unwrapped), and the
 * habits the document leaves open are noted rather than refused: a namespace, wrapped arrays, a DOCTYPE,
 * repeated elements, elements where text is expected.
 */

const PLAIN_NEEDS_DECODING = /[%+]/;

export function parseQuery(raw: string): QueryPair[] {
  const out: QueryPair[] = [];
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    // Most parameters need no decoding at all.
    if (!PLAIN_NEEDS_DECODING.test(part)) {
      out.push({ name: rawName, value: rawValue, decoded: true });
      continue;
    }
    try {
      out.push({ name: decodeURIComponent(rawName.replace(/\+/g, ' ')), value: decodeURIComponent(rawValue.replace(/\+/g, ' ')), decoded: true });
    } catch {
      out.push({ name: rawName, value: rawValue, decoded: false });
    }
  }
  return out;
}

/** `<` first (after white space and a byte order mark) is XML; anything else is taken for JSON. */
function sniff(bytes: Buffer): Format | undefined {
  if (bytes.length === 0) return undefined;
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return 'xml';
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i += 1;
  return bytes[i] === 0x3c ? 'xml' : 'json';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The charset parameter of a Content-Type, lower case, unquoted; undefined when none is given. */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? '');
  return m?.[2]?.toLowerCase();
}

/** Decodes with a WHATWG encoding label; `unknown` when the label names no encoding this reader has. */
function decodeAs(bytes: Buffer, label: string): { text?: string; unknown?: true } {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    return { unknown: true };
  }
  try {
    return { text: decoder.decode(bytes) };
  } catch {
    return {};
  }
}

/**
 * The body as text: UTF-8 for JSON (RFC 8259 §8.1); for XML, as RFC 7303 §3 and XML 1.0 §4.3.3 read it:
 * the Content-Type's charset first, then a byte order mark, then the XML declaration's encoding, else UTF-8.
 * An encoding the sandbox cannot decode is not the client's fault: the body is then left unread (`unread`).
 */
function decodeText(bytes: Buffer, format: Format | undefined, contentType: string | undefined): { text?: string; error?: string; unread?: string } {
  if (format === 'xml') {
    const bom = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 'utf-8' : undefined;
    const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/i.exec(bytes.subarray(bom === 'utf-8' ? 3 : 0, 200).toString('latin1'))?.[1]?.toLowerCase();
    const label = charsetOf(contentType) ?? bom ?? declared ?? 'utf-8';
    const decoded = decodeAs(bytes, label);
    if (decoded.unknown) return { unread: `the XML body's encoding "${label}", which the sandbox does not decode: the body's fields were not judged` };
    if (decoded.text !== undefined) return { text: decoded.text.replace(/^\uFEFF/, '') };
    return { error: `the XML body is not valid ${label === 'utf-8' ? 'UTF-8 and declares no other encoding' : `in the encoding it declares (${label})`}` };
  }
  try {
    return { text: utf8.decode(bytes) };
  } catch {
    return { error: 'the JSON body is not valid UTF-8 (RFC 8259 §8.1)' };
  }
}

const local = (tag: string): string => tag.slice(tag.indexOf(':') + 1);

/** An element's text with its descendants' (what a reader taking the inner text gets). */
function innerText(node: XmlElement): string {
  let text = node.text;
  for (const child of node.children) text += innerText(child);
  return text;
}

function isNil(node: XmlElement): boolean {
  for (const k in node.attributes) if (local(k) === 'nil' && node.attributes[k]?.trim() === 'true') return true;
  return false;
}

const INTEGER_TEXT = /^\s*[+-]?[0-9]+\s*$/;

/** One element read along a schema node; what the mapping does not expect is noted in `notes`. */
function readElement(node: XmlElement, raw: SchemaNode | undefined, path: string, notes: string[]): unknown {
  const schema = raw ? deref(raw) : undefined;
  if (isNil(node)) return null;
  if (schema?.type === 'object') {
    const out: Record<string, unknown> = {};
    const counts = new Map<string, number>();
    for (const child of node.children) {
      const name = local(child.name);
      const propRaw = schema.properties?.[name];
      const prop = propRaw ? deref(propRaw) : undefined;
      const at = path ? `${path}.${name}` : name;
      if (prop?.type === 'array') {
        // xsi:nil on the list: the list is null, as JSON's null (only while no item came before it).
        if (out[name] === undefined && isNil(child)) {
          out[name] = null;
          continue;
        }
        const items = Array.isArray(out[name]) ? (out[name] as unknown[]) : [];
        out[name] = items;
        // <iswcs/> (XmlSerializer's empty list): an empty list to a reader of wrapped arrays, one empty
        // item to a reader of unwrapped ones. Readers differ: no item is read, and the habit is noted.
        if (child.children.length === 0 && child.text.trim() === '' && !isNil(child)) {
          const note = `an empty <${name}/> (an empty list, or one empty item: readers differ)`;
          if (!notes.includes(note)) notes.push(note);
          continue;
        }
        const itemRaw = prop.items;
        const item = itemRaw ? deref(itemRaw) : undefined;
        const grandchildren = child.children;
        // XmlSerializer's default: one element for the list, each item in an element of its own (named
        // after its type): for objects, children that are none of the item's fields.
        const fields = Object.keys(item?.properties ?? {});
        const wrapped = grandchildren.length > 0 && (item?.type !== 'object' || grandchildren.every((g) => !fields.includes(local(g.name)) && g.children.length > 0));
        if (wrapped) {
          if (!notes.includes('wrapped arrays')) notes.push('wrapped arrays');
          for (const g of grandchildren) items.push(readElement(g, itemRaw, `${at}[${items.length}]`, notes));
        } else {
          items.push(readElement(child, itemRaw, `${at}[${items.length}]`, notes));
        }
        continue;
      }
      const seen = (counts.get(name) ?? 0) + 1;
      counts.set(name, seen);
      if (seen > 1) {
        notes.push(`element <${name}> repeated`);
        continue;
      }
      out[name] = readElement(child, propRaw, at, notes);
    }
    return out;
  }
  if (node.children.length > 0) {
    notes.push(`<${local(node.name)}> holds elements where text is expected`);
    return innerText(node);
  }
  const text = node.text;
  if (schema?.type === 'integer' && INTEGER_TEXT.test(text)) return Number(text.trim());
  return text;
}

const rootNodes = new Map<ResourceName, SchemaNode>();

/** One reference node per resource, so that deref's cache serves every request. */
function rootOf(resource: ResourceName): SchemaNode {
  let node = rootNodes.get(resource);
  if (!node) rootNodes.set(resource, (node = { $ref: `#/components/schemas/${resource}` }));
  return node;
}

/** Why XML text is not well-formed, or undefined when it is (the plain subset at once, anything else by the validator). */
function malformedXml(text: string): string | undefined {
  if (plainWellFormed(text)) return undefined;
  const valid = XMLValidator.validate(text);
  return valid === true ? undefined : `not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`;
}

/**
 * What the body checks are told of well-formed XML nested deeper than the harness reads (MAX_NESTING_DEPTH,
 * lib/config/limits.ts): the document states no depth, and readers bound it differently, so such a body is
 * left unjudged and recorded (client.xml), never taken for a client's violation.
 */
function tooDeepNote(depth: number): string {
  return `elements nested ${depth} levels deep, past the ${MAX_NESTING_DEPTH} the sandbox reads (the document states no depth; XML readers bound it differently): the body's fields were not judged`;
}

/** Reads well-formed XML along the resource's schema: its value, the root's name and namespace, and the habits noted. */
export function readXml(resource: ResourceName, text: string): DecodedBody {
  const doctype = /<!DOCTYPE/i.test(text);
  // A DOCTYPE is noted and left aside: entities are never expanded.
  const roots = xmlRoots(text);
  const root = roots[0];
  if (!root || roots.length !== 1) return { ok: false, error: 'XML must have exactly one root element' };
  const tag = root.name;
  const prefix = tag.includes(':') ? tag.slice(0, tag.indexOf(':')) : '';
  const namespace = root.attributes[prefix ? `xmlns:${prefix}` : 'xmlns'];
  const notes: string[] = [];
  if (doctype) notes.push('a DOCTYPE');
  if (namespace !== undefined) notes.push(`the root in the namespace ${namespace}`);
  const value = readElement(root, rootOf(resource), '', notes);
  return { ok: true, value, root: local(tag), xmlNotes: notes };
}

/** Decodes a request's query and body once, for every check. */
export function viewOf(request: ClientRequest): RequestView {
  const query = parseQuery(request.rawQuery);
  const bytes = request.body;
  const bodyBytes = request.tooLarge ? Number.POSITIVE_INFINITY : bytes.length;
  const declared = formatOfContentType(request.headers['content-type']?.trim() || undefined);
  const sniffed = request.tooLarge ? undefined : sniff(bytes);
  const format = declared === 'json' || declared === 'xml' ? declared : sniffed;
  const view: RequestView = { query, bodyBytes, declared, sniffed, format, text: undefined, textError: undefined, parsed: undefined, unread: undefined };
  // Section 8: "size limits: not shown". A body over what the sandbox reads is no violation: left unread, recorded.
  if (request.tooLarge) view.unread = 'a body larger than the sandbox reads (the document states no size limit): its content was not judged';
  if (bytes.length === 0 || request.tooLarge) return view;
  const decoded = decodeText(bytes, format, request.headers['content-type']);
  view.text = decoded.text;
  view.textError = decoded.error;
  view.unread = decoded.unread;
  if (decoded.text === undefined) return view;
  const resource = request.operation?.body?.resource;
  if (format === 'json') {
    try {
      view.parsed = { ok: true, value: JSON.parse(decoded.text) as unknown, root: undefined, xmlNotes: [] };
    } catch (e) {
      view.parsed = { ok: false, error: decoded.text.trim() === '' ? 'an empty JSON body' : `not JSON (RFC 8259): ${(e as Error).message}` };
    }
  } else if (format === 'xml') {
    // Well-formedness is judged whatever the depth (the validators do not recurse); reading is not.
    const malformed = malformedXml(decoded.text);
    const depth = malformed === undefined ? xmlDepth(decoded.text) : 0;
    if (malformed !== undefined) view.parsed = { ok: false, error: malformed };
    else if (depth > MAX_NESTING_DEPTH) view.unread = tooDeepNote(depth);
    else view.parsed = resource ? readXml(resource, decoded.text) : { ok: true, value: undefined, root: undefined, xmlNotes: [] };
  }
  return view;
}
