import type { ErrorObject } from 'ajv';
import { handWrittenSchema } from '../validators.ts';

/**
 * What is wrong with a target profile, in words a person who never read the schema understands: the
 * JSON path of the value (`merges[2].agencyWorks[0]`) and what to change, one line each. Ajv's own texts
 * ("must NOT have additional properties") name neither the field nor the fix.
 */

export interface ProfileProblem {
  /** JSON path in the profile: `agency`, `merges[2].agencyWorks[0]`; '' for the whole file. */
  path: string;
  message: string;
}

/** `/merges/2/agencyWorks/0` → `merges[2].agencyWorks[0]`. */
export function jsonPath(pointer: string, ...more: Array<string | number>): string {
  const segments = [
    ...pointer
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')),
    ...more.map(String),
  ];
  return segments.reduce((out, s) => (/^\d+$/.test(s) ? `${out}[${s}]` : out === '' ? s : `${out}.${s}`), '');
}

import { nearest } from '../../foundation/nearest.ts';

export { nearest };

type SchemaObject = Record<string, unknown>;

/**
 * The schema node an Ajv schema path names: `#/properties/merges/items` in the profile's schema, or
 * `agency-code.schema.json/minLength` in a schema of schemas/ it references.
 */
function schemaNode(root: SchemaObject, schemaPath: string): SchemaObject | undefined {
  const other = /^([^#/]+\.json)#?(.*)$/.exec(schemaPath);
  const file = other?.[1];
  const fragment = other ? (other[2] ?? '') : schemaPath.replace(/^#/, '');
  let node: unknown = file === undefined ? root : handWrittenSchema(file);
  for (const raw of fragment.split('/').filter(Boolean)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as SchemaObject)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node !== null && typeof node === 'object' ? (node as SchemaObject) : undefined;
}

/** The property names an object schema allows, its own and those of the schema it references. */
function allowedNames(node: SchemaObject | undefined): string[] {
  if (!node) return [];
  const own = Object.keys(node.properties ?? {});
  const ref = typeof node.$ref === 'string' && !node.$ref.startsWith('#') ? schemaNode({}, node.$ref) : undefined;
  return [...new Set([...own, ...Object.keys((ref?.properties ?? {}) as SchemaObject)])].filter((n) => n !== '$schema' && n !== '$comment');
}

/** What kind of object a path is: "a target profile", "a merges entry", "an agency work". */
function objectKind(path: string): string {
  if (path === '') return 'a target profile';
  const list = /(\w+)\[\d+\]$/.exec(path)?.[1];
  if (list === 'agencyWorks') return 'an agency work';
  return list ? `a ${list} entry` : `"${path}"`;
}

/** Hints for the fields a profile must have. */
const REQUIRED_HINTS: Record<string, string> = {
  agency: 'the agency the subscription key acts for, 3 characters, e.g. "128"',
  iswcs: 'a list of ISWCs that exist in the target, at least one, e.g. ["T0345246801"]',
  unknownIswcs: 'a list of well-formed ISWCs that do not exist in the target, at least one, e.g. ["T9999999994"]',
  preferredIswc: 'the ISWC this entry is about',
};

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the text ${JSON.stringify(value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'text in double quotes',
  array: 'a list [ … ]',
  object: 'an object { … }',
  integer: 'a whole number (no quotes)',
  number: 'a number (no quotes)',
  boolean: 'true or false',
};

const ISWC_PATTERN = '^T[0-9]{10}$';

function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

/** One Ajv error as a path and a sentence. */
function describe(e: ErrorObject, value: unknown): ProfileProblem {
  const p = e.params as Record<string, unknown>;
  const here = jsonPath(e.instancePath);
  const v = valueAt(value, e.instancePath);
  switch (e.keyword) {
    case 'required': {
      const missing = String(p.missingProperty);
      const hint = REQUIRED_HINTS[missing];
      return { path: jsonPath(e.instancePath, missing), message: `missing${hint ? ` (${hint})` : ''}` };
    }
    case 'type':
      return { path: here, message: `must be ${TYPE_NAMES[String(p.type)] ?? String(p.type)}, not ${describeValue(v)}` };
    case 'pattern':
      if (p.pattern === ISWC_PATTERN) return { path: here, message: `${JSON.stringify(v)} is not an ISWC: the letter T and 10 digits, no separators, e.g. T0345246801` };
      if (p.pattern === '\\S') return { path: here, message: 'must not be blank' };
      return { path: here, message: `${JSON.stringify(v)} does not match the pattern ${String(p.pattern)}` };
    case 'minLength':
    case 'maxLength': {
      const node = schemaNode({}, e.schemaPath.replace(/\/(minLength|maxLength)$/, ''));
      const length = typeof v === 'string' ? [...v].length : 0;
      if (node && node.minLength !== undefined && node.minLength === node.maxLength) return { path: here, message: `${JSON.stringify(v)} has ${length} characters; it must have exactly ${JSON.stringify(node.minLength)}` };
      return { path: here, message: `${JSON.stringify(v)} has ${length} characters; it must have ${e.keyword === 'minLength' ? 'at least' : 'at most'} ${String(p.limit)}` };
    }
    case 'minItems':
      return { path: here, message: `must list at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}; it is empty` };
    case 'uniqueItems':
      return { path: jsonPath(e.instancePath, Number(p.i)), message: `repeats ${jsonPath(e.instancePath, Number(p.j))} (${JSON.stringify((v as unknown[] | undefined)?.[Number(p.i)])}); list each once` };
    case 'enum':
      return { path: here, message: `${JSON.stringify(v)} is not one of ${(p.allowedValues as unknown[]).map((a) => JSON.stringify(a)).join(', ')}` };
    case 'minimum':
    case 'maximum':
      return { path: here, message: `${JSON.stringify(v)} is ${e.keyword === 'minimum' ? 'below' : 'above'} ${String(p.limit)}, the ${e.keyword === 'minimum' ? 'least' : 'most'} a 32-bit integer can be` };
    case 'format':
      return { path: here, message: `${JSON.stringify(v)} is not a ${String(p.format)} value` };
    case 'anyOf':
      if (/\/merges\/items\/anyOf$/.test(e.schemaPath)) return { path: here, message: 'has neither "iswcs" nor "agencyWorks": a merge entry carries at least one of them into its preferred ISWC' };
      return { path: here, message: 'does not have any of the allowed forms' };
    default:
      return { path: here, message: e.message ?? e.keyword };
  }
}

/**
 * Every Ajv error of a target profile as a problem a person can act on: unknown fields named, with the
 * field they most likely meant ("did you mean"); a misspelt required field said once, not twice; the
 * branches of an alternative folded into one line.
 */
export function profileProblems(errors: readonly ErrorObject[], value: unknown, schema: SchemaObject): ProfileProblem[] {
  const unknown = errors.filter((e) => e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties');
  const required = errors.filter((e) => e.keyword === 'required' && !/\/anyOf\/\d+\//.test(e.schemaPath));
  const out: ProfileProblem[] = [];
  const meant = new Set<string>();
  for (const e of unknown) {
    const p = e.params as Record<string, unknown>;
    const field = String(p.additionalProperty ?? p.unevaluatedProperty);
    const known = allowedNames(schemaNode(schema, e.schemaPath.replace(/\/(additional|unevaluated)Properties$/, '')));
    const guess = nearest(field, known);
    const missing = guess !== undefined && required.some((r) => r.instancePath === e.instancePath && (r.params as Record<string, unknown>).missingProperty === guess);
    if (missing && guess) meant.add(`${e.instancePath}\u0000${guess}`);
    const where = objectKind(jsonPath(e.instancePath));
    out.push({
      path: jsonPath(e.instancePath, field),
      message: guess ? `unknown field; did you mean "${guess}"${missing ? ' (a required field)' : ''}?` : `unknown field; the fields of ${where} are ${known.join(', ')}`,
    });
  }
  const anyOfPlaces = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const e of errors) {
    if (e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties') continue;
    // The branches of an alternative say the same as the alternative itself.
    if (/\/anyOf\/\d+\//.test(e.schemaPath)) continue;
    if (e.keyword === 'anyOf' && errors.some((o) => o !== e && o.instancePath === e.instancePath && !o.schemaPath.includes('/anyOf'))) continue;
    if (e.keyword === 'required' && meant.has(`${e.instancePath}\u0000${String((e.params as Record<string, unknown>).missingProperty)}`)) continue;
    if (e.keyword !== 'anyOf' && anyOfPlaces.has(e.instancePath) && e.schemaPath.includes('/anyOf')) continue;
    // "not an int32" next to "above the most a 32-bit integer can be" says it twice.
    if (e.keyword === 'format' && errors.some((o) => o !== e && o.instancePath === e.instancePath)) continue;
    out.push(describe(e, value));
  }
  const seen = new Set<string>();
  return out.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** `line 5, column 3` of a character offset in a text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
