import type { ResourceName } from '../json-schema.ts';
import type { Format } from './index.ts';
import { encodeJson } from './json.ts';
import { encodeXml } from './xml.ts';

/**
 * Other spellings of a valid request (issue 38): the same value written another way by the codecs. A
 * `gated` spelling is one every reader of its format takes alike, by the format's own definition (XML 1.0,
 * RFC 8259, RFC 3986, RFC 9110): a server must answer it as it answers the plain spelling. The others are
 * read differently by careful readers (a byte order mark, a member given twice): what a server does with
 * them is recorded. docs/readings.md gives the decision for each, and the spellings not sent at all.
 */

/** What each spelling is, whether every reader takes it alike, and the rule that says so: the one table. */
const SPELLING_TEXT = {
  'xml-cdata': { label: 'every text in a CDATA section', gated: true, rule: 'a CDATA section is character data like any other text (XML 1.0 §2.7)' },
  'xml-char-refs': { label: 'every character as a character reference', gated: true, rule: 'a character reference stands for its character (XML 1.0 §4.1)' },
  'xml-comments': { label: 'a comment between every two tags', gated: true, rule: "comments are not part of the document's character data (XML 1.0 §2.5)" },
  'xml-declaration': { label: 'the XML declaration in single quotes, its encoding in lower case, standalone', gated: true, rule: "the declaration's quotes are free and encoding names are compared without case (XML 1.0 §2.8, §4.3.3)" },
  'xml-bom': { label: 'a byte order mark first', gated: false, rule: 'XML 1.0 §4.3.3 lets a UTF-8 entity begin with a byte order mark, but a server that decodes the body to text before parsing it may keep the mark and refuse it' },
  'json-escapes': { label: 'every character of every string as a \\u escape', gated: true, rule: 'a \\u escape stands for its character (RFC 8259 §7)' },
  'json-member-order': { label: 'the members of every object in reverse order', gated: true, rule: 'an object is an unordered collection of members (RFC 8259 §4)' },
  'json-whitespace': { label: 'tabs, CR LF and spaces around every token', gated: true, rule: 'whitespace is allowed before or after any token (RFC 8259 §2)' },
  'json-bom': { label: 'a byte order mark first', gated: false, rule: 'RFC 8259 §8.1: a parser may ignore a byte order mark rather than refuse it' },
  'json-duplicate-member': { label: 'a member given twice with one value', gated: false, rule: 'RFC 8259 §4: names within an object SHOULD be unique; readers of a name given twice differ (the last, the first, or a refusal)' },
  'query-percent-encoded': { label: 'every character of every query value percent-encoded', gated: true, rule: 'a percent-encoded unreserved character is the character itself (RFC 3986 §2.3, §6.2.2.2), and query values are read percent-decoded' },
  'query-order': { label: 'the query parameters in reverse order', gated: true, rule: 'parameters are named, and the document gives them no order (section 4)' },
  'key-header-lower': { label: 'the key header named in lower case', gated: true, rule: 'header field names are case-insensitive (RFC 9110 §5.1), and HTTP/2 clients send them in lower case' },
} as const satisfies Record<string, { label: string; gated: boolean; rule: string }>;

export type SpellingId = keyof typeof SPELLING_TEXT;
export type BodySpellingId = Extract<SpellingId, `xml-${string}` | `json-${string}`>;
export type QuerySpellingId = Extract<SpellingId, `query-${string}`>;
/** The spellings every reader takes alike: what a server must answer as it answers the plain spelling. */
export type GatedSpellingId = { [K in SpellingId]: (typeof SPELLING_TEXT)[K]['gated'] extends true ? K : never }[SpellingId];
export const GATED_SPELLINGS = (Object.keys(SPELLING_TEXT) as SpellingId[]).filter((id): id is GatedSpellingId => SPELLING_TEXT[id].gated);

export interface Spelling<Id extends SpellingId = SpellingId> {
  id: Id;
  /** What is spelled otherwise, for labels: "every text in a CDATA section". */
  label: string;
  /** Every reader of the format takes it alike (gated), or readers differ (recorded). */
  gated: boolean;
  /** Why, for the check's `because`: the rule of the format that makes the two spellings one. */
  rule: string;
}

export function spelling<Id extends SpellingId>(id: Id): Spelling<Id> {
  return { id, ...SPELLING_TEXT[id] };
}

export interface BodySpelling extends Spelling<BodySpellingId> {
  body: string;
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';
const COMMENT = '<!-- iswc-conformance -->';

/** Every text of an XML body in a CDATA section (a `]]>` inside a text split across two). */
export function cdata(text: string): string {
  return `<![CDATA[${text.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

/** Every character of a text as a character reference, decimal and hexadecimal in turn. */
export function characterReferences(text: string): string {
  return [...text].map((c, i) => (i % 2 === 0 ? `&#${c.codePointAt(0) ?? 0};` : `&#x${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()};`)).join('');
}

/** Every character of a JSON string as a \u escape (a character beyond the BMP as its surrogate pair). */
function jsonEscaped(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) out += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return `${out}"`;
}

/** JSON text of a value with every string written through `string`, members in `order`, `gap` after every comma and colon. */
function writeJson(value: unknown, string: (text: string) => string, order: <T>(entries: T[]) => T[], gap = ''): string {
  if (typeof value === 'string') return string(value);
  if (Array.isArray(value)) return `[${value.map((v) => writeJson(v, string, order, gap)).join(`,${gap}`)}]`;
  if (value !== null && typeof value === 'object') {
    return `{${order(Object.entries(value)).map(([k, v]) => `${JSON.stringify(k)}:${gap}${writeJson(v, string, order, gap)}`).join(`,${gap}`)}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const asIs = <T>(entries: T[]): T[] => entries;
const reversed = <T>(entries: T[]): T[] => [...entries].reverse();

/** The other spellings of a valid body of `resource`, in `format`. */
export function bodySpellings(format: Format, resource: ResourceName, value: unknown): BodySpelling[] {
  if (format === 'xml') {
    const plain = encodeXml(resource, value);
    if (!plain.startsWith(DECLARATION)) throw new Error(`the XML codec no longer starts a body with ${DECLARATION}`);
    return [
      { ...spelling('xml-cdata'), body: encodeXml(resource, value, 'unwrapped', cdata) },
      { ...spelling('xml-char-refs'), body: encodeXml(resource, value, 'unwrapped', characterReferences) },
      { ...spelling('xml-comments'), body: plain.replace(/></g, `>${COMMENT}<`) },
      { ...spelling('xml-declaration'), body: plain.replace(DECLARATION, "<?xml version='1.0' encoding='utf-8' standalone='yes'?>") },
      { ...spelling('xml-bom'), body: `\uFEFF${plain}` },
    ];
  }
  const plain = encodeJson(value);
  const firstString = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value as Record<string, unknown>).find((e): e is [string, string] => typeof e[1] === 'string') : undefined;
  const spellings: BodySpelling[] = [
    { ...spelling('json-escapes'), body: writeJson(value, jsonEscaped, asIs) },
    { ...spelling('json-member-order'), body: writeJson(value, (t) => JSON.stringify(t), reversed) },
    { ...spelling('json-whitespace'), body: ` \r\n${JSON.stringify(value, null, '\t').replace(/\n/g, '\r\n')}\r\n ` },
    { ...spelling('json-bom'), body: `\uFEFF${plain}` },
  ];
  if (firstString) {
    const [name, v] = firstString;
    const member = `${JSON.stringify(name)}:${JSON.stringify(v)}`;
    spellings.push({ ...spelling('json-duplicate-member'), label: `the member ${name} given twice with one value`, body: plain.replace(member, `${member},${member}`) });
  }
  return spellings;
}

/** The part of a spelling case that sends its request spelled every gated way at once (what breadth takes of it). */
export const ALL_AT_ONCE_PART = 'all-at-once';

/**
 * The body spelled every way of `bodySpellings` that every reader takes alike, all at once: what a budget
 * sends first, since a server that refuses any one of them refuses it (the spellings alone say which).
 * In XML the texts alternate between a CDATA section and character references (a text cannot be both).
 */
export function bodyAllAtOnce(format: Format, resource: ResourceName, value: unknown): string {
  if (format === 'xml') {
    let texts = 0;
    const alternate = (text: string): string => ((texts += 1) % 2 === 1 ? cdata(text) : characterReferences(text));
    return encodeXml(resource, value, 'unwrapped', alternate)
      .replace(/></g, `>${COMMENT}<`)
      .replace(DECLARATION, "<?xml version='1.0' encoding='utf-8' standalone='yes'?>");
  }
  return ` \r\n${writeJson(value, jsonEscaped, reversed, '\r\n\t')}\r\n `;
}

/** The query in reverse order with every character percent-encoded: both query spellings at once. */
export function queryAllAtOnce(query: ReadonlyArray<readonly [string, string]>): string {
  return [...query].reverse().map(([k, v]) => `${encodeURIComponent(k)}=${percentEncodedAll(v)}`).join('&');
}

/** Every byte of a text percent-encoded, unreserved characters included (RFC 3986 §2.1, §6.2.2.2). */
export function percentEncodedAll(text: string): string {
  return [...new TextEncoder().encode(text)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

export interface QuerySpelling extends Spelling<QuerySpellingId> {
  rawQuery: string;
}

/** The other spellings of a query string given as its parameters in order. */
export function querySpellings(query: ReadonlyArray<readonly [string, string]>): QuerySpelling[] {
  const pairs = (list: ReadonlyArray<readonly [string, string]>, value: (v: string) => string) => list.map(([k, v]) => `${encodeURIComponent(k)}=${value(v)}`).join('&');
  const out: QuerySpelling[] = [
    { ...spelling('query-percent-encoded'), rawQuery: pairs(query, percentEncodedAll) },
  ];
  if (query.length > 1) out.push({ ...spelling('query-order'), rawQuery: pairs([...query].reverse(), encodeURIComponent) });
  return out;
}

export const KEY_HEADER_LOWER = spelling('key-header-lower');
