/**
 * How common platforms read an integer written as text (a query parameter, a JSON string, an XML element),
 * by their default parsers (docs/readings.md, "Integers written leniently"). A spelling one of them reads as
 * the number its digits denote names that number: reading it is a reading, not a fault, and refusing it is a
 * reading too. A spelling that makes the text name another number (a fraction cut, letters dropped, a value
 * read modulo 2^32) is no such reading: lib/contract/normalisations.ts plays those as faults.
 *
 * The int32 range is checked after the parse, by the caller: each reader gives the number the text denotes.
 */

/** Blocks of decimal digits of other scripts a Unicode-aware parser takes (Unicode category Nd): their zeros. */
const DIGIT_ZEROS: readonly number[] = [0x0660, 0x06f0, 0x07c0, 0x0966, 0x09e6, 0x0a66, 0x0ae6, 0x0b66, 0x0be6, 0x0c66, 0x0ce6, 0x0d66, 0x0e50, 0x0ed0, 0x0f20, 0x1040, 0x17e0, 0x1810, 0xff10];

/** The value of a decimal digit of any script listed (ASCII included); undefined for anything else. */
export function digitValue(ch: string): number | undefined {
  const cp = ch.codePointAt(0) ?? -1;
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  const zero = DIGIT_ZEROS.find((z) => cp >= z && cp <= z + 9);
  return zero === undefined ? undefined : cp - zero;
}

/** Digits of any listed script as ASCII digits; undefined when a character is no digit. */
function asciiOf(digits: string): string | undefined {
  let out = '';
  for (const ch of digits) {
    const d = digitValue(ch);
    if (d === undefined) return undefined;
    out += String(d);
  }
  return out === '' ? undefined : out;
}

function signed(sign: string, digits: string | undefined): number | undefined {
  if (digits === undefined) return undefined;
  const n = Number(digits);
  return Number.isSafeInteger(n) ? (sign === '-' ? -n : n) : undefined;
}

export type IntegerPlatform = 'dotnet' | 'python' | 'java' | 'go';

export interface IntegerReader {
  platform: IntegerPlatform;
  /** The parser, as docs/readings.md names it. */
  parser: string;
  read(text: string): number | undefined;
}

/** Each platform's default parser of a 32-bit integer written as text. */
export const INTEGER_READERS: readonly IntegerReader[] = [
  {
    platform: 'dotnet',
    parser: '.NET int.Parse (NumberStyles.Integer)',
    read: (text) => {
      const m = /^[\t\n\v\f\r ]*([+-]?)([0-9]+)[\t\n\v\f\r ]*$/.exec(text);
      return m ? signed(m[1] ?? '', m[2]) : undefined;
    },
  },
  {
    platform: 'python',
    parser: "Python's int()",
    read: (text) => {
      // Whitespace around, a sign, digits of any script with single underscores between them ("1_000", "１０００").
      const m = /^\s*([+-]?)(\p{Nd}+(?:_\p{Nd}+)*)\s*$/u.exec(text);
      return m ? signed(m[1] ?? '', asciiOf((m[2] ?? '').replace(/_/g, ''))) : undefined;
    },
  },
  {
    platform: 'java',
    parser: "Java's Integer.parseInt",
    read: (text) => {
      // A sign and digits of any script (Character.digit), nothing around them.
      const m = /^([+-]?)(\p{Nd}+)$/u.exec(text);
      return m ? signed(m[1] ?? '', asciiOf(m[2] ?? '')) : undefined;
    },
  },
  {
    platform: 'go',
    parser: "Go's strconv.Atoi",
    read: (text) => {
      const m = /^([+-]?)([0-9]+)$/.exec(text);
      return m ? signed(m[1] ?? '', m[2]) : undefined;
    },
  },
];

export function integerReader(platform: IntegerPlatform): IntegerReader {
  const r = INTEGER_READERS.find((x) => x.platform === platform);
  if (!r) throw new Error(`Unknown integer platform ${platform}`);
  return r;
}

/**
 * The number a text names when some platform's default parser reads it as one (every reader that reads it
 * reads the same number: they differ only in the spellings they take); undefined when none does.
 */
export function integerNamedBy(text: string): number | undefined {
  for (const r of INTEGER_READERS) {
    const n = r.read(text);
    if (n !== undefined) return n;
  }
  return undefined;
}

/** Spellings of a non-negative integer that some platform reads as it and another refuses (docs/readings.md). */
export function sameNumberSpellings(n: number): Array<{ label: string; value: string; readers: IntegerPlatform[] }> {
  const digits = String(Math.abs(Math.trunc(n)));
  const sign = n < 0 ? '-' : '';
  const inBlock = (zero: number): string => sign + digits.replace(/[0-9]/g, (d) => String.fromCodePoint(zero + Number(d)));
  const out: Array<{ label: string; value: string }> = [];
  if (digits.length >= 2) {
    const at = digits.length > 3 ? digits.length - 3 : 1;
    out.push({ label: 'underscore-between-digits', value: `${sign}${digits.slice(0, at)}_${digits.slice(at)}` });
  }
  out.push({ label: 'full-width-digits', value: inBlock(0xff10) }, { label: 'arabic-indic-digits', value: inBlock(0x0660) });
  return out.map((s) => ({ ...s, readers: INTEGER_READERS.filter((r) => r.read(s.value) === n).map((r) => r.platform) }));
}
