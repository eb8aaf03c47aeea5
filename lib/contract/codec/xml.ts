import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { ResourceName } from '../json-schema.ts';
import type { SchemaNode } from '../openapi.ts';
import { deref } from '../openapi.ts';
import { resourceSchema } from '../constraints.ts';
import { MAX_NESTING_DEPTH } from '../../config/limits.ts';
import { tooDeepText, xmlDepth } from './depth.ts';
import { deepFreeze, KEPT_TEXT_LIMIT, textMemo } from '../../foundation/memo.ts';

/**
 * XML codec derived from the OpenAPI `xml` objects of `schemas/openapi.yaml`: the root element is the
 * schema's `xml.name`, properties are child elements named after the property, and arrays are written
 * unwrapped (each item repeats under `items.xml.name`, or the property name). No field is named here.
 */

export type DecodeResult = { ok: true; value: unknown } | { ok: false; error: string; code: 'doctype' | 'malformed' | 'root' | 'empty' | 'too-deep' };

// XML 1.0 Char production: what a string must be made of to be written as XML text at all.
const XML_CHAR = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

/** Can this value be written in XML without changing it? (NUL and other control characters cannot.) */
export function xmlRepresentable(value: unknown): boolean {
  if (typeof value === 'string') return XML_CHAR.test(value);
  if (Array.isArray(value)) return value.every(xmlRepresentable);
  if (value !== null && typeof value === 'object') return Object.entries(value).every(([k, v]) => /^[A-Za-z_][\w.-]*$/.test(k) && xmlRepresentable(v));
  return true;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** How a scalar's text is written: escaped (the default), or in another spelling every reader takes alike (lib/contract/codec/spellings.ts). */
export type ScalarWriter = (text: string) => string;

function encodeScalar(value: unknown, write: ScalarWriter = escapeXml): string {
  return write(typeof value === 'string' ? value : String(value));
}

/**
 * An object's entries in the schema's property order, unknown keys after them: a server that validates XML
 * as a sequence in the document's field order (XSD, DataContract) reads what the harness writes.
 */
function inSchemaOrder(value: Record<string, unknown>, node: SchemaNode | undefined): Array<[string, unknown]> {
  const order = Object.keys(node?.properties ?? {});
  const rank = (key: string) => {
    const at = order.indexOf(key);
    return at < 0 ? order.length : at;
  };
  return Object.entries(value)
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => rank(a.entry[0]) - rank(b.entry[0]) || a.i - b.i)
    .map(({ entry }) => entry);
}

/**
 * How arrays are written: `unwrapped` as the contract's `xml` objects say (each item repeats under the
 * property name, production's OpenAPI); `wrapped` as .NET's XmlSerializer writes a list by default (one
 * element per array, each item named after its type: `string`, or the item schema's `xml.name`).
 */
export type XmlArrayShape = 'unwrapped' | 'wrapped';

function encodeElement(name: string, value: unknown, raw: SchemaNode | undefined, arrays: XmlArrayShape, write?: ScalarWriter): string {
  if (value === undefined) return '';
  const node = raw ? deref(raw) : undefined;
  if (Array.isArray(value)) {
    if (arrays === 'wrapped' && node?.type === 'array') {
      const item = node.items ? deref(node.items) : undefined;
      const itemName = item?.type === 'object' ? (item.xml?.name ?? 'item') : (item?.type ?? 'string');
      return `<${name}>${value.map((v) => encodeElement(itemName, v, node.items, arrays, write)).join('')}</${name}>`;
    }
    const itemName = node?.type === 'array' ? (node.items?.xml?.name ?? name) : name;
    const inner = value.map((item) => encodeElement(itemName, item, node?.items, arrays, write)).join('');
    return node?.type === 'array' && node.xml?.wrapped ? `<${node.xml.name ?? name}>${inner}</${node.xml.name ?? name}>` : inner;
  }
  if (value === null) return `<${name}/>`;
  if (typeof value === 'object') {
    const children = inSchemaOrder(value as Record<string, unknown>, node)
      .map(([key, child]) => encodeElement(key, child, node?.properties?.[key], arrays, write))
      .join('');
    return `<${name}>${children}</${name}>`;
  }
  return `<${name}>${encodeScalar(value, write)}</${name}>`;
}

/** Writes a value as the XML representation of a resource. Values of the wrong shape are written as they are. */
export function encodeXml(resource: ResourceName, value: unknown, arrays: XmlArrayShape = 'unwrapped', write?: ScalarWriter): string {
  const schema = resourceSchema(resource);
  const root = schema.xml?.name ?? resource;
  let inner: string;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    inner = inSchemaOrder(value as Record<string, unknown>, schema)
      .map(([key, child]) => encodeElement(key, child, schema.properties?.[key], arrays, write))
      .join('');
  } else if (Array.isArray(value)) {
    inner = value.map((item) => encodeElement('item', item, undefined, arrays, write)).join('');
  } else {
    inner = value === null || value === undefined ? '' : encodeScalar(value, write);
  }
  return `<?xml version="1.0" encoding="UTF-8"?><${root}>${inner}</${root}>`;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: true,
  isArray: () => true,
  // Never reached through decodeXml, which measures first; the parser's own bound, kept at the harness's.
  maxNestedTags: MAX_NESTING_DEPTH,
});

const attributeParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  attributesGroupName: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: true,
  maxNestedTags: MAX_NESTING_DEPTH,
});

/** The attributes of the root element (namespace declarations left out); {} when there are none or the XML is not well-formed. */
export function rootAttributes(text: string): Record<string, string> {
  try {
    const doc = attributeParser.parse(text) as Record<string, unknown>;
    const root = Object.entries(doc).find(([key]) => key !== '#text' && key !== '#comment')?.[1];
    const attrs = root !== null && typeof root === 'object' ? (root as Record<string, unknown>)['@'] : undefined;
    if (attrs === null || typeof attrs !== 'object') return {};
    return Object.fromEntries(Object.entries(attrs as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'xmlns' && !e[0].startsWith('xmlns:')).map(([k, v]) => [k, unescapeXml(v)]));
  } catch {
    return {};
  }
}

// With `isArray: () => true` every child element is a list; mixed-in text sits under '#text' as one string.
type RawElement = string | { [child: string]: RawElement[] | string | undefined };

function childEntries(element: Exclude<RawElement, string>): [string, RawElement[]][] {
  return Object.entries(element).filter((entry): entry is [string, RawElement[]] => entry[0] !== '#text' && Array.isArray(entry[1]));
}

function mixedText(element: Exclude<RawElement, string>): string {
  const text = element['#text'];
  return typeof text === 'string' ? text : '';
}

const INTEGER_TEXT = /^\s*[+-]?[0-9]+\s*$/;

/** Resolves the five predefined entities and numeric character references; entities are never expanded. */
function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g, (whole, ref: string) => {
    switch (ref) {
      case 'lt': return '<';
      case 'gt': return '>';
      case 'amp': return '&';
      case 'quot': return '"';
      case 'apos': return "'";
      default: {
        const code = ref.startsWith('#x') ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
        return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
    }
  });
}

function textOf(element: RawElement): string | null {
  if (typeof element === 'string') return unescapeXml(element);
  if (childEntries(element).length > 0) return null;
  return unescapeXml(mixedText(element));
}

function generic(element: RawElement): unknown {
  const text = textOf(element);
  if (text !== null) return text;
  const out: Record<string, unknown> = {};
  for (const [key, children] of childEntries(element as Exclude<RawElement, string>)) {
    out[key] = children.length === 1 ? generic(children[0]) : children.map(generic);
  }
  return out;
}

function fromElement(element: RawElement, raw: SchemaNode | undefined): unknown {
  if (!raw) return generic(element);
  const node = deref(raw);
  if (node.type === 'integer') {
    const text = textOf(element);
    return text !== null && INTEGER_TEXT.test(text) ? Number(text.trim()) : generic(element);
  }
  if (node.type === 'string') return generic(element);
  if (node.type === 'object') {
    if (typeof element === 'string') return element.trim() === '' ? {} : unescapeXml(element);
    if (mixedText(element).trim() !== '') return generic(element);
    const out: Record<string, unknown> = {};
    for (const [key, children] of childEntries(element)) {
      const propRaw = node.properties?.[key];
      const prop = propRaw ? deref(propRaw) : undefined;
      if (prop?.type === 'array') {
        out[key] = children.map((child) => fromElement(child, prop.items));
      } else {
        out[key] = children.length === 1 ? fromElement(children[0], propRaw) : children.map((c) => fromElement(c, propRaw));
      }
    }
    return out;
  }
  return generic(element);
}

/** A reference to an entity other than the five XML predefines and character references. */
const DECLARED_ENTITY_REFERENCE = /&(?!(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)[^\s;&<]*;/;

/**
 * Why XML with a DOCTYPE cannot be read without expanding entities, or undefined when it can: a DOCTYPE
 * that declares an entity (in its internal subset, or anywhere in the text), or text that references an
 * entity a DTD would have to declare. A DOCTYPE that only names the root (`<!DOCTYPE CsnNotification>`),
 * or declares elements, has nothing to expand: it is read, and never fetched.
 */
export function entityRefusal(text: string): string | undefined {
  if (/<!ENTITY/i.test(text)) return 'XML declaring an entity is refused (entities are never expanded)';
  if (/<!DOCTYPE/i.test(text) && DECLARED_ENTITY_REFERENCE.test(text)) return 'XML with a DOCTYPE referencing an entity it declares elsewhere is refused (entities are never expanded)';
  return undefined;
}

/**
 * Reads the XML representation of a resource (readXml). A body is read several times in a run (by the
 * reference server, then by the judge, the run-id reader and the answer's reader, and again at each size
 * a planning measures), so results are kept by text, frozen: what a caller gets is never to be changed.
 */
export function decodeXml(resource: ResourceName, text: string): DecodeResult {
  if (text.length > KEPT_TEXT_LIMIT) return readXml(resource, text);
  return decodedXml(`${resource}\u0000${text}`, () => deepFreeze(readXml(resource, text)));
}

const decodedXml = textMemo<DecodeResult>();

/**
 * Reads the XML representation of a resource. Refuses a DOCTYPE that declares or needs an entity (entities
 * are never expanded; one that declares none is read), malformed
 * XML, XML nested deeper than MAX_NESTING_DEPTH (measured before parsing: the parser and the walks below
 * recurse) and a root other than the schema's `xml.name`. Integers are read as numbers only when their text
 * is an integer; anything else stays text so that schema validation reports it.
 */
function readXml(resource: ResourceName, text: string): DecodeResult {
  if (text.trim() === '') return { ok: false, code: 'empty', error: 'empty XML body' };
  const entities = entityRefusal(text);
  if (entities) return { ok: false, code: 'doctype', error: entities };
  const valid = XMLValidator.validate(text);
  if (valid !== true) return { ok: false, code: 'malformed', error: `malformed XML: ${valid.err.msg} (line ${valid.err.line})` };
  const depth = xmlDepth(text);
  if (depth > MAX_NESTING_DEPTH) return { ok: false, code: 'too-deep', error: tooDeepText('XML', depth) };
  let doc: Record<string, RawElement[]>;
  try {
    doc = parser.parse(text) as Record<string, RawElement[]>;
  } catch (e) {
    return { ok: false, code: 'malformed', error: `malformed XML: ${(e as Error).message}` };
  }
  const roots = Object.entries(doc).filter(([key]) => key !== '#text' && key !== '#comment');
  const schema = resourceSchema(resource);
  const expected = schema.xml?.name ?? resource;
  if (roots.length !== 1 || roots[0]?.[1]?.length !== 1) return { ok: false, code: 'malformed', error: 'XML must have exactly one root element' };
  const [rootName, [rootElement]] = roots[0] as [string, [RawElement]];
  if (rootName !== expected) return { ok: false, code: 'root', error: `root element <${rootName}>, expected <${expected}>` };
  return { ok: true, value: fromElement(rootElement, schema) };
}
