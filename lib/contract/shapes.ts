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

const ISWC = 'Iswc';

const LISTS = new Map<OperationId, BodyList[]>();

/** The component a `$ref` names (`#/components/schemas/AgencyCode` → `AgencyCode`). */
const refName = (node: unknown): string | undefined => {
  const ref = (node as { $ref?: unknown }).$ref;
  return typeof ref === 'string' ? ref.split('/').pop() : undefined;
};

/** The lists of an operation's request body, in the schema's order (derived once: the schema does not change). */
export function listsOf(opId: OperationId): BodyList[] {
  const known = LISTS.get(opId);
  if (known) return known;
  const op = operation(opId);
  const lists = !op.body
    ? []
    : Object.entries(resourceSchema(op.body.resource).properties ?? {}).flatMap(([name, raw]): BodyList[] => {
        const node = raw as { type?: unknown; items?: unknown };
        if (node.type !== 'array') return [];
        const ref = refName(node.items);
        const lookedUp = ref === ISWC && op.statuses.includes(404);
        // Named again by a later request: another operation's query names every field of the item (the
        // demerge's agency and workcode name an agency work, 4.4); an ISWC, which has no fields, never is.
        const fields = ref !== undefined && ref !== ISWC ? Object.values(resourceSchema(ref as ResourceName).properties ?? {}).map(refName) : [];
        const shown = fields.length > 0 && operations().some((o) => o.id !== opId && fields.every((f) => f !== undefined && o.params.some((p) => p.component === f)));
        return [{ name, lookedUp, shown }];
      });
  LISTS.set(opId, lists);
  return lists;
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
