import type { ResourceName } from './json-schema.ts';
import type { SchemaNode } from './openapi.ts';
import { componentName, deref, openApi } from './openapi.ts';
import type { OperationId } from './operations.ts';
import { operations } from './operations.ts';

/**
 * One field of a request that the document constrains, with its limits read from `schemas/openapi.yaml`.
 * Generators and limit checks iterate this list; no limit is typed anywhere else.
 */
export interface FieldConstraint {
  /** Stable id: `<operationId>.<body|query>.<path>`, e.g. `mergeIswcMetadata.body.agencyWorks[].agencyCode`. */
  id: string;
  operation: OperationId;
  location: 'body' | 'query';
  /** Field path inside the body (`agencyWorks[].agencyCode`) or the query parameter name. */
  field: string;
  /** Leaf property name (`agencyCode`). */
  name: string;
  /** Component the field's schema comes from, when it is a reference (AgencyCode, Int32, Iswc, ...). */
  component?: string;
  type: 'string' | 'integer';
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  /** Sections of the document that state the field and its limit. */
  sections: string[];
  /** False for a query parameter whose limit the document does not state (QueryParameter.limitStated). */
  limitStated?: false;
}

/** Does the field carry a limit stated by the document (length, pattern or range)? */
export function isLimited(c: FieldConstraint): boolean {
  return c.minLength !== undefined || c.maxLength !== undefined || c.pattern !== undefined || c.minimum !== undefined || c.maximum !== undefined;
}

/** The constraint as a schema node, to let the validator decide validity. */
export function constraintSchema(c: FieldConstraint): SchemaNode {
  // One node per constraint, so that its compiled validator is found by the node (lib/contract/validators.ts).
  let node = constraintSchemas.get(c);
  if (!node) {
    const built: Record<string, unknown> = { type: c.type };
    for (const key of ['minLength', 'maxLength', 'pattern', 'minimum', 'maximum'] as const) if (c[key] !== undefined) built[key] = c[key];
    node = Object.freeze(built);
    constraintSchemas.set(c, node);
  }
  return node;
}

const constraintSchemas = new WeakMap<FieldConstraint, SchemaNode>();

/**
 * The merge's query `agency`: "the agency submitting the merge request" (4.2). It names no data, and section
 * 8 states the limit of the body field agencyCode, not of this parameter; so no limit is demanded of it.
 * The query values of delete and demerge name data, and a value past the field's limits names nothing.
 */
export function namesOnlySubmitter(c: Pick<FieldConstraint, 'operation' | 'location' | 'field'>): boolean {
  return c.operation === 'mergeIswcMetadata' && c.location === 'query' && c.field === 'agency';
}

/**
 * Does a request look data up by this field? The run notification stores its fields (2.1) and looks
 * nothing up by them; the items of a merge and the query values of merge, delete and demerge name data.
 */
export function namesData(c: Pick<FieldConstraint, 'operation'>): boolean {
  return c.operation !== 'notifyAgentRun';
}

/** Sections named in a schema description, written as "(2.1, 2.4, 8)". */
export function sectionsOf(node: SchemaNode | undefined): string[] {
  const match = /\(((?:\d+(?:\.\d+)?)(?:,\s*\d+(?:\.\d+)?)*)\)/.exec(node?.description ?? '');
  return match?.[1] ? match[1].split(/,\s*/) : [];
}

function leaf(
  base: Omit<FieldConstraint, 'type' | 'sections' | 'component'>,
  raw: SchemaNode,
  extraSections: string[],
): FieldConstraint | null {
  const node = deref(raw);
  if (node.type !== 'string' && node.type !== 'integer') return null;
  const component = raw.$ref ? componentName(raw.$ref) : undefined;
  const out: FieldConstraint = { ...base, type: node.type, sections: extraSections };
  if (component) out.component = component;
  for (const key of ['minLength', 'maxLength', 'pattern', 'minimum', 'maximum'] as const) {
    const value = node[key];
    if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
  }
  // Section 8 restates every limit of sections 2 and 4.3.
  if (isLimited(out)) out.sections = [...new Set([...extraSections, '8'])];
  return out;
}

function walkBody(operation: OperationId, raw: SchemaNode, prefix: string, sections: string[], out: FieldConstraint[]): void {
  const node = deref(raw);
  const here = [...new Set([...sections, ...sectionsOf(node)])];
  for (const [name, propRaw] of Object.entries(node.properties ?? {})) {
    const prop = deref(propRaw);
    const field = prefix ? `${prefix}.${name}` : name;
    if (prop.type === 'array' && prop.items) {
      const items = deref(prop.items);
      if (items.type === 'object') {
        walkBody(operation, prop.items, `${field}[]`, here, out);
      } else {
        const c = leaf({ id: `${operation}.body.${field}[]`, operation, location: 'body', field: `${field}[]`, name }, prop.items, here);
        if (c) out.push(c);
      }
    } else if (prop.type === 'object') {
      walkBody(operation, propRaw, field, here, out);
    } else {
      const c = leaf({ id: `${operation}.body.${field}`, operation, location: 'body', field, name }, propRaw, here);
      if (c) out.push(c);
    }
  }
}

let cache: FieldConstraint[] | undefined;

/** Every constrained field of every operation, bodies first, in document order. */
export function fieldConstraints(): FieldConstraint[] {
  if (cache) return cache;
  const out: FieldConstraint[] = [];
  for (const op of operations()) {
    if (op.body) walkBody(op.id, { $ref: `#/components/schemas/${op.body.resource}` }, '', [], out);
    for (const param of op.params) {
      const raw: SchemaNode = param.component ? { $ref: `#/components/schemas/${param.component}` } : param.schema;
      const c = leaf({ id: `${op.id}.query.${param.name}`, operation: op.id, location: 'query', field: param.name, name: param.name }, raw, [op.section]);
      if (c) out.push(param.limitStated ? c : { ...c, limitStated: false });
    }
  }
  cache = out;
  return out;
}

export function constraintsOf(operation: OperationId): FieldConstraint[] {
  return fieldConstraints().filter((c) => c.operation === operation);
}

/** The schema component of a resource (for codecs and generators). */
export function resourceSchema(resource: ResourceName): SchemaNode {
  const node = openApi().components.schemas[resource];
  if (!node) throw new Error(`Unknown resource ${resource}`);
  return node;
}
