import type { ResourceName } from './json-schema.ts';
import { resourceSchema } from './constraints.ts';
import type { OperationId } from './operations.ts';
import { operation, operations } from './operations.ts';

/**
 * Request shapes (issue 38), derived from the lists of each request body in schemas/: which lists a body
 * carries items in, and whether it names one item or several (for the merge: ISWCs only, agency works only,
 * or both; one item or several). A server may treat one shape apart, so a gating role (the key, an item
 * refused, the outcome) is proven on each shape; the reference server's shape family
 * (server/shape-faults.ts) plays a server that leaves one role undone on one shape.
 */

/** A request shape: the lists that carry items, and whether the body names one item or several. */
export interface RequestShape {
  lists: readonly string[];
  count: 'one' | 'several';
}

export interface BodyList {
  name: string;
  /** Items of the list are what the operation's 404 names (an ISWC). */
  lookedUp: boolean;
  /** A later request names its items, so what was done with them shows (an agency work, demerged by 4.4). */
  shown: boolean;
}

const ISWC_REF = '#/components/schemas/Iswc';

/** The lists of an operation's request body, in the schema's order. */
export function listsOf(opId: OperationId): BodyList[] {
  const op = operation(opId);
  if (!op.body) return [];
  // Components a query of another operation names: an item holding one is named again by a later request.
  const namedLater = new Set(operations().filter((o) => o.id !== opId).flatMap((o) => o.params.filter((p) => p.name !== 'preferredIswc').map((p) => p.component)));
  return Object.entries(resourceSchema(op.body.resource).properties ?? {}).flatMap(([name, raw]): BodyList[] => {
    const node = raw as { type?: unknown; items?: { $ref?: string } };
    if (node.type !== 'array') return [];
    const ref = node.items?.$ref;
    const lookedUp = ref === ISWC_REF && op.statuses.includes(404);
    // An agency work is named again by the demerge's agency and workcode (4.4); an ISWC only ever as the preferred one.
    const itemProps = ref !== undefined && ref !== ISWC_REF ? Object.values(resourceSchema(ref.split('/').pop() as ResourceName).properties ?? {}) : [];
    const shown = itemProps.some((p) => typeof (p as { $ref?: unknown }).$ref === 'string' && namedLater.has(((p as { $ref: string }).$ref.split('/').pop() ?? '')));
    return [{ name, lookedUp, shown }];
  });
}

/** Every shape of an operation's body that names at least one item: each non-empty set of lists, one item or several. */
export function shapesOf(opId: OperationId): RequestShape[] {
  const lists = listsOf(opId).map((l) => l.name);
  const out: RequestShape[] = [];
  for (let mask = 1; mask < 1 << lists.length; mask++) {
    const present = lists.filter((_, i) => (mask & (1 << i)) !== 0);
    if (present.length === 1) out.push({ lists: present, count: 'one' });
    out.push({ lists: present, count: 'several' });
  }
  return out;
}

/** A shape's name in fault ids and reports: `iswcs.one`, `agencyWorks.several`, `iswcs+agencyWorks`. */
export function shapeSlug(shape: RequestShape): string {
  return shape.lists.length > 1 ? shape.lists.join('+') : `${shape.lists.join('+')}.${shape.count}`;
}

/** A shape in words: "one item of iswcs alone", "several items of agencyWorks", "items of iswcs and agencyWorks together". */
export function shapeWords(shape: RequestShape): string {
  const lists = shape.lists.join(' and ');
  if (shape.lists.length > 1) return `items of ${lists} together`;
  return shape.count === 'one' ? `one item of ${lists} alone` : `several items of ${lists}`;
}

/** The shape of a decoded body; undefined when it names no item (or is not an object). */
export function shapeOfBody(opId: OperationId, value: unknown): RequestShape | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  let items = 0;
  const lists: string[] = [];
  for (const { name } of listsOf(opId)) {
    const list = record[name];
    if (Array.isArray(list) && list.length > 0) {
      lists.push(name);
      items += list.length;
    }
  }
  return lists.length === 0 ? undefined : { lists, count: items === 1 ? 'one' : 'several' };
}

/** For each shape, a body of that shape built from the items given per list (the first item, or all of them); shapes the items cannot fill are left out. */
export function bodiesOfShapes(opId: OperationId, items: Readonly<Record<string, readonly unknown[]>>, base: Record<string, unknown> = {}): Array<{ shape: RequestShape; body: Record<string, unknown> }> {
  const names = listsOf(opId).map((l) => l.name);
  return shapesOf(opId).flatMap((shape) => {
    const body: Record<string, unknown> = { ...base };
    for (const name of names) body[name] = [];
    for (const name of shape.lists) {
      const given = items[name] ?? [];
      const taken = shape.lists.length === 1 && shape.count === 'one' ? given.slice(0, 1) : given;
      if (taken.length === 0) return [];
      body[name] = [...taken];
    }
    const actual = shapeOfBody(opId, body);
    return actual !== undefined && shapeSlug(actual) === shapeSlug(shape) ? [{ shape, body }] : [];
  });
}
