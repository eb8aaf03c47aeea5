import fc from 'fast-check';

/**
 * One code point at a time, from the families that break naive handling of text: plain ASCII, astral
 * characters (2 UTF-16 units), combining marks (compose under NFC), right-to-left text and marks,
 * full-width digits, CJK. With `xml: false`, NUL and other control characters too (JSON can carry
 * them; XML 1.0 cannot). Strings built from these units have lengths counted in code points.
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
