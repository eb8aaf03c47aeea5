/**
 * A small tree of a well-formed XML document, for the client checks: elements with their attributes, their
 * child elements and their own text (entity references and CDATA read; comments, processing instructions
 * and a DOCTYPE left aside; entities never expanded). It does not judge well-formedness: the caller
 * runs fast-xml-parser's validator first, and builds the tree only for text it accepted (several times
 * cheaper than a general parser, and on every XML request the sandbox judges).
 */

export interface XmlElement {
  /** The qualified name as written (`x:AgentRun`). */
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own character data (not its children's), references resolved. */
  text: string;
}

const TOKEN = /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<\?[\s\S]*?\?>|<!DOCTYPE[^[>]*(?:\[[\s\S]*?\])?\s*>|<\/[^>]*>|<([^\s/>!?]+)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>|([^<]+)/gi;
const ATTRIBUTE = /([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** Resolves the five predefined entities and numeric character references; other references stay as written. */
export function unescapeXml(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g, (whole, ref: string) => {
    if (ref === 'lt') return '<';
    if (ref === 'gt') return '>';
    if (ref === 'amp') return '&';
    if (ref === 'quot') return '"';
    if (ref === 'apos') return "'";
    const code = ref.startsWith('#x') ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function attributesOf(source: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (source.trim() === '') return out;
  for (const m of source.matchAll(ATTRIBUTE)) out[m[1] ?? ''] = unescapeXml(m[2] ?? m[3] ?? '');
  return out;
}

/** The root elements of a well-formed document (one, for a well-formed one). */
export function xmlRoots(text: string): XmlElement[] {
  const roots: XmlElement[] = [];
  const stack: XmlElement[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    const token = m[0];
    const top = stack[stack.length - 1];
    // Groups: 1 CDATA, 2 an element's name, 3 its attributes, 4 `/` when it closes itself, 5 text.
    if (m[5] !== undefined) {
      if (top) top.text += unescapeXml(m[5]);
    } else if (m[1] !== undefined) {
      if (top) top.text += m[1];
    } else if (m[2] !== undefined) {
      const element: XmlElement = { name: m[2], attributes: attributesOf(m[3] ?? ''), children: [], text: '' };
      if (top) top.children.push(element);
      else roots.push(element);
      if (m[4] !== '/') stack.push(element);
    } else if (token.startsWith('</')) {
      stack.pop();
    }
  }
  return roots;
}
