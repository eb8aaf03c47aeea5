import type { IncomingMessage } from 'node:http';
import type { GatedSpellingId } from '../lib/contract/codec/spellings.ts';
import { GATED_SPELLINGS, spelling } from '../lib/contract/codec/spellings.ts';
import { resourceSchema } from '../lib/contract/constraints.ts';
import type { ResourceName } from '../lib/contract/json-schema.ts';
import type { Operation } from '../lib/contract/operations.ts';
import { subscriptionKeyHeader } from '../lib/contract/openapi.ts';

/**
 * The spelling family (issue 38), derived from the spellings every reader takes alike
 * (lib/contract/codec/spellings.ts): for each, a server that refuses a request spelled so, as a reader
 * written to one spelling does (a pattern on the XML declaration, a JSON reader that knows no \u escape, a
 * query read by position, a header looked up by its exact name). Each answers 400 (the key header: 401, as
 * if the key were missing); everything else stays correct. A spelling added to the table without a way to
 * tell it here fails the type check.
 */

export type SpellingFaultId = `spelling.${GatedSpellingId}`;

const SECTION: Record<GatedSpellingId, string> = {
  'xml-cdata': '2.1, 2.3',
  'xml-char-refs': '2.1, 2.3',
  'xml-comments': '2.1, 2.3',
  'xml-declaration': '2.1, 2.3',
  'json-escapes': '2.1, 2.3',
  'json-member-order': '2.1, 2.3',
  'json-whitespace': '2.1, 2.3',
  'query-percent-encoded': '4.2-4.4',
  'query-order': '4.2-4.4',
  'key-header-lower': '5',
};

const ANSWER: Record<GatedSpellingId, string> = {
  'xml-cdata': 'an XML body with a CDATA section is answered 400',
  'xml-char-refs': 'character references of an XML body are left unread (taken as text), so a value spelled with them is refused (400)',
  'xml-comments': 'an XML body with a comment is answered 400',
  'xml-declaration': 'an XML declaration other than `<?xml version="1.0" encoding="UTF-8"?>` (single quotes, `utf-8`, standalone) is answered 400',
  'json-escapes': '\\u escapes of a JSON body are left unread (taken as text), so a value spelled with them is refused (400)',
  'json-member-order': 'a JSON body whose members are not in the document\'s order is answered 400',
  'json-whitespace': 'a JSON body with a tab or a carriage return between tokens is answered 400',
  'query-percent-encoded': 'query values are read without percent-decoding, so a value with a percent-encoded letter or digit is refused (400)',
  'query-order': 'query parameters out of the document\'s order are answered 400',
  'key-header-lower': `the key header is looked up by its exact name: named in lower case, the key counts as missing (401)`,
};

export const SPELLING_FAULTS = GATED_SPELLINGS.map((id) => ({
  id: `spelling.${id}` satisfies SpellingFaultId,
  level: 'spec' as const,
  section: SECTION[id],
  description: `A request spelled with ${spelling(id).label} is refused, though ${spelling(id).rule}: ${ANSWER[id]}.`,
}));

type Has = (id: SpellingFaultId) => boolean;

const PLAIN_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** The body as a server with one of the body spelling faults reads it: null when it refuses it outright. */
export function bodyAsMisread(has: Has, format: 'json' | 'xml', resource: ResourceName, text: string): string | null {
  if (format === 'xml') {
    if (has('spelling.xml-cdata') && text.includes('<![CDATA[')) return null;
    if (has('spelling.xml-comments') && text.includes('<!--')) return null;
    if (has('spelling.xml-declaration') && /^\s*<\?xml\s/.test(text) && !text.trimStart().startsWith(PLAIN_DECLARATION)) return null;
    return has('spelling.xml-char-refs') ? text.replace(/&#/g, '&amp;#') : text;
  }
  if (has('spelling.json-whitespace') && /[\t\r]/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) return null;
  if (has('spelling.json-member-order') && !inDocumentOrder(resource, text)) return null;
  return has('spelling.json-escapes') ? text.replace(/\\u/g, '\\\\u') : text;
}

/** Are the top-level members of a JSON object in the order the document lists its fields? */
function inDocumentOrder(resource: ResourceName, text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return true;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return true;
  const order = Object.keys(resourceSchema(resource).properties ?? {});
  const ranks = Object.keys(value).map((k) => order.indexOf(k)).filter((r) => r >= 0);
  return ranks.every((r, i) => i === 0 || r > (ranks[i - 1] ?? -1));
}

const UNRESERVED_ENCODED = /%(?:3[0-9]|4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|2D|2E|5F|7E)/i;

/** Why a server with a query spelling fault refuses a query string, if it does. */
export function querySpellingRefused(has: Has, op: Operation, rawQuery: string): string | undefined {
  if (has('spelling.query-percent-encoded') && UNRESERVED_ENCODED.test(rawQuery)) return 'a query value with a percent-encoded letter or digit is read as it is, and does not match';
  if (has('spelling.query-order')) {
    const order = op.params.map((p) => p.name);
    const ranks = rawQuery.split('&').map((pair) => order.indexOf(decodeURIComponent(pair.split('=')[0] ?? ''))).filter((r) => r >= 0);
    if (!ranks.every((r, i) => i === 0 || r > (ranks[i - 1] ?? -1))) return 'the query parameters are read in the document\'s order';
  }
  return undefined;
}

/**
 * Fault `spelling.key-header-lower`: the key header looked up by the exact name the document gives it
 * (`Ocp-Apim-Subscription-Key`); the same name in other letters is no header.
 */
export function keyHeaderMissed(has: Has, req: Pick<IncomingMessage, 'rawHeaders'>): boolean {
  if (!has('spelling.key-header-lower')) return false;
  const documented = subscriptionKeyHeader();
  const names = req.rawHeaders.filter((_, i) => i % 2 === 0);
  return !names.includes(documented) && names.some((n) => n.toLowerCase() === documented.toLowerCase());
}
