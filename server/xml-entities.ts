/**
 * For the fault `xml-entities-expanded` only: a deliberately naive DOCTYPE handler that expands internal
 * general entities (`<!ENTITY name "value">`) one level deep, as a careless XML stack would. It is
 * bounded so that the reference server itself never suffers from what it imitates: external entities
 * are never fetched, entity values are not expanded again, and the result is capped.
 */

export const EXPANSION_CAP_BYTES = 64 * 1024;

const DOCTYPE = /<!DOCTYPE\s+[^\s[>]+(?:\s+(?:SYSTEM|PUBLIC)(?:\s+(?:"[^"]*"|'[^']*')){1,2})?\s*(?:\[([\s\S]*?)\])?\s*>/i;
const ENTITY = /<!ENTITY\s+([A-Za-z_][\w.-]*)\s+(?:"([^"]*)"|'([^']*)')\s*>/g;
const REFERENCE = /&([A-Za-z_][\w.-]*);/g;

export type Expansion = { ok: true; text: string } | { ok: false; error: string };

export function expandInternalEntities(xml: string, capBytes = EXPANSION_CAP_BYTES): Expansion {
  const doctype = DOCTYPE.exec(xml);
  if (!doctype) return { ok: true, text: xml };
  const entities = new Map<string, string>();
  for (const m of (doctype[1] ?? '').matchAll(ENTITY)) {
    const name = m[1] ?? '';
    if (!entities.has(name)) entities.set(name, m[2] ?? m[3] ?? '');
  }
  const rest = xml.slice(0, doctype.index) + xml.slice(doctype.index + doctype[0].length);
  let out = '';
  let last = 0;
  for (const m of rest.matchAll(REFERENCE)) {
    const value = entities.get(m[1] ?? '');
    if (value === undefined) continue;
    out += rest.slice(last, m.index) + value;
    last = m.index + m[0].length;
    if (out.length > capBytes) return { ok: false, error: 'entity expansion exceeds the cap' };
  }
  out += rest.slice(last);
  if (Buffer.byteLength(out, 'utf8') > capBytes) return { ok: false, error: 'entity expansion exceeds the cap' };
  return { ok: true, text: out };
}
