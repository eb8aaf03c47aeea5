/**
 * Escaping for the text writers. Everything a server sent is hostile input: it may hold markup, control
 * bytes, lone surrogates or characters XML cannot carry at all.
 */

/** HTML text and attribute values: the five special characters. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * Characters XML 1.0 cannot carry (C0 controls other than tab/newline/CR, lone surrogates, U+FFFE/U+FFFF)
 * become a visible `\uXXXX` text, so a hostile body can neither break the document nor vanish silently.
 */
export function xmlSafeChars(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** XML element text. */
export function escapeXmlText(s: string): string {
  return xmlSafeChars(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** XML attribute value (double-quoted); line breaks and tabs survive attribute normalisation as references. */
export function escapeXmlAttr(s: string): string {
  return escapeXmlText(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

/** Cuts a long text for display, saying how much was left out. */
export function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… [${s.length - max} more characters in conformance.json]`;
}
