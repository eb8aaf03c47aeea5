import fc from 'fast-check';
import { readingsAgree } from '../../contract/answer.ts';
import type { FieldConstraint } from '../../contract/constraints.ts';
import { resourceSchema } from '../../contract/constraints.ts';
import type { SchemaNode } from '../../contract/openapi.ts';
import { componentName, deref } from '../../contract/openapi.ts';
import { validateNode } from '../../contract/validators.ts';
import { makeIswc } from '../../contract/iswc.ts';
import { AGENT_VERSION, countersOf, LARGE_COUNT } from '../templates.ts';
import { coercedValues, constraintSchema, nearMisses } from '../values.ts';
import { WORK_CODE_ALPHABET, codePointString, realisticString } from './units.ts';

export interface GenOptions {
  /** Values will also be written as XML: only XML-representable text. */
  xml: boolean;
  /** Upper bound for unbounded strings and arrays, to keep requests small. */
  maxFree: number;
  /**
   * Exotic values for observed properties: text from every code-point family (astral, combining, NUL…)
   * and integers over the whole 32-bit range, negative included. Default: realistic values, which every
   * reading of the document takes alike (ASCII text, counters from 0 up).
   */
  exotic?: boolean;
}

export const DEFAULT_GEN: GenOptions = { xml: false, maxFree: 12 };

/** An int32 biased towards its edges and small values, where off-by-one faults live. */
export function int32Like(min: number, max: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(min, max, min + 1, max - 1, 0, 1, -1) },
    { weight: 2, arbitrary: fc.integer({ min, max }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 100_000 }) },
  );
}

/** A realistic count: from 0 to the int32 maximum, biased to small values and to the maximum itself. */
export function countLike(max: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(0, 1, max, max - 1) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max }) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 100_000 }) },
  );
}

/** Text for a string schema node: realistic ASCII (work codes in upper case and digits), or exotic. */
function textFor(node: SchemaNode, component: string | undefined, options: GenOptions): fc.Arbitrary<string> {
  const min = node.minLength ?? 0;
  const max = node.maxLength ?? options.maxFree;
  if (options.exotic) return codePointString(min, max, options);
  if (component === 'AgencyCode') return realisticString(min, max, '0123456789');
  // An empty work code may read as an absent one: realistic values have at least one character.
  return realisticString(Math.max(1, min), max, component === 'AgencyWorkCode' ? WORK_CODE_ALPHABET : undefined);
}

/** Arbitraries are immutable: one per pattern, since building one parses the pattern (a twentieth of a planning's time, made anew for every case run). */
const matching = new Map<string, fc.Arbitrary<string>>();
function stringMatching(pattern: string): fc.Arbitrary<string> {
  let arbitrary = matching.get(pattern);
  if (arbitrary === undefined) {
    arbitrary = fc.stringMatching(new RegExp(pattern, 'u'));
    matching.set(pattern, arbitrary);
  }
  return arbitrary;
}

/**
 * Valid values for a schema node, read from its keywords: strings within minLength/maxLength, strings
 * matching a pattern, integers within minimum/maximum, objects with every property present (required-ness
 * is not shown, so positive inputs send everything), arrays of 1..4 items.
 */
export function validFor(raw: SchemaNode, options: GenOptions = DEFAULT_GEN): fc.Arbitrary<unknown> {
  const node = deref(raw);
  const component = raw.$ref ? componentName(raw.$ref) : undefined;
  switch (node.type) {
    case 'string':
      // A string matching the ISWC pattern gets a valid check digit: check digits are observed, never
      // demanded, so generated valid values must satisfy a server that checks them (docs/production.md).
      if (node.pattern) return stringMatching(node.pattern).map(withCheckDigitIfIswc);
      return textFor(node, component, options);
    case 'integer': {
      const max = node.maximum ?? 2 ** 31 - 1;
      return options.exotic ? int32Like(node.minimum ?? -(2 ** 31), max) : countLike(max);
    }
    case 'array':
      return fc.array(validFor(node.items ?? {}, options), { minLength: options.exotic ? 0 : 1, maxLength: 4 });
    case 'object': {
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, prop] of Object.entries(node.properties ?? {})) shape[name] = validFor(prop, options);
      return fc.record(shape);
    }
    default:
      return fc.constant(null);
  }
}

/** Strings of `min..max` characters made of percent escapes and hex digits: percent-encoding traps in query strings. */
export function percentLike(min: number, max: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom('%', '%', '2', '4', '1', '5', 'A', 'F', 'e', '+'), minLength: min, maxLength: max });
}

/** Valid values of one constrained field (query strings get at least one character: empty reads as missing). */
export function validForConstraint(c: FieldConstraint, options: GenOptions = DEFAULT_GEN): fc.Arbitrary<string | number> {
  const node: Record<string, unknown> = { type: c.type };
  for (const key of ['maxLength', 'pattern', 'minimum', 'maximum'] as const) if (c[key] !== undefined) node[key] = c[key];
  const minLength = c.location === 'query' ? Math.max(1, c.minLength ?? 0) : c.minLength;
  if (minLength !== undefined && c.type === 'string') node.minLength = minLength;
  const plain = (c.type === 'string' && !c.pattern ? textFor(node, c.component, options) : validFor(node, options)) as fc.Arbitrary<string | number>;
  if (!options.exotic || c.location !== 'query' || c.type !== 'string' || c.pattern) return plain;
  return fc.oneof({ weight: 2, arbitrary: plain }, { weight: 1, arbitrary: percentLike(minLength ?? 0, c.maxLength ?? options.maxFree) });
}

export interface InvalidValue {
  label: string;
  value: unknown;
}

/** Keeps a generated string only where every reading of "characters" counts it alike. */
function agreed(arb: fc.Arbitrary<InvalidValue>): fc.Arbitrary<InvalidValue> {
  return arb.filter((v) => typeof v.value !== 'string' || readingsAgree(v.value));
}

/**
 * Values breaking exactly this field's constraint under every reading of the document, everything else
 * left to the caller to keep valid: ASCII lengths below and above the limit, near misses of a pattern no
 * lenient reading repairs, integers beyond the 32-bit range, and values of another type no deserializer
 * converts into a valid one.
 */
export function invalidForConstraint(c: FieldConstraint, validExample: string | number): fc.Arbitrary<InvalidValue> | null {
  const out: Array<fc.Arbitrary<InvalidValue>> = [];
  if (c.type === 'string') {
    // One character at least: an empty string may read as an absent field (required-ness is not shown).
    if (c.minLength !== undefined && c.minLength > 1) {
      out.push(realisticString(1, c.minLength - 1, WORK_CODE_ALPHABET).map((value) => ({ label: 'too short', value })));
    }
    if (c.maxLength !== undefined) {
      out.push(realisticString(c.maxLength + 1, c.maxLength + 6, WORK_CODE_ALPHABET).map((value) => ({ label: 'too long', value })));
      if (c.location === 'query') out.push(percentLike(c.maxLength + 1, c.maxLength + 9).map((value) => ({ label: 'too long', value })));
    }
    if (c.pattern !== undefined) {
      const re = new RegExp(c.pattern, 'u');
      out.push(
        stringMatching(c.pattern)
          .chain((valid) => fc.constantFrom(...nearMisses(valid).filter((m) => !m.repairable)))
          .filter((m) => !re.test(m.value) && m.value !== '')
          .map((m) => ({ label: `pattern ${m.label}`, value: m.value })),
      );
    }
  } else {
    const min = c.minimum ?? -(2 ** 31);
    const max = c.maximum ?? 2 ** 31 - 1;
    out.push(fc.integer({ min: max + 1, max: Number.MAX_SAFE_INTEGER }).map((value) => ({ label: 'above int32', value })));
    out.push(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: min - 1 }).map((value) => ({ label: 'below int32', value })));
  }
  if (c.location === 'body') out.push(wrongType(c, validExample));
  else if (c.type === 'integer') out.push(fc.constantFrom('abc', 'one', 'x1').map((value) => ({ label: 'not an integer', value })));
  return out.length > 0 ? agreed(fc.oneof(...out)) : null;
}

/**
 * A JSON value of another type than the field's that no reading takes as a valid value: a word or a
 * fraction written as text for an integer, an array or object for a scalar, a number or boolean only where even its
 * lenient conversion ("128", "true") breaks the field's limits.
 */
export function wrongType(c: FieldConstraint, valid: string | number): fc.Arbitrary<InvalidValue> {
  const schema = constraintSchema(c);
  const stillInvalid = (v: InvalidValue) => !coercedValues(c.type, v.value).some((x) => validateNode(schema, x).length === 0);
  if (c.type === 'integer') {
    return fc.oneof(
      fc.constantFrom('twelve', 'n/a', 'x').map((value) => ({ label: 'word', value })),
      // As text: a JSON number with a fraction is truncated by Jackson (ACCEPT_FLOAT_AS_INT), text with one by no reading.
      fc.tuple(fc.integer({ min: -100_000, max: 100_000 }), fc.constantFrom(0.5, 0.25, 0.1, 0.999)).map(([n, f]) => ({ label: 'fraction', value: String(n + f) })),
      fc.constant({ label: 'array', value: [valid] }),
      fc.constant({ label: 'object', value: { value: valid } }),
    );
  }
  const lenient: Array<fc.Arbitrary<InvalidValue>> = [
    fc.integer({ min: -1000, max: 100_000 }).map((value): InvalidValue => ({ label: 'number', value })),
    fc.boolean().map((value): InvalidValue => ({ label: 'boolean', value })),
  ];
  // A number or boolean counts only where its conversion breaks the limits; where it never can (a free
  // string), it is left out rather than filtered forever.
  const usable = lenient.filter((arb) => fc.sample(arb, { seed: 0, numRuns: 50 }).some(stillInvalid)).map((arb) => arb.filter(stillInvalid));
  return fc.oneof(fc.constant({ label: 'array', value: [valid] }), fc.constant({ label: 'object', value: { value: valid } }), ...usable);
}

/**
 * Values near a field's limits that the readings count differently or that are unrealistic: exotic text
 * from every code-point family at lengths around the limits, negative and extreme integers. For
 * observed properties: what they get is recorded, never judged.
 */
export function exoticForConstraint(c: FieldConstraint, options: GenOptions = DEFAULT_GEN): fc.Arbitrary<InvalidValue> {
  if (c.type === 'integer') {
    return fc.oneof(
      fc.integer({ min: c.minimum ?? -(2 ** 31), max: -1 }).map((value) => ({ label: 'negative', value })),
      fc.constantFrom(c.minimum ?? -(2 ** 31), c.maximum ?? 2 ** 31 - 1, 0).map((value) => ({ label: 'extreme', value })),
    );
  }
  const min = Math.max(0, (c.minLength ?? 0) - 1);
  const max = (c.maxLength ?? options.maxFree) + 1;
  return codePointString(min, max, { xml: options.xml }).map((value) => ({ label: 'exotic text', value }));
}

/**
 * Valid agent runs: every field present and valid, except runId (absent: the run starts). Free-text
 * fields carry AGENT_VERSION (the version of the harness, shaped as a version number; exotic runs add any text). Realistic runs act
 * for `agency` (the profile's: which agency a key may act for is not shown) and count from 0.
 */
export function validAgentRunArb(options: GenOptions = DEFAULT_GEN, agency?: string): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, raw] of Object.entries(resourceSchema('AgentRun').properties ?? {})) {
    if (name === 'runId') continue;
    const free = deref(raw).type === 'string' && !raw.$ref;
    if (agency !== undefined && raw.$ref && componentName(raw.$ref) === 'AgencyCode') shape[name] = fc.constant(agency);
    // Free text (agentVersion): realistic runs carry the harness's short version; exotic ones any text after it.
    else if (free) shape[name] = options.exotic ? (validFor(raw, options) as fc.Arbitrary<string>).map((s) => `${AGENT_VERSION} ${s}`) : fc.constant(AGENT_VERSION);
    else shape[name] = validFor(raw, options);
  }
  if (options.exotic) return fc.record(shape);
  // Realistic counters add up, for a server that checks they do (the document states no relation, 2.1).
  return fc.tuple(fc.record(shape), consistentCountersArb()).map(([run, counters]) => ({ ...run, ...counters }));
}

/**
 * Counters that add up under every relation a server may check (docs/readings.md, "Counters that add up"):
 * records sent are the successful ones, updated or new, with no rejection, at most a large but realistic count
 * (a server may refuse an implausible one, LARGE_COUNT). With a rejection no counters satisfy them all: a
 * server may read new and updated as the kinds of the records sent, rejected ones among them (sent = new +
 * updated), and another that sent are successful or rejected (sent = successful + rejected).
 */
export function consistentCountersArb(max = LARGE_COUNT): fc.Arbitrary<Record<string, number>> {
  return countLike(max).chain((sent) => fc.integer({ min: 0, max: sent }).map((update) => countersOf({ update, new: sent - update, business: 0, technical: 0 })));
}

export interface MergeBodyOptions {
  /** ISWCs the body may carry (e.g. the profile's unknown ones); default: generated ISWCs with valid check digits. */
  iswcs?: readonly string[];
  /** The agency of every agency work (the profile's); default: generated 3-digit codes. */
  agency?: string;
}

/**
 * Realistic merge bodies: 1..4 distinct ISWCs and 1..4 distinct agency works with realistic work codes.
 * Both arrays are non-empty and free of duplicates, so the only thing that varies from a nominal merge is
 * the values themselves (an empty merge, a duplicate or a merge of the preferred ISWC into itself are
 * points a server may refuse on its own terms: they belong to observed properties).
 */
export function validMergeBodyArb(options: GenOptions = DEFAULT_GEN, merge: MergeBodyOptions = {}): fc.Arbitrary<Record<string, unknown>> {
  const iswc = merge.iswcs && merge.iswcs.length > 0 ? fc.constantFrom(...merge.iswcs) : (validFor({ $ref: '#/components/schemas/Iswc' }, options) as fc.Arbitrary<string>);
  const agency = merge.agency !== undefined ? fc.constant(merge.agency) : realisticString(3, 3, '0123456789');
  const work = fc.record({ agencyCode: agency, agencyWorkCode: validFor({ $ref: '#/components/schemas/AgencyWorkCode' }, options) as fc.Arbitrary<string> });
  return fc.record({
    iswcs: fc.uniqueArray(iswc, { minLength: 1, maxLength: Math.min(4, merge.iswcs?.length ?? 4) }),
    agencyWorks: fc.uniqueArray(work, { minLength: 1, maxLength: 4, selector: (w) => `${w.agencyCode}/${w.agencyWorkCode}` }),
  });
}

/**
 * Merge bodies with what a server may refuse on its own terms: empty arrays, duplicate items, exotic work
 * codes and agency codes. For an observed property (never 5xx, whatever else it answers).
 */
export function edgeMergeBodyArb(options: GenOptions = DEFAULT_GEN): fc.Arbitrary<Record<string, unknown>> {
  const exotic = { ...options, exotic: true };
  return fc.tuple(validFor({ $ref: '#/components/schemas/MergeRequest' }, exotic), fc.boolean()).map(([body, dup]) => {
    const b = body as Record<string, unknown[]>;
    if (!dup) return b;
    const out: Record<string, unknown[]> = {};
    for (const [k, v] of Object.entries(b)) out[k] = v.length > 0 ? [...v, v[0]] : v;
    return out;
  });
}

/** The component name of a field's schema (AgencyCode, Int32, ...), if any. */
export function componentOf(raw: SchemaNode): string | undefined {
  return raw.$ref ? componentName(raw.$ref) : undefined;
}

/** An ISWC-shaped string (T and 10 digits) with its check digit set; any other string unchanged. */
function withCheckDigitIfIswc(value: string): string {
  return /^T[0-9]{10}$/.test(value) ? makeIswc(value.slice(1, 10)) : value;
}
