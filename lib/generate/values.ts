import { charactersAgree, lengthsOf, readingsAgree } from '../contract/answer.ts';
import type { FieldConstraint } from '../contract/constraints.ts';
import { constraintSchema } from '../contract/constraints.ts';
import { validateNode } from '../contract/validators.ts';
import { integerNamedBy } from '../contract/integer-readings.ts';
import { LARGE_COUNT } from './templates.ts';

/**
 * What a value at or near a limit can show, under the rule that a `spec` check demands only what every
 * reasonable reading of the document agrees on:
 * - `rejected`: every reading puts it past the limit (lengths in characters that code points, UTF-16
 *   units, grapheme clusters and NFC count alike, ASCII and precomposed letters of the Basic Multilingual
 *   Plane such as "é"; pattern misses no lenient reading repairs; integers outside 32 bits): a bad request.
 *   A server counting UTF-8 bytes is no reading of characters: "1é" is 2 characters for all of them;
 * - `accepted`: a realistic value at the limit (ASCII: a server may allow only the characters real codes
 *   use), shown differentially against a nominal value;
 * - `characters`: a length the readings of "characters" count differently (astral, combining marks):
 *   observed, with the length under each reading;
 * - `edge`: within or near the limit but unrealistic, or repairable by a lenient reading (negative or
 *   extreme numbers, edge whitespace, a lower-case ISWC, separators, full-width digits): observed.
 */
export type BoundaryRole = 'rejected' | 'accepted' | 'characters' | 'edge';

/** A value at or one past a stated limit, with what the schema says of it and what it can show. */
export interface BoundaryValue {
  /** 'at-max', 'above-max', 'astral-at-max', 'pattern-lower-case', ... */
  label: string;
  value: string | number;
  /** Derived from the schema, never asserted by hand: true when the value satisfies the constraint. */
  valid: boolean;
  role: BoundaryRole;
  because: string;
  /** For strings: the length under each reading. */
  lengths?: ReturnType<typeof lengthsOf>;
}

export { constraintSchema };

export function codePoints(s: string): number {
  return [...s].length;
}

const ASTRAL = '\u{1F600}';
const COMBINING_ACUTE = '\u0301';

/** `n` code points built from a realistic valid value, padded with 'X'. */
export function fill(valid: string, n: number): string {
  const chars = [...valid];
  while (chars.length < n) chars.push('X');
  return chars.slice(0, n).join('');
}

/** `n` code points of which one is astral (2 UTF-16 units): code points and UTF-16 units disagree. */
export function astral(valid: string, n: number): string {
  if (n < 1) return '';
  const chars = [...fill(valid, n)];
  chars[Math.min(1, n - 1)] = ASTRAL;
  return chars.join('');
}

/** A letter of the Basic Multilingual Plane, precomposed: one character for every reading, two UTF-8 bytes. */
const BMP_LETTER = '\u00E9';

/** `n` code points of which one is a precomposed non-ASCII letter: every reading counts n, UTF-8 bytes n + 1. */
export function bmp(valid: string, n: number): string {
  if (n < 1) return '';
  const chars = [...fill(valid, n)];
  chars[Math.min(1, n - 1)] = BMP_LETTER;
  return chars.join('');
}

/** `n` grapheme clusters whose last one carries a combining mark: `n + 1` code points. */
export function combining(valid: string, n: number): string {
  return `${fill(valid, n)}${COMBINING_ACUTE}`;
}

function describeLength(c: FieldConstraint): string {
  if (c.minLength !== undefined && c.minLength === c.maxLength) return `exactly ${c.minLength} characters`;
  const parts = [c.minLength !== undefined ? `at least ${c.minLength}` : '', c.maxLength !== undefined ? `at most ${c.maxLength}` : ''].filter(Boolean);
  return `${parts.join(' and ')} characters`;
}

/** A near miss of a pattern and whether some lenient reading could still take it for a match. */
export interface NearMiss {
  label: string;
  value: string;
  /** Trimming, upper-casing, dropping display separators or reading full-width digits as digits repairs it. */
  repairable: boolean;
}

/** Near misses of a pattern, made by mutating a valid value (lower case, one digit less or more, letters, spaces, full-width digits). */
export function nearMisses(valid: string): NearMiss[] {
  const fullWidth = valid.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
  const firstDigit = valid.search(/[0-9]/);
  return [
    { label: 'lower-case', value: valid.slice(0, 1).toLowerCase() + valid.slice(1), repairable: true },
    { label: 'one-char-short', value: valid.slice(0, -1), repairable: false },
    { label: 'one-char-long', value: `${valid}${valid.slice(-1)}`, repairable: false },
    { label: 'letter-for-digit', value: firstDigit >= 0 ? `${valid.slice(0, firstDigit)}O${valid.slice(firstDigit + 1)}` : `${valid}O`, repairable: false },
    { label: 'inner-space', value: `${valid.slice(0, 1)} ${valid.slice(1)}`, repairable: true },
    { label: 'trailing-space', value: `${valid} `, repairable: true },
    { label: 'full-width-digits', value: fullWidth, repairable: true },
    { label: 'separators', value: `${valid.slice(0, 1)}-${valid.slice(1, 4)}.${valid.slice(4, 7)}.${valid.slice(7, -1)}-${valid.slice(-1)}`, repairable: true },
  ];
}

interface Candidate {
  label: string;
  value: string | number;
  rule: string;
  role: BoundaryRole;
}

/** The profile's agency percent-escaped: 9 characters as sent, 3 only to a server that decodes twice. */
function percentEscaped(valid: string): string {
  return [...valid].map((ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/**
 * Values at and one past each limit of a field, from the constraint alone, each with the role it can play.
 * Validity is decided by the validator on the constraint's schema, so a label can never contradict the
 * contract. A value equal to the nominal one (an agency code of exactly 3 characters at its limit) shows
 * nothing and is left out.
 */
export function boundaryValues(c: FieldConstraint, validExample: string | number): BoundaryValue[] {
  const schema = constraintSchema(c);
  const out: Candidate[] = [];
  const query = c.location === 'query';
  if (c.type === 'string') {
    const valid = String(validExample);
    const rule = `${c.name} is ${describeLength(c)}`;
    if (c.minLength !== undefined && c.minLength > 0) {
      out.push({ label: 'below-min', value: fill(valid, c.minLength - 1), rule, role: 'rejected' });
      if (c.minLength - 1 >= 1) out.push({ label: 'bmp-below-min', value: bmp(valid, c.minLength - 1), rule, role: 'rejected' });
      // An empty string may read as an absent field, and required-ness is not shown: recorded only.
      if (!query) out.push({ label: 'empty', value: '', rule, role: 'edge' });
      out.push({ label: 'astral-at-min', value: astral(valid, c.minLength), rule, role: 'characters' });
      if (c.minLength - 1 >= 1) out.push({ label: 'astral-below-min', value: astral(valid, c.minLength - 1), rule, role: 'characters' });
    }
    if (c.maxLength !== undefined) {
      if (c.maxLength !== c.minLength) {
        out.push({ label: 'at-max', value: fill(valid, c.maxLength), rule, role: 'accepted' });
        out.push({ label: 'astral-at-max', value: astral(valid, c.maxLength), rule, role: 'characters' });
      }
      out.push({ label: 'above-max', value: fill(valid, c.maxLength + 1), rule, role: 'rejected' });
      out.push({ label: 'bmp-above-max', value: bmp(valid, c.maxLength + 1), rule, role: 'rejected' });
      out.push({ label: 'combining-above-max', value: combining(valid, c.maxLength), rule, role: 'characters' });
      if (query && c.minLength !== undefined && c.minLength === c.maxLength) out.push({ label: 'percent-escaped', value: percentEscaped(valid), rule, role: 'rejected' });
    }
    if (c.pattern !== undefined) {
      const patternRule = `${c.name} matches ${c.pattern}`;
      for (const miss of nearMisses(valid)) out.push({ label: `pattern-${miss.label}`, value: miss.value, rule: patternRule, role: miss.repairable ? 'edge' : 'rejected' });
    }
  } else {
    const rule = `${c.name} is a 32-bit integer`;
    if (c.minimum !== undefined) {
      // A negative counter or source database is no realistic value: what it gets is only recorded.
      out.push({ label: 'at-min', value: c.minimum, rule, role: 'edge' });
      out.push({ label: 'below-min', value: c.minimum - 1, rule, role: 'rejected' });
    }
    if (c.maximum !== undefined) {
      // A large but realistic count is accepted; the 32-bit maximum itself is no count a run makes (a server
      // may refuse an implausible one: the document states a type and a range, not that every value in it is
      // taken), and the largest sourceDb names no real hub: both only recorded.
      if (!query && LARGE_COUNT < c.maximum) out.push({ label: 'large-count', value: LARGE_COUNT, rule, role: 'accepted' });
      out.push({ label: 'at-max', value: c.maximum, rule, role: 'edge' });
      out.push({ label: 'above-max', value: c.maximum + 1, rule, role: 'rejected' });
    }
  }
  const seen = new Set<string>();
  return out
    .filter((v) => {
      const key = JSON.stringify(v.value);
      if (seen.has(key) || v.value === validExample) return false;
      seen.add(key);
      return true;
    })
    .map((v) => {
      const valid = validateNode(schema, v.value).length === 0;
      // A value whose length the readings count alike keeps its role; one they count differently is only
      // observed. A refusal needs the readings of characters to agree; an acceptance needs ASCII too.
      const agree = typeof v.value !== 'string' || (v.role === 'rejected' ? charactersAgree(v.value) : readingsAgree(v.value));
      const role: BoundaryRole = v.role !== 'edge' && !agree ? 'characters' : v.role;
      const lengths = typeof v.value === 'string' ? lengthsOf(v.value) : undefined;
      const size = lengths ? `${lengths.codePoints} code points, ${lengths.utf16Units} UTF-16 units, ${lengths.graphemes} graphemes` : 'integer';
      return {
        label: v.label,
        value: v.value,
        valid,
        role,
        ...(lengths ? { lengths } : {}),
        because: `${c.name} ${JSON.stringify(v.value)} (${size}) ${valid ? 'is within' : 'breaks'} the limit: ${v.rule} (section ${c.sections.join(', ')})`,
      };
    });
}

/**
 * What a value of another type than its field's can show: `rejected` when no reading can take it as that
 * type (a word or a fraction for an integer, an object or array for a scalar); `coercion` when a lenient
 * deserializer converts it without loss ("5" for an integer, a number or boolean for a string, a boolean
 * for an integer as JSON Schema coercion does).
 */
export type TypeRole = 'rejected' | 'coercion';

export interface WrongType {
  label: string;
  value: unknown;
  role: TypeRole;
}

/** Values of the wrong JSON type for a field of the given type. */
export function wrongTypes(type: 'string' | 'integer', valid: string | number): WrongType[] {
  if (type === 'integer') {
    return [
      { label: 'number-as-string', value: String(valid), role: 'coercion' },
      { label: 'word', value: 'twelve', role: 'rejected' },
      // Jackson truncates a JSON number with a fraction (ACCEPT_FLOAT_AS_INT); text with one no reading takes.
      { label: 'fraction', value: Number(valid) + 0.5, role: 'coercion' },
      { label: 'fraction-as-string', value: `${Number(valid)}.5`, role: 'rejected' },
      { label: 'boolean', value: true, role: 'coercion' },
      { label: 'array', value: [valid], role: 'rejected' },
      { label: 'object', value: { value: valid }, role: 'rejected' },
    ];
  }
  return [
    { label: 'number', value: 128, role: 'coercion' },
    { label: 'boolean', value: true, role: 'coercion' },
    { label: 'array', value: [valid], role: 'rejected' },
    { label: 'object', value: { value: valid }, role: 'rejected' },
  ];
}

/**
 * What lenient deserializers make of a value of another type: a numeric string or a boolean for an integer
 * (Newtonsoft.Json, JSON Schema coercion), a JSON number with a fraction truncated (Jackson), a number or a
 * boolean for a string ("128"; "True" or "true"). Empty when no reading converts it.
 */
export function coercedValues(type: 'string' | 'integer', value: unknown): unknown[] {
  if (type === 'integer') {
    // Text some platform's default parser reads as the number its digits denote ("128", " 128", "1_28", "١٢٨").
    if (typeof value === 'string') {
      const n = integerNamedBy(value);
      return n === undefined ? [] : [n];
    }
    if (typeof value === 'boolean') return [value ? 1 : 0];
    if (typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value)) return [Math.trunc(value)];
    return [];
  }
  if (typeof value === 'number') return [String(value)];
  if (typeof value === 'boolean') return [value ? 'True' : 'False', String(value)];
  return [];
}

/** The role of a wrong-type value for a constrained field: a coercion counts only if it gives a valid value. */
export function typeRole(c: FieldConstraint, w: WrongType): TypeRole {
  if (w.role !== 'coercion') return w.role;
  const schema = constraintSchema(c);
  return coercedValues(c.type, w.value).some((v) => validateNode(schema, v).length === 0) ? 'coercion' : 'rejected';
}

/**
 * The role of a value once it went through XML, where everything is text: a decoded value the schema
 * accepts shows nothing; text no reading takes as an integer is still `rejected`; an element where text
 * is expected (an object or repeated elements) is a shape question, only observed.
 */
export function xmlTypeRole(type: 'string' | 'integer', decoded: unknown): TypeRole | 'valid' {
  if (decoded !== null && typeof decoded === 'object') return 'coercion';
  if (type === 'integer') return typeof decoded === 'number' ? 'valid' : typeof decoded === 'string' && integerNamedBy(decoded) !== undefined ? 'coercion' : 'rejected';
  return 'valid';
}
