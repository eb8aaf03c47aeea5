import fc from 'fast-check';
import type { FieldConstraint } from '../contract/constraints.ts';
import { resourceSchema } from '../contract/constraints.ts';
import type { SchemaNode } from '../contract/openapi.ts';
import { componentName, deref } from '../contract/openapi.ts';
import { makeIswc } from '../domain/iswc.ts';
import { HARNESS_TAG } from '../engine/templates.ts';
import { nearMisses } from '../engine/values.ts';
import { codePointString } from './units.ts';

export interface GenOptions {
  /** Values will also be written as XML: only XML-representable text. */
  xml: boolean;
  /** Upper bound for unbounded strings and arrays, to keep requests small. */
  maxFree: number;
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

/**
 * Valid values for a schema node, read from its keywords: strings of code points within
 * minLength/maxLength, strings matching a pattern, integers within minimum/maximum, objects with every
 * property present (required-ness is not shown, so positive inputs send everything), arrays 0..N.
 */
export function validFor(raw: SchemaNode, options: GenOptions = DEFAULT_GEN): fc.Arbitrary<unknown> {
  const node = deref(raw);
  switch (node.type) {
    case 'string':
      // A string matching the ISWC pattern gets a valid check digit: check digits are observed, never
      // demanded, so generated valid values must satisfy a server that checks them (DOMAIN.md).
      if (node.pattern) return fc.stringMatching(new RegExp(node.pattern, 'u')).map(withCheckDigitIfIswc);
      return codePointString(node.minLength ?? 0, node.maxLength ?? options.maxFree, options);
    case 'integer':
      return int32Like(node.minimum ?? -(2 ** 31), node.maximum ?? 2 ** 31 - 1);
    case 'array':
      return fc.array(validFor(node.items ?? {}, options), { maxLength: 4 });
    case 'object': {
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, prop] of Object.entries(node.properties ?? {})) shape[name] = validFor(prop, options);
      return fc.record(shape);
    }
    default:
      return fc.constant(null);
  }
}

/** Strings of `min..max` code points made of percent escapes and hex digits: percent-encoding traps in query strings. */
export function percentLike(min: number, max: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom('%', '%', '2', '4', '1', '5', 'A', 'F', 'e', '+'), minLength: min, maxLength: max });
}

/** Valid values of one constrained field (query strings get at least one character: empty reads as missing). */
export function validForConstraint(c: FieldConstraint, options: GenOptions = DEFAULT_GEN): fc.Arbitrary<string | number> {
  const node: Record<string, unknown> = { type: c.type };
  for (const key of ['maxLength', 'pattern', 'minimum', 'maximum'] as const) if (c[key] !== undefined) node[key] = c[key];
  const minLength = c.location === 'query' ? Math.max(1, c.minLength ?? 0) : c.minLength;
  if (minLength !== undefined && c.type === 'string') node.minLength = minLength;
  const plain = validFor(node, options) as fc.Arbitrary<string | number>;
  if (c.location !== 'query' || c.type !== 'string' || c.pattern) return plain;
  return fc.oneof({ weight: 2, arbitrary: plain }, { weight: 1, arbitrary: percentLike(minLength ?? 0, c.maxLength ?? options.maxFree) });
}

export interface InvalidValue {
  label: string;
  value: unknown;
}

/**
 * Values breaking exactly this field's constraint, everything else left to the caller to keep valid:
 * lengths below and above the limit (astral and combining characters included), near misses of a
 * pattern, integers beyond the 32-bit range, and values of the wrong JSON type.
 */
export function invalidForConstraint(c: FieldConstraint, validExample: string | number, options: GenOptions = DEFAULT_GEN): fc.Arbitrary<InvalidValue> | null {
  const out: Array<fc.Arbitrary<InvalidValue>> = [];
  if (c.type === 'string') {
    if (c.minLength !== undefined && c.minLength > 0) {
      out.push(codePointString(c.location === 'query' ? 1 : 0, c.minLength - 1, options).map((value) => ({ label: 'too short', value })));
    }
    if (c.maxLength !== undefined) {
      out.push(codePointString(c.maxLength + 1, c.maxLength + 6, options).map((value) => ({ label: 'too long', value })));
      if (c.location === 'query') out.push(percentLike(c.maxLength + 1, c.maxLength + 9).map((value) => ({ label: 'too long', value })));
    }
    if (c.pattern !== undefined) {
      const re = new RegExp(c.pattern, 'u');
      out.push(
        fc
          .stringMatching(re)
          .chain((valid) => fc.constantFrom(...nearMisses(valid)))
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
  if (c.location === 'body') out.push(wrongType(c.type, validExample));
  else if (c.type === 'integer') out.push(fc.constantFrom('abc', '1.5', '1e3', '0x10', '12abc').map((value) => ({ label: 'not an integer', value })));
  return out.length > 0 ? fc.oneof(...out) : null;
}

/** A JSON value of the wrong type for a field. */
export function wrongType(type: 'string' | 'integer', valid: string | number): fc.Arbitrary<InvalidValue> {
  if (type === 'integer') {
    return fc.oneof(
      fc.integer({ min: -1000, max: 1000 }).map((n) => ({ label: 'number as string', value: String(n) })),
      fc.tuple(fc.integer({ min: -100_000, max: 100_000 }), fc.constantFrom(0.5, 0.25, 0.1, 0.999)).map(([n, f]) => ({ label: 'fraction', value: n + f })),
      fc.boolean().map((value) => ({ label: 'boolean', value })),
      fc.constant({ label: 'array', value: [valid] }),
      fc.constant({ label: 'object', value: { value: valid } }),
    );
  }
  return fc.oneof(
    fc.integer({ min: -1000, max: 1000 }).map((value) => ({ label: 'number', value })),
    fc.boolean().map((value) => ({ label: 'boolean', value })),
    fc.constant({ label: 'array', value: [valid] }),
    fc.constant({ label: 'object', value: { value: valid } }),
  );
}

/**
 * Valid agent runs: every field present and valid, except runId (absent: the run starts). Free-text
 * fields start with the harness tag, so the API team can find the harness's traffic.
 */
export function validAgentRunArb(options: GenOptions = DEFAULT_GEN): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, raw] of Object.entries(resourceSchema('AgentRun').properties ?? {})) {
    if (name === 'runId') continue;
    const free = deref(raw).type === 'string' && !raw.$ref;
    shape[name] = free ? (validFor(raw, options) as fc.Arbitrary<string>).map((s) => `${HARNESS_TAG} ${s}`) : validFor(raw, options);
  }
  return fc.record(shape);
}

/** Valid merge bodies: arrays of 0..4 well-formed ISWCs and agency works, duplicates allowed. */
export function validMergeBodyArb(options: GenOptions = DEFAULT_GEN): fc.Arbitrary<Record<string, unknown>> {
  return validFor({ $ref: '#/components/schemas/MergeRequest' }, options)
    // Never both arrays empty: the body carries ISWCs "and/or" works (4.2); an empty merge may be refused.
    .filter((body) => Object.values(body as Record<string, unknown[]>).some((list) => list.length > 0))
    .chain((body) => {
    const b = body as Record<string, unknown[]>;
    // Duplicates on purpose: repeat the first item of each array sometimes.
    return fc.boolean().map((dup) => {
      if (!dup) return b;
      const out: Record<string, unknown[]> = {};
      for (const [k, v] of Object.entries(b)) out[k] = v.length > 0 ? [...v, v[0]] : v;
      return out;
    });
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
