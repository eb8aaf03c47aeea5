import type { OperationId } from '../lib/contract/operations.ts';
import { operations } from '../lib/contract/operations.ts';
import type { RequestShape } from '../lib/contract/shapes.ts';
import { listsOf, shapeOfBody, shapeSlug, shapesOf, shapeWords } from '../lib/contract/shapes.ts';
import { OPERATION_SHORT } from './lenient.ts';

/**
 * The request-shape family (issue 38), derived from the request shapes of lib/contract/shapes.ts (which
 * lists a body carries items in; one item or several): a server that treats one shape of request apart,
 * and there leaves a gating role undone. For each shape:
 *
 * - `shape.<operation>.key.<shape>`: the key is not checked (a server that checks it where the body names
 *   an agency, or only on the shape its tests sent): served without a key or with a wrong one;
 * - `shape.<operation>.accept.<shape>`: a valid request of that shape is refused (400);
 * - `shape.<operation>.broken.<shape>`: items that break their schema are dropped unread, the others
 *   acted on, and the request succeeds;
 * - `shape.<operation>.unknown.<shape>`: items the server does not have are dropped, and the request
 *   succeeds; only on shapes carrying a list of what the operation's 404 names (ISWCs: "ISWC not found");
 * - `shape.<operation>.outcome.<shape>`: the request succeeds and nothing of it is done; only on shapes
 *   carrying a list whose effect a later request shows (agency works: a demerge names one, 4.4; an ISWC is
 *   never named by a later request, docs/readings.md, "A merge of ISWCs").
 *
 * Everything else stays correct, so each member is one change of the reference server.
 */

export const SHAPE_ROLES = ['key', 'accept', 'broken', 'unknown', 'outcome'] as const;
export type ShapeRole = (typeof SHAPE_ROLES)[number];

export type ShapeFaultId = `shape.${string}`;

const ROLE_TEXT: Record<ShapeRole, string> = {
  key: 'is served without checking the key: without one, or with a wrong one, it succeeds',
  accept: 'is refused (400) though valid',
  broken: 'has its items that break their schema dropped unread, the others acted on, and succeeds',
  unknown: 'has its items the server does not have dropped, the others acted on, and succeeds',
  outcome: 'succeeds and nothing of it is done',
};

const ROLE_SECTION: Record<ShapeRole, string> = { key: '5', accept: '2.3', broken: '2.3, 2.4', unknown: '3', outcome: '3' };

interface ShapeFault {
  id: ShapeFaultId;
  level: 'spec';
  section: string;
  description: string;
  operation: OperationId;
  role: ShapeRole;
  shape: RequestShape;
}

function roleApplies(opId: OperationId, role: ShapeRole, shape: RequestShape): boolean {
  const lists = listsOf(opId).filter((l) => shape.lists.includes(l.name));
  if (role === 'unknown') return lists.some((l) => l.lookedUp);
  if (role === 'outcome') return lists.some((l) => l.shown);
  return true;
}

export const SHAPE_FAULTS: readonly ShapeFault[] = operations().flatMap((op) =>
  shapesOf(op.id).flatMap((shape) =>
    SHAPE_ROLES.filter((role) => roleApplies(op.id, role, shape)).map(
      (role): ShapeFault => ({
        id: `shape.${OPERATION_SHORT[op.id]}.${role}.${shapeSlug(shape)}`,
        level: 'spec',
        section: [...new Set([ROLE_SECTION[role], op.section])].join(', '),
        description: `${op.summary}: a request whose body names ${shapeWords(shape)} ${ROLE_TEXT[role]}; every other shape is served correctly.`,
        operation: op.id,
        role,
        shape,
      }),
    ),
  ),
);

const IDS: ReadonlySet<string> = new Set(SHAPE_FAULTS.map((f) => f.id));

export function isShapeFaultId(id: string): id is ShapeFaultId {
  return IDS.has(id);
}

/** Does a server with these faults leave `role` undone on a request of this operation with this body? */
export function shapeRoleSkipped(has: (id: ShapeFaultId) => boolean, opId: OperationId, role: ShapeRole, value: unknown): boolean {
  const shape = shapeOfBody(opId, value);
  return shape !== undefined && has(`shape.${OPERATION_SHORT[opId]}.${role}.${shapeSlug(shape)}`);
}

/** Does a set of fault ids hold a member of the family for this role (read ahead only then)? */
export function anyShapeRole(ids: Iterable<string>, role: ShapeRole): boolean {
  for (const id of ids) if (isShapeFaultId(id) && id.split('.')[2] === role) return true;
  return false;
}
