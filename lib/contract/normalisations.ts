import type { FieldConstraint } from './constraints.ts';
import { constraintSchema, namesData } from './constraints.ts';
import { validateNode } from './validators.ts';
import { hasValidCheckDigit, withCheckDigitRecomputed, withInvalidCheckDigit } from './iswc.ts';

/**
 * How a lenient server reads a value before it checks it and looks data up: the plausible normalisations
 * of issue 28 (truncation to a column, trimming, case folding, zero padding, stripping separators, digits of
 * other scripts, an unanchored pattern match, prefix and LIKE matching, and lenient integer parsing), and a
 * value read up to a delimiter (issue 38). Each is
 * derived from a field's constraint in `schemas/` (which normalisations apply, to what length), never from a
 * field's name.
 *
 * Two parts use it: the harness builds near neighbours of a value the target holds and keeps each one only
 * when a normalisation really lands it on that value (lib/generate/neighbours.ts), and the reference server
 * plays a lenient server as a fault of its catalogue (server/lenient.ts). A normalisation has variants (the
 * ways real readers do it: trimming both ends, the start or the end); the server plays the first, the harness
 * covers them all, so that a server doing any of them lands on data that exists.
 */

export type NormalisationId =
  | 'truncate'
  | 'trim'
  | 'fold'
  | 'zero-pad'
  | 'strip-separators'
  | 'non-ascii-digits'
  | 'extract'
  | 'prefix'
  | 'like'
  | 'trailing-garbage'
  | 'fraction'
  | 'wraparound'
  | 'narrow'
  | 'sign-dropped'
  | 'check-digit'
  | 'delimiter';

/** One way of reading a value: the value as read, or undefined when this reading does not apply to it. */
export type Reader = (value: unknown, stored: readonly string[]) => unknown;

export interface Normalisation {
  id: NormalisationId;
  /** What the server does to the value, in words, for a field of this constraint (fault descriptions). */
  does(c: FieldConstraint): string;
  /** Does it apply to a field of this constraint (from the schema alone)? */
  appliesTo(c: FieldConstraint): boolean;
  /** The ways readers do it, for a field of this constraint; the first is the one the reference server plays. */
  readers(c: FieldConstraint): ReadonlyArray<{ name: string; read: Reader }>;
  /** Candidate neighbours of a value the target holds (each is verified: it must land on the value). */
  candidates(held: string | number, c: FieldConstraint): Array<{ label: string; value: string | number }>;
}

const INT32 = 2 ** 32;

const chars = (s: string): string[] => Array.from(s);
const isText = (v: unknown): v is string => typeof v === 'string';

/** The length every value of a pattern has, when the pattern fixes it (`^T[0-9]{10}$`: 11); undefined otherwise. */
export function fixedLengthOf(pattern: string): number | undefined {
  const body = pattern.replace(/^\^/, '').replace(/\$$/, '');
  let n = 0;
  let i = 0;
  while (i < body.length) {
    let unit: number;
    const ch = body[i] ?? '';
    if (ch === '[') {
      const end = body.indexOf(']', i + 1);
      if (end < 0) return undefined;
      i = end + 1;
      unit = 1;
    } else if (ch === '\\') {
      i += 2;
      unit = 1;
    } else if ('()|*+?.{}'.includes(ch)) {
      return undefined;
    } else {
      i += 1;
      unit = 1;
    }
    const quantifier = /^\{(\d+)\}/.exec(body.slice(i));
    if (quantifier?.[1]) {
      n += unit * Number(quantifier[1]);
      i += quantifier[0].length;
    } else if (/^[*+?{]/.test(body.slice(i))) {
      return undefined;
    } else {
      n += unit;
    }
  }
  return n;
}

/** The length a field's values are cut to by a column or parameter of its size: its maximum, or its pattern's length. */
export function lengthLimitOf(c: FieldConstraint): number | undefined {
  return c.maxLength ?? (c.pattern !== undefined ? fixedLengthOf(c.pattern) : undefined);
}

/** The field's values are codes of one length (an agency code: exactly 3). */
const fixedLengthCode = (c: FieldConstraint): boolean => c.type === 'string' && c.minLength !== undefined && c.minLength === c.maxLength;
const limitedString = (c: FieldConstraint): boolean => c.type === 'string' && lengthLimitOf(c) !== undefined;
/** The pattern names letters in one case (`T`): another case breaks it. */
const caseMatters = (c: FieldConstraint): boolean => c.type === 'string' && c.pattern !== undefined && /[A-Za-z]/.test(c.pattern.replace(/\\[A-Za-z]|\[[^\]]*\]|\{[^}]*\}/g, ''));
/** The pattern names ASCII digits (`[0-9]`, `\d` read as ASCII by the contract's validator). */
const digitsMatter = (c: FieldConstraint): boolean => c.type === 'string' && c.pattern !== undefined && /\[0-9\]|\\d/.test(c.pattern);
const isInteger = (c: FieldConstraint): boolean => c.type === 'integer';

/** Digits of other scripts (full-width, Arabic-Indic, Extended Arabic-Indic, Devanagari) read as ASCII digits. */
const OTHER_DIGITS: ReadonlyArray<readonly [number, number]> = [
  [0xff10, 0xff19],
  [0x0660, 0x0669],
  [0x06f0, 0x06f9],
  [0x0966, 0x096f],
];
function asciiDigits(s: string): string {
  return chars(s)
    .map((ch) => {
      const cp = ch.codePointAt(0) ?? 0;
      const block = OTHER_DIGITS.find(([from, to]) => cp >= from && cp <= to);
      return block ? String(cp - block[0]) : ch;
    })
    .join('');
}
const toBlock = (s: string, zero: number): string => s.replace(/[0-9]/g, (d) => String.fromCodePoint(zero + Number(d)));

/** A value as text, the way a reader of text sees it (a JSON number is its digits). */
const textOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined);

/** An integer in 32 bits, two's complement (JavaScript's `| 0`, C#'s unchecked cast). */
const wrap32 = (n: number): number => {
  const m = ((n % INT32) + INT32) % INT32;
  return m >= 2 ** 31 ? m - INT32 : m;
};

/**
 * SQL LIKE: % any run of characters, _ one character, every other character itself. Escaped are the
 * syntax characters only: under the `u` flag an escaped hyphen is an error, and outside a class a hyphen
 * is itself (a work code such as NC-0001 stopped a planning).
 */
export function likeMatches(pattern: string, value: string): boolean {
  const re = chars(pattern)
    .map((ch) => (ch === '%' ? '.*' : ch === '_' ? '.' : ch.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${re}$`, 'su').test(value);
}

/** A glob: * any run of characters, ? one character, every other character itself. */
export function globMatches(pattern: string, value: string): boolean {
  const re = chars(pattern)
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${re}$`, 'su').test(value);
}

const cut = (s: string, n: number): string => chars(s).slice(0, n).join('');
const lastChar = (s: string): string => chars(s).slice(-1).join('');
const withoutLast = (s: string): string => chars(s).slice(0, -1).join('');
const middle = (s: string): number => Math.max(1, Math.floor(chars(s).length / 2));
const insertAt = (s: string, at: number, what: string): string => {
  const list = chars(s);
  return [...list.slice(0, at), what, ...list.slice(at)].join('');
};
const swapCase = (s: string): string => s.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));

/** Separators a reader strips from codes: every one of them, those of a display form (ISO 15707's hyphens and dots), spaces. */
const STRING_SEPARATORS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['hyphens and dots', ['-', '.']],
  ['spaces', [' ']],
];
/**
 * Separators a reader strips between digits: thousands separators ("1,000" as 1000), which no platform's
 * default integer parser takes and which many locales write as the decimal mark ("1,5" is one and a half):
 * read as a thousands separator, the text names another number than it does there. Python's underscores
 * ("1_000") are a spelling of the number itself (lib/contract/integer-readings.ts): a reading, not a fault.
 */
const INTEGER_SEPARATORS: ReadonlyArray<readonly [string, readonly string[]]> = [['commas', [',']]];

/** Separators a server strips from text: from strings anywhere, from integers between digits (an integer comes out a number). */
function stripSeparators(value: unknown, seps: readonly string[], c: FieldConstraint): unknown {
  const text = textOf(value);
  if (text === undefined || !seps.some((sep) => text.includes(sep))) return undefined;
  const any = `[${seps.map((sep) => `\\${sep}`).join('')}]`;
  const stripped = isInteger(c) ? text.replace(new RegExp(`(?<=[0-9])${any}(?=[0-9])`, 'g'), '') : text.replace(new RegExp(any, 'g'), '');
  if (stripped === text) return undefined;
  return isInteger(c) ? integerFrom(stripped) : stripped;
}

/** An integer written with a fraction, as text ("128.4"). */
const FRACTION_TEXT = /^\s*[+-]?[0-9]+\.[0-9]+\s*$/;

/** A lenient integer as text: digits only after the reading, else unread. */
const integerFrom = (text: string): number | undefined => (/^[+-]?[0-9]+$/.test(text) ? Number(text) : undefined);

/** An integer as a reader of integers sees it: a number, or text of digits around which spaces are dropped. */
const integerRead = (v: unknown): number | undefined => (typeof v === 'number' ? v : isText(v) ? integerFrom(v.trim()) : undefined);

export const NORMALISATIONS: readonly Normalisation[] = [
  {
    id: 'truncate',
    does: (c) => `cut to ${lengthLimitOf(c)} characters (a column or parameter of that size) before it is checked and looked up`,
    appliesTo: limitedString,
    readers: (c) => {
      const limit = lengthLimitOf(c) ?? Infinity;
      return [{ name: 'keep the start', read: (v) => (isText(v) && chars(v).length > limit ? cut(v, limit) : undefined) }];
    },
    candidates: (held, c) => {
      const text = String(held);
      return chars(text).length === lengthLimitOf(c) ? [{ label: 'one character more', value: `${text}${lastChar(text)}` }] : [];
    },
  },
  {
    id: 'trim',
    does: () => 'trimmed of edge whitespace before it is checked and looked up',
    appliesTo: limitedString,
    readers: () => [
      { name: 'both ends', read: (v) => (isText(v) ? v.trim() : undefined) },
      { name: 'the start', read: (v) => (isText(v) ? v.trimStart() : undefined) },
      { name: 'the end', read: (v) => (isText(v) ? v.trimEnd() : undefined) },
    ],
    candidates: (held) => [
      { label: 'a trailing space', value: `${held} ` },
      { label: 'a leading space', value: ` ${held}` },
    ],
  },
  {
    id: 'fold',
    does: () => 'folded to upper case before it is checked and looked up',
    appliesTo: caseMatters,
    readers: () => [
      { name: 'to upper case', read: (v) => (isText(v) ? v.toUpperCase() : undefined) },
      { name: 'to lower case', read: (v) => (isText(v) ? v.toLowerCase() : undefined) },
    ],
    candidates: (held) => [{ label: 'in another letter case', value: swapCase(String(held)) }],
  },
  {
    id: 'zero-pad',
    does: (c) => `read as a number and padded with zeros to ${lengthLimitOf(c)} digits (a code stored as an integer) before it is checked and looked up`,
    appliesTo: fixedLengthCode,
    readers: (c) => {
      const limit = lengthLimitOf(c) ?? 0;
      return [{ name: 'as a number, padded with zeros', read: (v) => (isText(v) && /^[0-9]+$/.test(v) ? String(Number(v)).padStart(limit, '0') : undefined) }];
    },
    candidates: (held) => {
      const text = String(held);
      if (!/^[0-9]+$/.test(text)) return [];
      const out = [{ label: 'a leading zero more', value: `0${text}` }];
      const bare = text.replace(/^0+(?=.)/, '');
      if (bare !== text) out.push({ label: 'without its leading zeros', value: bare });
      return out;
    },
  },
  {
    id: 'strip-separators',
    does: (c) => (isInteger(c) ? 'read with thousands separators between its digits removed (1,000 as 1000) before it is checked' : 'read with separators (hyphens, dots, spaces) removed before it is checked and looked up'),
    appliesTo: (c) => limitedString(c) || isInteger(c),
    readers: (c) => {
      const groups = isInteger(c) ? INTEGER_SEPARATORS : STRING_SEPARATORS;
      const every = groups.flatMap(([, seps]) => seps);
      return [{ name: 'every separator', read: (v: unknown) => stripSeparators(v, every, c) }, ...groups.map(([name, seps]) => ({ name, read: (v: unknown) => stripSeparators(v, seps, c) }))];
    },
    candidates: (held, c) => {
      const text = String(held);
      if (isInteger(c)) {
        // Grouped by thousands where the number has them, else between its first two digits.
        const digits = text.replace(/^[+-]/, '');
        if (digits.length < 2) return [];
        const at = digits.length > 3 ? digits.length - 3 : 1;
        const sign = text.slice(0, text.length - digits.length);
        return INTEGER_SEPARATORS.map(([name, [sep]]) => ({ label: `with ${name} between its digits`, value: `${sign}${digits.slice(0, at)}${sep ?? ''}${digits.slice(at)}` }));
      }
      if (c.pattern !== undefined && /^T[0-9]{10}$/.test(text)) {
        // The display form of an ISWC (ISO 15707): T-034.524.680-1.
        return [{ label: 'in its display form', value: `${text.slice(0, 1)}-${text.slice(1, 4)}.${text.slice(4, 7)}.${text.slice(7, 10)}-${text.slice(10)}` }, { label: 'with a space inside', value: insertAt(text, middle(text), ' ') }];
      }
      return [
        { label: 'with a hyphen inside', value: insertAt(text, middle(text), '-') },
        { label: 'with a space inside', value: insertAt(text, middle(text), ' ') },
      ];
    },
  },
  {
    id: 'non-ascii-digits',
    does: () => 'read with digits of other scripts (full-width, Arabic-Indic) taken for ASCII digits before it is checked',
    // A pattern of ASCII digits only: an integer written in digits of another script names the same number
    // (Python's int(), Java's Integer.parseInt take it), a reading (lib/contract/integer-readings.ts).
    appliesTo: digitsMatter,
    readers: (c) => {
      const asRead = (ascii: string, v: string): unknown => (ascii === v ? undefined : isInteger(c) ? integerFrom(ascii) : ascii);
      return [
        { name: 'Unicode digit values', read: (v) => (isText(v) ? asRead(asciiDigits(v.normalize('NFKC')), v) : undefined) },
        { name: 'NFKC', read: (v) => (isText(v) ? asRead(v.normalize('NFKC'), v) : undefined) },
      ];
    },
    candidates: (held) => {
      const text = String(held);
      if (!/[0-9]/.test(text)) return [];
      return [
        { label: 'in full-width digits', value: toBlock(text, 0xff10) },
        { label: 'in Arabic-Indic digits', value: toBlock(text, 0x0660) },
      ];
    },
  },
  {
    id: 'extract',
    does: () => 'searched for its pattern without anchors, and the first match taken, before it is checked and looked up',
    appliesTo: (c) => c.type === 'string' && c.pattern !== undefined,
    readers: (c) => {
      const unanchored = new RegExp((c.pattern ?? '').replace(/^\^/, '').replace(/\$$/, ''), 'u');
      return [{ name: 'first match', read: (v) => (isText(v) ? (unanchored.exec(v)?.[0] ?? undefined) : undefined) }];
    },
    candidates: (held) => [{ label: 'after another character', value: `X${held}` }],
  },
  {
    id: 'prefix',
    does: () => 'matched against the start of the values the server holds (StartsWith, LIKE \'value%\') when it looks data up',
    appliesTo: (c) => limitedString(c) && namesData(c),
    readers: () => [{ name: 'the first stored value it starts', read: (v, stored) => (isText(v) && v !== '' ? stored.find((s) => s !== v && s.startsWith(v)) : undefined) }],
    candidates: (held) => (chars(String(held)).length >= 2 ? [{ label: 'without its last character', value: withoutLast(String(held)) }] : []),
  },
  {
    id: 'like',
    does: () => 'used as a LIKE pattern (% and _ as wildcards) when it looks data up',
    appliesTo: (c) => limitedString(c) && namesData(c),
    readers: () => [
      { name: 'SQL LIKE', read: (v, stored) => (isText(v) && /[%_]/.test(v) ? stored.find((s) => s !== v && likeMatches(v, s)) : undefined) },
      // A glob (* any run, ? one character): a search box's wildcards passed on to the lookup (a fresh reading of 2026-12-01).
      { name: 'glob', read: (v, stored) => (isText(v) && /[*?]/.test(v) ? stored.find((s) => s !== v && globMatches(v, s)) : undefined) },
    ],
    candidates: (held) =>
      chars(String(held)).length >= 2 && !/[%_*?]/.test(String(held))
        ? [
            { label: 'with a wildcard for its last character', value: `${withoutLast(String(held))}_` },
            { label: 'with a glob wildcard for its last character', value: `${withoutLast(String(held))}*` },
          ]
        : [],
  },
  {
    id: 'trailing-garbage',
    does: () => 'read up to the first character that is no digit (parseInt, atoi): "128abc" is 128',
    appliesTo: isInteger,
    readers: () => [{ name: 'parseInt', read: (v) => (isText(v) && /^\s*[+-]?[0-9]+[^0-9]/.test(v) ? Number.parseInt(v, 10) : undefined) }],
    candidates: (held) => [{ label: 'followed by letters', value: `${held}abc` }],
  },
  {
    // Truncated (a decimal cast to an integer) or rounded (.NET's Convert.ToInt32(double)): a fraction under a
    // half lands on the held number under both (a fresh reading of 2026-12-01: "127.6" rounded is 128).
    id: 'fraction',
    does: () => 'read as a decimal number and truncated: text "128.4" is 128',
    appliesTo: isInteger,
    readers: () => [
      { name: 'truncated', read: (v) => (isText(v) && FRACTION_TEXT.test(v) ? Math.trunc(Number(v)) : undefined) },
      { name: 'rounded', read: (v) => (isText(v) && FRACTION_TEXT.test(v) ? Math.round(Number(v)) : undefined) },
    ],
    candidates: (held) => [{ label: 'with a fraction', value: `${held}.4` }],
  },
  {
    id: 'wraparound',
    does: () => 'read modulo 2^32 (a 64-bit value cast to 32 bits): 2^32 + 128 is 128',
    appliesTo: isInteger,
    readers: () => [
      {
        name: 'cast to 32 bits',
        read: (v) => {
          const n = integerRead(v);
          return n !== undefined && Number.isSafeInteger(n) && wrap32(n) !== n ? wrap32(n) : undefined;
        },
      },
    ],
    candidates: (held) => (typeof held === 'number' || /^[+-]?[0-9]+$/.test(String(held)) ? [{ label: 'plus 2^32', value: Number(held) + INT32 }] : []),
  },
  {
    // A value range-checked as int32, then kept in a narrower column (an unchecked cast to SMALLINT): a valid
    // int32 that names another source database is read as the held one (a fresh reading of 2026-12-01).
    id: 'narrow',
    does: () => 'range-checked as a 32-bit integer, then kept in 16 bits (an unchecked cast to SMALLINT): 65536 + 128 is 128',
    appliesTo: (c) => isInteger(c) && namesData(c),
    readers: () => [
      {
        name: 'cast to 16 bits',
        read: (v) => {
          const n = integerRead(v);
          return n !== undefined && wrap32(n) === n && (n << 16) >> 16 !== n ? (n << 16) >> 16 : undefined;
        },
      },
    ],
    candidates: (held) => (/^[0-9]+$/.test(String(held)) && Number(held) + 2 ** 16 < 2 ** 31 ? [{ label: 'plus 2^16', value: Number(held) + 2 ** 16 }] : []),
  },
  {
    // Digits captured after an optional sign (`[0-9]+` matched, the sign left out): -128 is another valid int32,
    // read as 128 (a fresh reading of 2026-12-01).
    id: 'sign-dropped',
    does: () => 'read without its sign (the digits after it captured): -128 is 128',
    appliesTo: (c) => isInteger(c) && namesData(c),
    readers: () => [{ name: 'digits after the sign', read: (v) => (isText(v) && /^\s*[+-][0-9]+\s*$/.test(v) && Number(v.trim().slice(1)) !== Number(v) ? Number(v.trim().slice(1)) : undefined) }],
    candidates: (held) => (/^[0-9]+$/.test(String(held)) && Number(held) > 0 ? [{ label: 'with a minus sign', value: `-${held}` }] : []),
  },
  {
    // An ISWC's last digit is a check digit (ISO 15707; the document states the pattern only): a server that
    // recomputes it, or compares without it, reads an ISWC whose check digit does not hold as the ISWC of its
    // nine digits. Such an ISWC exists in no registry that checks them: it names nothing, another ISWC is acted on.
    id: 'check-digit',
    does: () => 'read with its check digit recomputed (ISO 15707) before it is looked up',
    appliesTo: (c) => c.type === 'string' && c.component === 'Iswc' && namesData(c),
    readers: () => [{ name: 'check digit recomputed', read: (v) => (isText(v) && /^T[0-9]{10}$/.test(v) && !hasValidCheckDigit(v) ? withCheckDigitRecomputed(v) : undefined) }],
    candidates: (held) => (/^T[0-9]{10}$/.test(String(held)) ? [{ label: 'with a check digit that does not hold', value: withInvalidCheckDigit(String(held)) }] : []),
  },
  {
    // A value cut at a delimiter names what comes before it: the held value, followed by more, read as the held
    // value. An integer read so is a number read up to its first non-digit (trailing-garbage above).
    id: 'delimiter',
    does: () => 'read up to its first delimiter (a comma or semicolon of a list, a NUL ending a C string) before it is checked and looked up',
    appliesTo: limitedString,
    readers: () => DELIMITERS.map(([name, delimiter]) => ({ name: `up to ${name}`, read: (v: unknown) => upTo(v, delimiter) })),
    candidates: (held) => DELIMITERS.map(([name, delimiter]) => ({ label: `followed by ${name} and more`, value: `${held}${delimiter}X` })),
  },
];

/**
 * Delimiters a reader stops at: a comma or a semicolon of a list split and its first item taken
 * (`value.Split(',')[0]`, a binder of comma-separated arrays), a NUL ending a C string (a native
 * library, a driver that passes text as char*). The first is the one the reference server plays.
 */
const DELIMITERS: ReadonlyArray<readonly [string, string]> = [
  ['a comma', ','],
  ['a semicolon', ';'],
  ['a NUL', '\u0000'],
];

/** The text before the first `delimiter`, when there is one and text before it. */
function upTo(value: unknown, delimiter: string): string | undefined {
  if (!isText(value)) return undefined;
  const at = value.indexOf(delimiter);
  return at > 0 ? value.slice(0, at) : undefined;
}

/**
 * Readings that take a value for one the target holds as the same value, where no limit of the field is
 * stated: a database comparing text with its trailing spaces ignored (SQL Server's padding, production's
 * collation), a server trimming what it reads, an integer reading of a code of digits ("0128" as 128). Past a
 * limit the document states they read characters that were not sent (faults); where it states none, the value
 * names the same data (a reading, never gated): the query agency and workcode of delete and demerge.
 */
const SAME_VALUE_WITHOUT_LIMIT: ReadonlySet<NormalisationId> = new Set(['trim', 'zero-pad']);

/** Does a reading name the same data where the field's limit is not stated (then it is no fault there)? */
export function sameValueReading(c: Pick<FieldConstraint, 'limitStated'>, id: NormalisationId): boolean {
  return c.limitStated === false && SAME_VALUE_WITHOUT_LIMIT.has(id);
}

/** The normalisations that are faults on a field of this constraint: those that apply, less the readings of the same value. */
export function faultyNormalisationsFor(c: FieldConstraint): Normalisation[] {
  return normalisationsFor(c).filter((n) => !sameValueReading(c, n.id));
}

/** The normalisations that apply to a field of this constraint, in the order of NORMALISATIONS. */
export function normalisationsFor(c: FieldConstraint): Normalisation[] {
  return NORMALISATIONS.filter((n) => n.appliesTo(c));
}

export function normalisation(id: NormalisationId): Normalisation {
  const n = NORMALISATIONS.find((x) => x.id === id);
  if (!n) throw new Error(`Unknown normalisation ${id}`);
  return n;
}

/**
 * The value as a server with this normalisation reads it (its first variant): what the reference server's
 * lenient faults act on. Unchanged when the normalisation does not apply to it.
 */
export function normalise(id: NormalisationId, value: unknown, c: FieldConstraint, stored: readonly string[] = []): unknown {
  const reader = normalisation(id).readers(c)[0];
  const out = reader?.read(value, stored);
  return out === undefined ? value : out;
}

/** Does a value satisfy the field's constraint as the contract's validator reads it? */
export function withinConstraint(c: FieldConstraint, value: unknown): boolean {
  return validateNode(constraintSchema(c), value).length === 0;
}

/** A near neighbour of a value the target holds: a value a normalisation reads as that value. */
export interface Neighbour {
  /** 'a trailing space', 'in full-width digits', … */
  label: string;
  value: string | number;
  /** Within the field's constraint: then it names other data (a prefix, a LIKE pattern), else it breaks the constraint. */
  valid: boolean;
  /** Each normalisation and variant that reads it as the held value. */
  lands: Array<{ normalisation: NormalisationId; variant: string }>;
  /** The normalisation it was built for (a value followed by a comma is also cut by a reader that truncates). */
  builtFor: NormalisationId;
}

/** The same value, as a normalised value compares to the held one (a number to its digits). */
const same = (a: unknown, b: string | number): boolean => a === b || (typeof a === 'number' && String(a) === String(b)) || (typeof b === 'number' && typeof a === 'string' && a === String(b));

/**
 * Every candidate neighbour of `held` for the normalisations that apply to the field, each kept with the
 * normalisations and variants that land it on `held` (verified by running them; `stored` is what prefix and
 * LIKE matching search: the held value alone by default). A candidate that lands on nothing, or equals the
 * held value, is dropped.
 */
export function neighboursOf(held: string | number, c: FieldConstraint, stored: readonly string[] = [String(held)]): Neighbour[] {
  const applicable = normalisationsFor(c);
  const seen = new Set<string>();
  const out: Neighbour[] = [];
  for (const n of applicable) {
    for (const cand of n.candidates(held, c)) {
      const key = JSON.stringify(cand.value);
      if (seen.has(key) || same(cand.value, held)) continue;
      seen.add(key);
      const lands = applicable.flatMap((m) => m.readers(c).filter((r) => same(r.read(cand.value, stored), held)).map((r) => ({ normalisation: m.id, variant: r.name })));
      if (lands.length === 0) continue;
      out.push({ label: cand.label, value: cand.value, valid: withinConstraint(c, cand.value), lands, builtFor: n.id });
    }
  }
  return out;
}

/**
 * The fewest neighbours (greedily) that land under every variant of every normalisation some neighbour
 * lands under: what a case sends so that a server doing any of them meets data that exists. `usable` says
 * which neighbours the case can judge (one that breaks the constraint; one that names other data, where the
 * field names data the request acts on).
 */
export function coveringNeighbours(neighbours: readonly Neighbour[], usable: (n: Neighbour) => boolean = (n) => !n.valid): Neighbour[] {
  const pool = neighbours.filter(usable);
  const key = (l: Neighbour['lands'][number]): string => `${l.normalisation}/${l.variant}`;
  const left = new Set(pool.flatMap((n) => n.lands.map(key)));
  const out: Neighbour[] = [];
  while (left.size > 0) {
    let best: Neighbour | undefined;
    let bestGain = 0;
    for (const n of pool) {
      const gain = n.lands.filter((l) => left.has(key(l))).length;
      if (gain > bestGain) {
        best = n;
        bestGain = gain;
      }
    }
    if (!best) break;
    out.push(best);
    for (const l of best.lands) left.delete(key(l));
  }
  return out;
}
