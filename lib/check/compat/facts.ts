import { decodeJson, formatOfContentType, sniffFormat } from '../../contract/codec/index.ts';
import { decodeResponseText } from '../../run/http/text.ts';
import { xmlRoots } from '../client/xml-tree.ts';
import type { XmlElement } from '../client/xml-tree.ts';

/**
 * What a client can read of an answer, as facts two answers can be compared on: its status, its
 * Content-Type (media type and charset), the body's format, its shape (the paths of its fields and
 * elements, with their kinds; an XML namespace belongs to the shape) and its texts (the value at each path:
 * what a client may parse). Arrays are one path (`$.items[]`), whatever their length.
 */

export type BodyKind = 'json' | 'xml' | 'text' | 'html' | 'empty';

export interface AnswerFacts {
  /** False when no answer came (`error` says why). */
  answered: boolean;
  status: number | null;
  error?: string;
  /** Media type without parameters, lower case; null without a Content-Type. */
  mediaType: string | null;
  charset: string | null;
  /** How the body's bytes are text when not plain UTF-8: a byte order mark, UTF-16 (what a client's parser meets first). */
  encoding: string | null;
  format: BodyKind;
  /** The format the Content-Type names (json, xml, text, other), or null without one: what a client that dispatches on the label reads the body as. */
  declared: string | null;
  /** XML element path → its name as written (prefix:local) and its namespace ({uri}), only where the element has a prefix or a namespace: what a client reading by name meets. */
  names: Map<string, string>;
  /** Path → kind (object, array, string, number, boolean, null; element, attribute, text; xmlns=… for a namespace). */
  shape: Map<string, string>;
  /** Path → the text(s) there, in order, joined by ' ␞ '. */
  texts: Map<string, string>;
}

/** Paths kept of one body: a hostile one with thousands of fields is compared on its first ones. */
const MAX_PATHS = 2000;
const MAX_DEPTH = 32;
const MAX_TEXT = 2000;
const JOIN = ' \u241e ';

export interface RawAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  /** The bytes as they came, or the text already decoded (then `encoding` says how, when not plain UTF-8). */
  body: string | Uint8Array;
  encoding?: string;
}

function add(map: Map<string, string>, path: string, value: string): void {
  if (map.size >= MAX_PATHS && !map.has(path)) return;
  const known = map.get(path);
  map.set(path, known === undefined ? value : known.split('|').includes(value) ? known : `${known}|${value}`);
}

function addText(map: Map<string, string>, path: string, value: string): void {
  if (map.size >= MAX_PATHS && !map.has(path)) return;
  const known = map.get(path);
  const v = value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  map.set(path, known === undefined ? v : `${known}${JOIN}${v}`);
}

function walkJson(value: unknown, path: string, depth: number, shape: Map<string, string>, texts: Map<string, string>): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    add(shape, path, 'array');
    for (const item of value) walkJson(item, `${path}[]`, depth + 1, shape, texts);
    return;
  }
  if (value === null) {
    add(shape, path, 'null');
    return;
  }
  if (typeof value === 'object') {
    add(shape, path, 'object');
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) walkJson(v, `${path}.${k}`, depth + 1, shape, texts);
    return;
  }
  add(shape, path, typeof value);
  addText(texts, path, typeof value === 'string' ? value : JSON.stringify(value) ?? '');
}

const local = (name: string): string => name.slice(name.indexOf(':') + 1);

/** The namespaces in scope, by prefix ('' for the default one). */
type Scope = ReadonlyMap<string, string>;

function walkXml(node: XmlElement, path: string, depth: number, shape: Map<string, string>, texts: Map<string, string>, names: Map<string, string>, outer: Scope = new Map()): void {
  if (depth > MAX_DEPTH) return;
  const here = `${path}/${local(node.name)}`;
  add(shape, here, 'element');
  let scope = outer;
  for (const [name, value] of Object.entries(node.attributes)) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) scope = new Map([...scope, [name === 'xmlns' ? '' : name.slice(6), value]]);
  }
  // Paths go by local name; the name as written and its namespace are facts of their own: `<a:runId>` is
  // another element than `<runId>` to a client that reads by name (a namespace-aware one, or one reading text).
  const colon = node.name.indexOf(':');
  const prefix = colon < 0 ? '' : node.name.slice(0, colon);
  const uri = scope.get(prefix) ?? '';
  if (prefix !== '' || uri !== '') {
    const written = `${node.name}${uri !== '' ? ` {${uri}}` : ''}`;
    const known = names.get(here);
    if (known === undefined) {
      if (names.size < MAX_PATHS) names.set(here, written);
    } else if (!known.split(' | ').includes(written)) names.set(here, `${known} | ${written}`);
  }
  for (const [name, value] of Object.entries(node.attributes)) {
    // A namespace is part of the shape: a client reading by qualified name meets another element.
    if (name === 'xmlns' || name.startsWith('xmlns:')) add(shape, `${here}@${name}`, `ns ${value}`);
    else {
      add(shape, `${here}/@${local(name)}`, 'attribute');
      addText(texts, `${here}/@${local(name)}`, value);
    }
  }
  const own = node.text.trim();
  if (own !== '') {
    add(shape, `${here}/text()`, 'text');
    addText(texts, here, own);
  }
  for (const child of node.children) walkXml(child, here, depth + 1, shape, texts, names, scope);
}

function parameterOf(contentType: string, name: string): string | null {
  const m = new RegExp(`;\\s*${name}\\s*=\\s*"?([^";\\s]+)"?`, 'i').exec(contentType);
  return m?.[1]?.toLowerCase() ?? null;
}

/** No answer: the client met none (a reset, a timeout). */
export function noAnswer(error: string): AnswerFacts {
  return { answered: false, status: null, error, mediaType: null, charset: null, encoding: null, format: 'empty', declared: null, names: new Map(), shape: new Map(), texts: new Map() };
}

/** The facts of one answer. */
export function answerFacts(answer: RawAnswer): AnswerFacts {
  const contentType = answer.headers['content-type'];
  const mediaType = contentType === undefined ? null : (contentType.split(';')[0] ?? '').trim().toLowerCase() || null;
  const charset = contentType === undefined ? null : parameterOf(contentType, 'charset');
  const decoded = typeof answer.body === 'string' ? { text: answer.body, encoding: answer.encoding } : decodeResponseText(answer.body, contentType);
  const text = decoded.text;
  const declared = formatOfContentType(contentType);
  const facts: AnswerFacts = { answered: true, status: answer.status, mediaType, charset, encoding: decoded.encoding ?? null, format: 'empty', declared: declared ?? null, names: new Map(), shape: new Map(), texts: new Map() };
  if (text.trim() === '') return facts;
  const html = mediaType === 'text/html' || /^\s*<(?:!doctype\s+html|html[\s>])/i.test(text);
  const format = html ? undefined : declared === 'json' || declared === 'xml' ? declared : sniffFormat(text);
  if (format === 'json') {
    const decoded = decodeJson(text.replace(/^\uFEFF/, ''));
    if (decoded.ok) {
      facts.format = 'json';
      walkJson(decoded.value, '$', 0, facts.shape, facts.texts);
      return facts;
    }
  }
  if (format === 'xml') {
    const roots = xmlRoots(text.replace(/^\uFEFF/, ''));
    if (roots.length === 1 && roots[0]) {
      facts.format = 'xml';
      walkXml(roots[0], '', 0, facts.shape, facts.texts, facts.names);
      return facts;
    }
  }
  facts.format = html ? 'html' : 'text';
  facts.shape.set('$body', 'text');
  addText(facts.texts, '$body', text.trim());
  return facts;
}
