import type { Operation, QueryParameter } from '../lib/contract/operations.ts';
import { validateNode } from '../lib/contract/validators.ts';
import { hasValidCheckDigit, withCheckDigitRecomputed } from '../lib/contract/iswc.ts';
import type { IntegerReader } from '../lib/contract/integer-readings.ts';
import { integerReader } from '../lib/contract/integer-readings.ts';
import type { Context } from './context.ts';
import { iswcSchema } from './limits.ts';
import { lenientQueryValue } from './lenient.ts';
import { collate, COLLATED_COMPONENTS } from './readings.ts';

/**
 * Query parameters of merge, delete and demerge (4.2-4.4), decoded with URLSearchParams semantics
 * (percent-decoding, `+` as space). Limits come from each parameter's schema in the contract; the
 * server's own choices (required parameters, the ISWC pattern and check digit on `preferredIswc`, an
 * integer syntax for `sourceDb`, a non-blank `reasonCode`) are marked where they are made.
 */

export interface Problem {
  param: string;
  /** missing: absent; repeated: given more than once; invalid: breaks a limit or the server's syntax. */
  kind: 'missing' | 'repeated' | 'invalid';
  message: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: Problem };

/**
 * Names of the query parameters the handlers act on. Each is looked up in the contract (`param`), so a
 * name the contract lacks fails loudly at server start (see `assertQueryNames`).
 */
export const Q = {
  preferredIswc: 'preferredIswc',
  agency: 'agency',
  workcode: 'workcode',
  sourceDb: 'sourceDb',
  reasonCode: 'reasonCode',
} as const;

const INTEGER_TEXT = /^[+-]?[0-9]+$/;

/** The documented parameter of an operation; a name the contract lacks is a programming error. */
export function param(op: Operation, name: string): QueryParameter {
  const p = op.params.find((x) => x.name === name);
  if (!p) throw new Error(`schemas/openapi.yaml: ${op.id} has no query parameter ${name}`);
  return p;
}

/** Fails at start-up when an operation lacks a parameter a handler uses. */
export function assertQueryNames(op: Operation, names: readonly string[]): void {
  for (const name of names) param(op, name);
}

export function problemCode(problem: Problem): 'MISSING_PARAMETER' | 'REPEATED_PARAMETER' | 'BAD_PARAMETER' {
  return problem.kind === 'missing' ? 'MISSING_PARAMETER' : problem.kind === 'repeated' ? 'REPEATED_PARAMETER' : 'BAD_PARAMETER';
}

export class Query {
  readonly #ctx: Context;
  readonly #op: Operation;
  readonly #values = new Map<string, string[]>();

  constructor(ctx: Context, op: Operation, raw: string) {
    this.#ctx = ctx;
    this.#op = op;
    for (const [given, once] of new URLSearchParams(raw)) {
      // Choice `query-names-case-insensitive`: names bound without case, as ASP.NET Core model binding does.
      const name = ctx.choices.has('query-names-case-insensitive') ? (op.params.find((p) => p.name.toLowerCase() === given.toLowerCase())?.name ?? given) : given;
      const decoded = ctx.faults.has('double-percent-decoding') ? decodeTwice(once) : once;
      // Lenient family faults (server/lenient.ts): the value as a lenient server reads it, before anything checks it.
      const lenient = lenientQueryValue(ctx.faults.families, op.id, name, decoded, (c) => ctx.state.storedValues(c.component));
      const documented = op.params.find((p) => p.name === name);
      // Choice `text-collation-ci`: a value within its limits, naming an ISWC, an agency or a work, as the database compares it.
      const collated = ctx.choices.has('text-collation-ci') && documented !== undefined && (documented.component === undefined ? name === Q.preferredIswc : COLLATED_COMPONENTS.has(documented.component)) && validateNode(documented.schema, lenient).length === 0;
      const bound = collated ? collate(lenient) : lenient;
      // Fault `preferred-iswc-cut`: a parameter of 11 characters (CHAR(11)) keeps the first 11 of a longer
      // value where it is bound, so every later step (a lookup first included) reads the cut value.
      // Faults `merge-preferred-iswc-cut` and `merge-preferred-check-digit-ignored`: the same, on the merge only.
      const onMerge = op.id === 'mergeIswcMetadata';
      const cut = name === Q.preferredIswc && (ctx.faults.has('preferred-iswc-cut') || (onMerge && ctx.faults.has('merge-preferred-iswc-cut'))) ? Array.from(bound).slice(0, 11).join('') : bound;
      // Fault `preferred-check-digit-ignored`: the check digit recomputed, so a digit that does not hold names the ISWC of the nine digits.
      const recomputed = ctx.faults.has('preferred-check-digit-ignored') || (onMerge && ctx.faults.has('merge-preferred-check-digit-ignored'));
      const value = name === Q.preferredIswc && recomputed && /^T[0-9]{10}$/.test(cut) && !hasValidCheckDigit(cut) ? withCheckDigitRecomputed(cut) : cut;
      const list = this.#values.get(name);
      if (list) list.push(value);
      else this.#values.set(name, [value]);
    }
  }

  /** The first value of a parameter as given, if any. */
  raw(name: string): string | undefined {
    return this.#values.get(name)?.[0];
  }

  /** The first documented parameter given more than once (the server refuses repeats, or by choice takes the first value). */
  repeated(): Problem | undefined {
    // Fault `key-skipped-param-twice` reads a repeated parameter as its first value, as choice `repeated-query-first` does.
    if (this.#ctx.choices.has('repeated-query-first') || this.#ctx.faults.has('key-skipped-param-twice')) return undefined;
    for (const p of this.#op.params) {
      if ((this.#values.get(p.name)?.length ?? 0) > 1) return { param: p.name, kind: 'repeated', message: `${p.name} is given more than once` };
    }
    return undefined;
  }

  #raw(name: string): Checked<string> {
    const list = this.#values.get(param(this.#op, name).name);
    const value = list?.[0];
    if (value === undefined) return { ok: false, problem: { param: name, kind: 'missing', message: `${name} is required` } };
    return { ok: true, value };
  }

  /** A string parameter checked against its schema's limits (with the limit faults applied). */
  string(name: string): Checked<string> {
    const raw = this.#raw(name);
    if (!raw.ok) return raw;
    const p = param(this.#op, name);
    const violations = this.#ctx.limits.checkValue(this.#ctx.limits.constraint(this.#op.id, 'query', name), p.schema, raw.value);
    if (violations.length > 0) return { ok: false, problem: { param: name, kind: 'invalid', message: `${name} ${violations[0]?.message ?? 'is invalid'}` } };
    return raw;
  }

  /** The preferred ISWC: the Iswc pattern of 2.3 and a valid check digit (server's choice, as production). */
  iswc(name: string): Checked<string> {
    const given = this.string(name);
    if (!given.ok) return given;
    const raw = given;
    // Choice: the document states no pattern for this parameter; a malformed one is simply not found.
    if (this.#ctx.choices.has('preferred-iswc-unchecked')) return raw;
    if (validateNode(iswcSchema(), raw.value).length > 0) {
      return { ok: false, problem: { param: name, kind: 'invalid', message: `${name} is not an ISWC (T and 10 digits)` } };
    }
    if (!hasValidCheckDigit(raw.value)) return { ok: false, problem: { param: name, kind: 'invalid', message: `${name} has a wrong check digit` } };
    return raw;
  }

  /** An integer parameter: decimal digits with an optional sign, then its schema's range (Int32). */
  integer(name: string): Checked<number> {
    const raw = this.#raw(name);
    if (!raw.ok) return raw;
    // Choices `query-integer-dotnet`, `integer-python-int`, `integer-java-parseint`: the platform's parser
    // reads the text as the number its digits denote (whitespace around, underscores, digits of other scripts).
    const platform = platformReader(this.#ctx);
    const read = platform?.read(raw.value);
    const text = read !== undefined ? String(read) : raw.value;
    if (!INTEGER_TEXT.test(text)) return { ok: false, problem: { param: name, kind: 'invalid', message: `${name} is not an integer` } };
    // Review fault `query-int32-wraparound`: JavaScript's `| 0` keeps the low 32 bits, always "in range".
    if (this.#ctx.faults.has('query-int32-wraparound')) return { ok: true, value: Number(text) | 0 };
    const value = Number(text);
    const p = param(this.#op, name);
    const violations = this.#ctx.limits.checkValue(this.#ctx.limits.constraint(this.#op.id, 'query', name), p.schema, value);
    if (violations.length > 0) return { ok: false, problem: { param: name, kind: 'invalid', message: `${name} ${violations[0]?.message ?? 'is invalid'}` } };
    return { ok: true, value };
  }

  /** A string that must not be blank (reasonCode: production rejects a blank one; server's choice). */
  nonBlank(name: string): Checked<string> {
    const raw = this.string(name);
    if (!raw.ok) return raw;
    if (raw.value.trim() === '') return { ok: false, problem: { param: name, kind: 'invalid', message: `${name} must not be blank` } };
    return raw;
  }
}

/** Fault `double-percent-decoding`: a second percent-decoding of an already decoded value. */
function decodeTwice(value: string): string {
  return value.replace(/%([0-7][0-9A-Fa-f])/g, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The integer parser of the server's platform, where a choice names one (the reference reads ASCII digits and a sign). */
export function platformReader(ctx: Context): IntegerReader | undefined {
  const c = ctx.choices;
  if (c.has('integer-python-int')) return integerReader('python');
  if (c.has('integer-java-parseint')) return integerReader('java');
  if (c.has('query-integer-dotnet')) return integerReader('dotnet');
  return undefined;
}
