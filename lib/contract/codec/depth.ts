/**
 * How deep a JSON or XML text nests, measured by one linear scan of the text that never recurses and
 * builds nothing, so that a hostile answer millions of levels deep costs a few milliseconds and no stack.
 * Each decoder, and the HTTP client before it, measures first and refuses what is deeper than
 * MAX_NESTING_DEPTH (lib/config/limits.ts) before anything walks it.
 *
 * The scans are upper bounds for text that does not parse (a reader refuses that text anyway) and exact
 * for text that does: JSON brackets inside strings and escaped quotes are skipped; XML comments, CDATA
 * sections, processing instructions, declarations and `>` inside attribute values are skipped, and an
 * empty-element tag (`<a/>`) is an element that closes at once.
 */
import { MAX_NESTING_DEPTH } from '../../config/limits.ts';

/** What the decoders and the HTTP client (TOO_DEEP) say of a text nested deeper than MAX_NESTING_DEPTH. */
export function tooDeepText(format: 'JSON' | 'XML', depth: number): string {
  return `${format} nested ${depth} levels deep, over the limit of ${MAX_NESTING_DEPTH} levels: not decoded`;
}

/** The deepest nesting of arrays and objects: `1` → 0, `[]` → 1, `{"a":[{}]}` → 3. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) max = depth;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth -= 1;
  }
  return max;
}

/** Can this character start an XML name (a letter, `_`, `:` or any non-ASCII character)? */
function startsName(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x3a || c > 0x7f;
}

/** Index of the `>` that ends a tag begun before `from`, skipping quoted attribute values; -1 when it never ends. */
function endOfTag(text: string, from: number): number {
  for (let i = from; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x3e) return i;
    if (c === 0x22 || c === 0x27) {
      const close = text.indexOf(c === 0x22 ? '"' : "'", i + 1);
      if (close < 0) return -1;
      i = close;
    }
  }
  return -1;
}

/** Index of the `>` that ends a declaration (`<!DOCTYPE x [ … ]>`), its internal subset and quoted strings skipped; -1 when it never ends. */
function endOfDeclaration(text: string, from: number): number {
  let subset = 0;
  for (let i = from; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x5b) subset += 1;
    else if (c === 0x5d && subset > 0) subset -= 1;
    else if (c === 0x3e && subset === 0) return i;
    else if (c === 0x22 || c === 0x27) {
      const close = text.indexOf(c === 0x22 ? '"' : "'", i + 1);
      if (close < 0) return -1;
      i = close;
    }
  }
  return -1;
}

/** Index of the last character of the first `needle` at or after `from`; -1 when there is none. */
function lastOf(text: string, needle: string, from: number): number {
  const at = text.indexOf(needle, from);
  return at < 0 ? -1 : at + needle.length - 1;
}

/** The deepest nesting of elements: `<a/>` → 1, `<a><b>x</b></a>` → 2, text alone → 0. */
export function xmlDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt < 0) break;
    let end: number;
    let opens = false;
    let empty = false;
    const next = text.charCodeAt(lt + 1);
    if (next === 0x21) {
      if (text.startsWith('<!--', lt)) end = lastOf(text, '-->', lt + 4);
      else if (text.startsWith('<![CDATA[', lt)) end = lastOf(text, ']]>', lt + 9);
      else end = endOfDeclaration(text, lt + 2);
    } else if (next === 0x3f) end = lastOf(text, '?>', lt + 2);
    else if (next === 0x2f) {
      end = text.indexOf('>', lt + 2);
      if (end >= 0 && depth > 0) depth -= 1;
    } else if (startsName(next)) {
      end = endOfTag(text, lt + 1);
      empty = end >= 0 && text.charCodeAt(end - 1) === 0x2f;
      opens = end >= 0 && !empty;
    } else {
      i = lt + 1; // a '<' that starts no markup: text (a reader refuses it)
      continue;
    }
    if (end < 0) break; // markup that never ends: nothing after it nests
    if (opens) depth += 1;
    // An empty-element tag is an element one level down that closes at once.
    if (opens || empty) max = Math.max(max, opens ? depth : depth + 1);
    i = end + 1;
  }
  return max;
}
