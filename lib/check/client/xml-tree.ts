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

/** A name of the plain subset: ASCII letters, digits, `_`, `-`, `.`, one optional prefix. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9._-]*(?::[A-Za-z_][A-Za-z0-9._-]*)?$/;
/** An `&` that does not start a predefined entity or a character reference. */
const LOOSE_AMPERSAND = /&(?!(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)/;
/** Characters XML 1.0 does not allow at all (controls, U+FFFE/U+FFFF, lone surrogates). */
const NOT_XML_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const PLAIN_TOKEN = /<!--([\s\S]*?)-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?([A-Za-z_][\w.-]*)(?:\s[^?]*)?\?>|<\/([^\s>]+)\s*>|<([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>|([^<]+)/y;
const PLAIN_ATTRIBUTE = /\s+([^\s=/>]+)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/g;

/**
 * Is this text, beyond doubt, well-formed XML of the plain kind clients write (no DOCTYPE, simple ASCII
 * names, balanced tags, one root, references that resolve)? A fast path only: false means "not shown
 * here", and the caller asks the full validator. It never says true of text that is not well-formed.
 */
export function plainWellFormed(text: string): boolean {
  // Character references may name characters XML forbids: left to the validator.
  if (NOT_XML_CHAR.test(text) || text.includes('&#')) return false;
  const stack: string[] = [];
  let roots = 0;
  PLAIN_TOKEN.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    PLAIN_TOKEN.lastIndex = at;
    const m = PLAIN_TOKEN.exec(text);
    if (!m) return false;
    at = PLAIN_TOKEN.lastIndex;
    const [token, comment, piTarget, close, open, attributes, selfClosing, chars] = m;
    if (comment !== undefined) {
      if (comment.includes('--') || comment.endsWith('-')) return false;
    } else if (piTarget !== undefined) {
      // The XML declaration only at the very start; other targets must not be named xml.
      if (piTarget.toLowerCase() === 'xml' && (m.index !== 0 || piTarget !== 'xml')) return false;
    } else if (close !== undefined) {
      if (stack.pop() !== close) return false;
    } else if (open !== undefined) {
      if (!PLAIN_NAME.test(open)) return false;
      if (stack.length === 0 && (roots += 1) > 1) return false;
      if (attributes && !plainAttributes(attributes)) return false;
      if (selfClosing !== '/') stack.push(open);
    } else if (chars !== undefined) {
      if (stack.length === 0 ? chars.trim() !== '' : LOOSE_AMPERSAND.test(chars) || chars.includes(']]>')) return false;
    } else if (stack.length === 0 && token.startsWith('<![CDATA[')) {
      return false;
    }
  }
  return roots === 1 && stack.length === 0;
}

function plainAttributes(source: string): boolean {
  const seen = new Set<string>();
  for (const m of source.matchAll(PLAIN_ATTRIBUTE)) {
    const name = m[1] ?? '';
    if (!PLAIN_NAME.test(name) || seen.has(name) || LOOSE_AMPERSAND.test(m[2] ?? m[3] ?? '')) return false;
    seen.add(name);
  }
  return true;
}
