import type { CheckId } from '../generate/checks.generated.ts';

/** What one part of a case sends and judges (the requests it adds to the case's core), from its dry run. */
export interface PartShape {
  id: string;
  title: string;
  after: readonly string[];
  requests: number;
  checks: CheckId[];
  cells: string[];
  /** The class of fault the part shows (CasePart.shows). */
  shows?: string;
}

/** What of a case's dry run (lib/run/dry-run.ts CaseShape) the parts are read from. */
interface CaseShape {
  parts?: PartShape[];
  checks: CheckId[];
  cells: string[];
  /** What the core's own steps judge (absent in a shape kept before it was recorded: a check a part also judges is then taken for the part's). */
  coreChecks?: CheckId[];
  coreCells?: string[];
}

/**
 * Parts of a case a request budget can take one at a time (CaseDef.parts, issue 31). A case with parts is
 * its core (the steps outside every part, always sent when the case runs) plus the parts the plan took,
 * each with the parts it comes after. What a selection of parts costs and exercises is read from the
 * case's dry run (CaseShape.parts); nothing here sends anything.
 */

/** The parts a selection takes: the given ones and every part they come after, in declaration order. */
export function closure(shape: Pick<CaseShape, 'parts'>, ids: readonly string[]): string[] {
  const parts = shape.parts ?? [];
  const taken = new Set<string>();
  const add = (id: string): void => {
    if (taken.has(id)) return;
    const part = parts.find((p) => p.id === id);
    if (!part) throw new Error(`no part "${id}" (parts: ${parts.map((p) => p.id).join(', ') || 'none'})`);
    taken.add(id);
    for (const before of part.after) add(before);
  };
  for (const id of ids) add(id);
  return parts.filter((p) => taken.has(p.id)).map((p) => p.id);
}

/** Whether a selection of parts is the whole case (every part, or a case without parts). */
export function isWhole(shape: Pick<CaseShape, 'parts'>, taken: readonly string[] | undefined): boolean {
  return taken === undefined || (shape.parts ?? []).every((p) => taken.includes(p.id));
}

/** Requests the parts a selection leaves out would have sent. */
export function leftOutRequests(shape: Pick<CaseShape, 'parts'>, taken: readonly string[] | undefined): number {
  if (taken === undefined) return 0;
  return (shape.parts ?? []).filter((p) => !taken.includes(p.id)).reduce((n, p) => n + p.requests, 0);
}

/** The parts a selection leaves out. */
export function leftOutParts(shape: Pick<CaseShape, 'parts'>, taken: readonly string[] | undefined): PartShape[] {
  if (taken === undefined) return [];
  return (shape.parts ?? []).filter((p) => !taken.includes(p.id));
}

/** Checks only the left-out parts exercise (the core and the taken parts exercise the rest). */
export function checksLeftOut(shape: Pick<CaseShape, 'parts' | 'checks' | 'coreChecks'>, taken: readonly string[] | undefined): CheckId[] {
  const out = leftOutParts(shape, taken);
  if (out.length === 0) return [];
  const partChecks = new Set((shape.parts ?? []).flatMap((p) => p.checks));
  const core = shape.coreChecks ?? shape.checks.filter((c) => !partChecks.has(c));
  const kept = new Set([...core, ...(shape.parts ?? []).filter((p) => taken?.includes(p.id)).flatMap((p) => p.checks)]);
  return [...new Set(out.flatMap((p) => p.checks))].filter((c) => !kept.has(c));
}

/** Checks a selection exercises: the core's and the taken parts'. */
export function checksTaken(shape: Pick<CaseShape, 'parts' | 'checks' | 'coreChecks'>, taken: readonly string[] | undefined): CheckId[] {
  const out = new Set(checksLeftOut(shape, taken));
  return shape.checks.filter((c) => !out.has(c));
}

/** Cells (operation × check × format) a selection judges. */
export function cellsTaken(shape: Pick<CaseShape, 'parts' | 'cells' | 'coreCells'>, taken: readonly string[] | undefined): string[] {
  const out = leftOutParts(shape, taken);
  if (out.length === 0) return shape.cells;
  const partCells = new Set((shape.parts ?? []).flatMap((p) => p.cells));
  const core = shape.coreCells ?? shape.cells.filter((c) => !partCells.has(c));
  const kept = new Set([...core, ...(shape.parts ?? []).filter((p) => taken?.includes(p.id)).flatMap((p) => p.cells)]);
  return shape.cells.filter((c) => kept.has(c));
}

/**
 * The selections a ranking weighs for a case with parts: its core alone (when the core judges anything),
 * then each part with what it comes after, then the whole case. Each selection is closed (a part never
 * comes without what it builds on).
 */
export function selections(shape: Pick<CaseShape, 'parts'>): string[][] {
  const parts = shape.parts ?? [];
  if (parts.length === 0) return [];
  const seen = new Set<string>();
  const out: string[][] = [];
  const add = (ids: string[]): void => {
    const key = ids.join('\u0001');
    if (seen.has(key)) return;
    seen.add(key);
    out.push(ids);
  };
  add([]);
  for (const p of parts) add(closure(shape, [p.id]));
  add(parts.map((p) => p.id));
  return out;
}
