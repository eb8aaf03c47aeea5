import { lengthsOf } from '../../contract/answer.ts';
import type { Format } from '../../contract/codec/index.ts';
import { resourceSchema } from '../../contract/constraints.ts';
import type { ResourceName } from '../../contract/json-schema.ts';
import type { SchemaNode } from '../../contract/openapi.ts';
import { deref } from '../../contract/openapi.ts';
import type { ClientJudgeInput } from './types.ts';

/**
 * A request body walked along its resource's schema (schemas/openapi.yaml): every scalar field and array
 * item with the schema node that constrains it, the keys the schema does not name, the documented fields
 * left out, and containers of the wrong shape. Field names, types and limits all come from the contract.
 */

export interface Leaf {
  /** Where in the body: `agencyWorks[1].agencyCode`, `iswcs[0]`, `agencyCode`. */
  path: string;
  /** The property name (`agencyCode`; for an array item, the array's). */
  name: string;
  /** The leaf's schema, dereferenced (type, minLength, maxLength, pattern, minimum, maximum). */
  schema: SchemaNode;
  value: unknown;
}

export interface BodyWalk {
  leaves: Leaf[];
  /** Keys the schema does not name; `meant` is the documented field it spells differently (case, separators). */
  unknown: Array<{ path: string; key: string; meant: string | undefined }>;
  /** Documented fields left out (required-ness is not shown: recorded only). */
  missing: string[];
  /** An array field that is not an array, or an item that should be an object and is not. */
  shapes: Array<{ path: string; expected: string; received: string; lossless: boolean }>;
  /** A merge naming neither ISWCs nor agency works. */
  emptyMerge: boolean;
}

const normalise = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array (${value.length} items)`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  return typeof value === 'number' || typeof value === 'boolean' ? `the ${typeof value} ${value}` : `a ${typeof value}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

let identity: ReadonlySet<string> | undefined;

/** Fields a run notification may leave out by design: the identity the answer carries (2.2), absent on a start. */
function identityFields(): ReadonlySet<string> {
  if (!identity) {
    const answer = resourceSchema('CsnNotification');
    identity = new Set(Array.isArray(answer.required) ? (answer.required as string[]) : []);
  }
  return identity;
}

const NONE: ReadonlySet<string> = new Set();

/** An object schema's property names and their spellings without case and separators, once per schema. */
const shapes = new WeakMap<SchemaNode, { known: string[]; byNormal: Map<string, string> }>();

function shapeOf(schema: SchemaNode): { known: string[]; byNormal: Map<string, string> } {
  let shape = shapes.get(schema);
  if (!shape) {
    const known = Object.keys(schema.properties ?? {});
    shapes.set(schema, (shape = { known, byNormal: new Map(known.map((k) => [normalise(k), k])) }));
  }
  return shape;
}

function walkObject(value: Record<string, unknown>, raw: SchemaNode, prefix: string, out: BodyWalk, exempt: ReadonlySet<string>): void {
  const schema = deref(raw);
  const props = schema.properties ?? {};
  const { known, byNormal } = shapeOf(schema);
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(props, key)) continue;
    out.unknown.push({ path: prefix ? `${prefix}.${key}` : key, key, meant: byNormal.get(normalise(key)) });
  }
  for (const name of known) {
    const propRaw = props[name];
    const prop = deref(propRaw);
    const path = prefix ? `${prefix}.${name}` : name;
    if (!Object.hasOwn(value, name)) {
      // Arrays are "and/or" (4.2): leaving one out is the ordinary way to merge only the other kind.
      if (prop.type !== 'array' && !exempt.has(name)) out.missing.push(path);
      continue;
    }
    const v = value[name];
    if (prop.type === 'array') {
      const itemRaw = prop.items ?? {};
      const item = deref(itemRaw);
      if (v === null) {
        out.leaves.push({ path, name, schema: prop, value: null });
        continue;
      }
      // One value where a list is expected (a string for iswcs, an agency work for agencyWorks) is read
      // as a list of one by a lenient reader, as XML's single element is: recorded, never refused.
      const single = !Array.isArray(v) && (item.type === 'object' ? isObject(v) : !isObject(v));
      const items = Array.isArray(v) ? v : single ? [v] : undefined;
      if (items === undefined) {
        out.shapes.push({ path, expected: 'an array', received: describe(v), lossless: false });
        continue;
      }
      if (!Array.isArray(v)) out.shapes.push({ path, expected: 'an array', received: `${describe(v)} (one value where a list is expected)`, lossless: true });
      items.forEach((entry, i) => {
        const at = `${path}[${i}]`;
        if (item.type === 'object') {
          if (isObject(entry)) walkObject(entry, itemRaw, at, out, NONE);
          // A null item, as a null ISWC: recorded (client.body.fields), not a type error of one list only.
          else if (entry === null) out.leaves.push({ path: at, name, schema: item, value: null });
          else out.shapes.push({ path: at, expected: 'an object (2.4)', received: describe(entry), lossless: false });
        } else {
          out.leaves.push({ path: at, name, schema: item, value: entry });
        }
      });
      continue;
    }
    if (prop.type === 'object') {
      if (isObject(v)) walkObject(v, propRaw, path, out, NONE);
      else out.shapes.push({ path, expected: 'an object', received: describe(v), lossless: false });
      continue;
    }
    out.leaves.push({ path, name, schema: prop, value: v });
  }
}

const roots = new Map<ResourceName, SchemaNode>();
const arrays = new Map<ResourceName, string[]>();

/** The reference to a resource's schema, one node per resource (so that dereferencing is cached). */
function rootRef(resource: ResourceName): SchemaNode {
  let node = roots.get(resource);
  if (!node) roots.set(resource, (node = { $ref: `#/components/schemas/${resource}` }));
  return node;
}

/** The array fields of a resource (the merge's "and/or" lists). */
function arrayFields(resource: ResourceName): string[] {
  let names = arrays.get(resource);
  if (!names) arrays.set(resource, (names = Object.entries(resourceSchema(resource).properties ?? {}).filter(([, p]) => deref(p).type === 'array').map(([name]) => name)));
  return names;
}

export function walkBody(resource: ResourceName, value: unknown): BodyWalk {
  const out: BodyWalk = { leaves: [], unknown: [], missing: [], shapes: [], emptyMerge: false };
  if (!isObject(value)) return out;
  walkObject(value, rootRef(resource), '', out, resource === 'AgentRun' ? identityFields() : NONE);
  const arrays = arrayFields(resource);
  if (arrays.length > 0) out.emptyMerge = arrays.every((name) => value[name] === undefined || (Array.isArray(value[name]) && value[name].length === 0));
  return out;
}

const walks = new WeakMap<object, BodyWalk | null>();

/** The walk of a request's parsed body, once per request; null when there is no parsed body of a known resource. */
export function bodyWalk(input: ClientJudgeInput): BodyWalk | null {
  const known = walks.get(input.view);
  if (known !== undefined) return known;
  const resource = input.request.operation?.body?.resource;
  const parsed = input.view.parsed;
  const walk = resource && parsed?.ok ? walkBody(resource, parsed.value) : null;
  walks.set(input.view, walk);
  return walk;
}

/** What kind of value a leaf holds against the type its schema states. */
export type TypeFit = 'fits' | 'lossless' | 'never' | 'null';

const NUMERIC_TEXT = /^\s*[+-]?[0-9]+\s*$/;

/**
 * Whether a value is of the stated type: `fits`; `lossless` when a lenient reader converts it without
 * loss ("5" for an integer, a number or boolean for a string, a boolean for an integer); `never` when no
 * reading takes it (a word or a fraction for an integer, an object or array for a scalar, in JSON; XML
 * text that is not an integer where one is stated); `null` for null or empty text for an integer (JSON and XML alike).
 */
export function typeFit(leaf: Leaf, format: Format): TypeFit {
  const v = leaf.value;
  if (v === null) return 'null';
  if (leaf.schema.type === 'integer') {
    if (typeof v === 'number') return Number.isInteger(v) ? 'fits' : 'never';
    if (typeof v === 'boolean') return 'lossless';
    if (typeof v === 'string') {
      // Empty text for an integer is null to readers of nullable counters, in JSON as in XML (<overallSent/>).
      if (v.trim() === '') return 'null';
      if (format === 'xml') return 'never';
      return NUMERIC_TEXT.test(v) ? 'lossless' : 'never';
    }
    return 'never';
  }
  if (leaf.schema.type === 'string') {
    if (typeof v === 'string') return 'fits';
    if (typeof v === 'number' || typeof v === 'boolean') return 'lossless';
    return 'never';
  }
  return 'fits';
}

/** A leaf's value as the number an integer field means (a lossless numeric string included), or undefined. */
export function integerOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && NUMERIC_TEXT.test(v)) return Number(v.trim());
  return undefined;
}

export interface LengthJudgement {
  /** Every reading puts the length outside the limits. */
  outside: boolean;
  /** The readings disagree: some inside, some outside. */
  disputed: boolean;
  lengths: ReturnType<typeof lengthsOf>;
  limit: string;
}

/** A string's length against minLength/maxLength under each reading of "characters"; undefined when the schema states none. */
export function judgeLength(value: string, schema: SchemaNode): LengthJudgement | undefined {
  const { minLength: min, maxLength: max } = schema;
  if (min === undefined && max === undefined) return undefined;
  const lengths = lengthsOf(value);
  let fits = 0;
  for (const n of [lengths.codePoints, lengths.utf16Units, lengths.graphemes, lengths.utf8Bytes]) if ((min === undefined || n >= min) && (max === undefined || n <= max)) fits += 1;
  const limit = min !== undefined && min === max ? `exactly ${min} characters` : max !== undefined ? `at most ${max} characters${min !== undefined ? ` and at least ${min}` : ''}` : `at least ${min} characters`;
  return { outside: fits === 0, disputed: fits > 0 && fits < 4, lengths, limit };
}

const patterns = new Map<string, RegExp>();

/** Does a string match the schema's pattern (the contract's, with `u`)? undefined when the schema states none. */
export function matchesPattern(value: string, schema: SchemaNode): boolean | undefined {
  if (schema.pattern === undefined) return undefined;
  let re = patterns.get(schema.pattern);
  if (!re) {
    re = new RegExp(schema.pattern, 'u');
    patterns.set(schema.pattern, re);
  }
  return re.test(value);
}
