import type { Format } from '../lib/contract/codec/index.ts';
import type { ResourceName } from '../lib/contract/json-schema.ts';
import type { SchemaNode } from '../lib/contract/openapi.ts';
import { componentName, deref } from '../lib/contract/openapi.ts';
import { validateNode } from '../lib/contract/validators.ts';
import { resourceSchema } from '../lib/contract/constraints.ts';
import type { Context } from './context.ts';
import { operations } from '../lib/contract/operations.ts';
import { lenientBody } from './lenient.ts';
import { integerReader } from '../lib/contract/integer-readings.ts';

/**
 * How the server reads a decoded body before checking it against the contract, according to its choices
 * (server/choices.ts): lenient deserializers convert values of another type without loss, bind property
 * names without case, trim text within its limits, compare it as a collation does, read an element's inner
 * text, drop nulls. The reference choices change nothing. Driven by the resource's schema: no field is named
 * here.
 */

const INTEGER_TEXT = /^\s*[+-]?[0-9]+\s*$/;

function leafText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(leafText).join('');
  if (value !== null && typeof value === 'object') return Object.values(value).map(leafText).join('');
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** Schema components whose values name data a database compares (choice `text-collation-ci`). */
export const COLLATED_COMPONENTS: ReadonlySet<string> = new Set(['Iswc', 'AgencyCode', 'AgencyWorkCode']);

/**
 * Choice `text-collation-ci`: a value as SQL Server's SQL_Latin1_General_CP1_CI_AS compares it, without
 * case, width or trailing spaces (one form stands for all the values it takes for equal).
 */
export function collate(value: string): string {
  return value.replace(/[\uFF01-\uFF5E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(/[a-z]/g, (c) => c.toUpperCase()).replace(/ +$/, '');
}

function readLeaf(ctx: Context, node: SchemaNode, value: unknown, format: Format, collated: boolean): unknown {
  const c = ctx.choices;
  if (node.type === 'integer') {
    if (typeof value === 'string' && INTEGER_TEXT.test(value) && format === 'json' && c.has('newtonsoft-json')) return Number(value.trim());
    // Choice `integer-python-int`: text for an integer is read with int() (pydantic's lax mode), "1_000" and "١٠٠٠" as 1000.
    if (typeof value === 'string' && c.has('integer-python-int')) return integerReader('python').read(value) ?? value;
    if (typeof value === 'boolean' && c.has('coerce-boolean-integer')) return value ? 1 : 0;
    // Jackson's ACCEPT_FLOAT_AS_INT: a JSON number with a fraction is truncated; text with one is not a number to it.
    if (typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value) && format === 'json' && c.has('json-fractions-truncated')) return Math.trunc(value);
    return value;
  }
  if (node.type === 'string') {
    let out = value;
    if ((typeof out === 'number' || typeof out === 'boolean') && format === 'json' && (c.has('newtonsoft-json') || c.has('coerce-boolean-integer'))) out = String(out);
    if (out !== null && typeof out === 'object' && format === 'xml' && c.has('xml-inner-text')) out = leafText(out);
    // A limit is checked on the value as sent: only a value within its limits is trimmed or collated (issue 28).
    const within = typeof out === 'string' && validateNode(node, out).length === 0;
    if (typeof out === 'string' && within && c.has('trim-strings')) out = out.trim();
    if (typeof out === 'string' && within && collated && c.has('text-collation-ci')) out = collate(out);
    return out;
  }
  return value;
}

function readNode(ctx: Context, raw: SchemaNode, value: unknown, format: Format): unknown {
  const node = deref(raw);
  if (node.type === 'object') {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const props = node.properties ?? {};
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      // Newtonsoft.Json binds a property name without regard to case when no exact match exists.
      const name = key in props || !ctx.choices.has('newtonsoft-json') ? key : (Object.keys(props).find((p) => p.toLowerCase() === key.toLowerCase()) ?? key);
      if (child === null && ctx.choices.has('nulls-as-missing')) continue;
      const prop = props[name];
      out[name] = prop ? readNode(ctx, prop, child, format) : child;
    }
    return out;
  }
  if (node.type === 'array') {
    if (!Array.isArray(value) || !node.items) return value;
    const items = node.items;
    return value.map((item) => readNode(ctx, items, item, format));
  }
  const collated = raw.$ref !== undefined && COLLATED_COMPONENTS.has(componentName(raw.$ref));
  return readLeaf(ctx, node, value, format, collated);
}

/**
 * The body value as this server reads it, before validation: its choices' readings, then what the lenient
 * family faults among its faults make of it (server/lenient.ts: fields normalised, lists cut).
 */
export function readBody(ctx: Context, resource: ResourceName, format: Format, value: unknown): unknown {
  const read = readNode(ctx, resourceSchema(resource), value, format);
  const opId = operations().find((op) => op.body?.resource === resource)?.id;
  return opId ? lenientBody(ctx.faults.families, opId, read, (c) => ctx.state.storedValues(c.component)) : read;
}

/** Characters a server with business rules refuses in any text: controls (NUL included) and bidi marks. */
const ODD_TEXT = /[\u0000-\u001F\u007F\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/**
 * For the choice `business-odd-values`: the first string that is empty or holds control or bidi
 * characters, or the first negative integer, anywhere in a value; undefined when there is none.
 */
export function oddValue(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value === '' ? `${path || 'value'} is empty` : ODD_TEXT.test(value) ? `${path || 'value'} holds control or bidi characters` : undefined;
  if (typeof value === 'number') return value < 0 ? `${path || 'value'} is negative` : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const odd = oddValue(item, `${path}[${i}]`);
      if (odd) return odd;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const odd = oddValue(item, path ? `${path}.${key}` : key);
      if (odd) return odd;
    }
  }
  return undefined;
}
