/**
 * Response bytes as text. A JSON or XML answer may legitimately come in UTF-16 (XML 1.0 §4.3.3, with a
 * byte order mark) or with a UTF-8 byte order mark (RFC 8259 §8.1 lets parsers ignore it), so the text is
 * decoded by the byte order mark first, then by the charset of Content-Type, else as UTF-8; a byte order
 * mark is dropped. `encoding` names what was used when it is not plain UTF-8, for the observed record.
 */
export interface DecodedText {
  text: string;
  /** Set when the bytes were not plain UTF-8 without a byte order mark, e.g. 'utf-16le (byte order mark)'. */
  encoding?: string;
}

function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m?.[1]?.toLowerCase();
}

function decoderFor(label: string): TextDecoder | undefined {
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

export function decodeResponseText(bytes: Uint8Array, contentType: string | undefined): DecodedText {
  const [b0, b1, b2] = [bytes[0], bytes[1], bytes[2]];
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8 (byte order mark)' };
  if (b0 === 0xff && b1 === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le (byte order mark)' };
  if (b0 === 0xfe && b1 === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be (byte order mark)' };
  const charset = charsetOf(contentType);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    const decoder = decoderFor(charset);
    if (decoder !== undefined && decoder.encoding !== 'utf-8') return { text: decoder.decode(bytes), encoding: decoder.encoding };
  }
  return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') };
}
