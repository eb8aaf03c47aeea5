import fc from 'fast-check';

/**
 * One code point at a time, from the families that break naive handling of text: plain ASCII, astral
 * characters (2 UTF-16 units), combining marks (compose under NFC), right-to-left text and marks,
 * full-width digits, CJK. With `xml: false`, NUL and other control characters too (JSON can carry
 * them; XML 1.0 cannot). The readings of "characters" count such strings differently, so what they get
 * is only observed.
 */
export function codePointUnit(options: { xml: boolean }): fc.Arbitrary<string> {
  const families: Array<fc.WeightedArbitrary<string>> = [
    { weight: 8, arbitrary: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_ ./'.split('')) },
    { weight: 2, arbitrary: fc.constantFrom('\u{1F600}', '\u{1D11E}', '\u{20000}', '\u{1F3B5}') },
    { weight: 2, arbitrary: fc.constantFrom('\u0301', '\u0308', '\u0327', '\u20DD') },
    { weight: 1, arbitrary: fc.constantFrom('\u05D0', '\u0627', '\u202E', '\u200F') },
    { weight: 1, arbitrary: fc.constantFrom('\uFF10', '\uFF11', '\uFF19') },
    { weight: 1, arbitrary: fc.constantFrom('\u6F22', '\u97F3', 'é', 'ß', '&', '<', '"', "'", '%', '+') },
  ];
  if (!options.xml) families.push({ weight: 1, arbitrary: fc.constantFrom('\u0000', '\u0007', '\u001F') });
  return fc.oneof(...families);
}

/**
 * A string of `min..max` code points drawn from the units above. For XML, edge whitespace becomes 'X':
 * many XML binders trim text, and a value's meaning must not rest on that.
 */
export function codePointString(min: number, max: number, options: { xml: boolean }): fc.Arbitrary<string> {
  const text = fc.string({ unit: codePointUnit(options), minLength: min, maxLength: max });
  return options.xml ? text.map((s) => s.replace(/^\s/u, 'X').replace(/\s$/u, 'X')) : text;
}

/** What real agency work codes are made of: upper-case ASCII letters and digits. */
export const WORK_CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** What realistic free text is made of: ASCII letters, digits and a few separators, never at an edge. */
export const TEXT_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-_/';

/**
 * A realistic string of `min..max` characters from an ASCII alphabet: every reading of "characters"
 * (code points, UTF-16 units, grapheme clusters, bytes) counts it alike, and no server has a reason to
 * refuse its content.
 */
export function realisticString(min: number, max: number, alphabet = TEXT_ALPHABET): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...alphabet.split('')), minLength: min, maxLength: max });
}
