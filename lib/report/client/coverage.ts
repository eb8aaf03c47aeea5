import type { OperationId } from '../../contract/operations.ts';
import { OPERATION_IDS, operations } from '../../contract/operations.ts';
import { answersText, cellLabel } from './labels.ts';
import type { CellFormat, ClientCoverage, ExercisedCell, MissingCell } from './model.ts';

/** What the session saw of one operation × format (lib/sandbox/cells.ts). */
export interface SeenCell {
  operation: OperationId;
  format: CellFormat;
  requests: number;
  succeeded: number;
  answers: Record<string, number>;
}

/** What the client declares it does (--operations, --formats). */
export interface Declared {
  /** Null: all four (the default). */
  operations: readonly OperationId[] | null;
  /** Null: for each operation with a body, the formats the client sent it in. */
  formats: ReadonlyArray<'json' | 'xml'> | null;
}

const hasBody = new Set(operations().filter((op) => op.body !== null).map((op) => op.id));

function missingReason(cell: SeenCell | undefined): string {
  if (!cell || cell.requests === 0) return 'never sent';
  return `sent ${cell.requests} time${cell.requests === 1 ? '' : 's'}, never succeeded (${answersText(cell.answers)})`;
}

/**
 * The coverage of a session: every operation × format the client exercised, which of them it declared
 * (each must have succeeded at least once), and the declared ones that never did, with why.
 */
export function clientCoverage(seen: readonly SeenCell[], declared: Declared): ClientCoverage {
  const ops = declared.operations ?? OPERATION_IDS;
  const wanted = new Set(ops);
  const key = (op: OperationId, format: CellFormat): string => `${op} ${format}`;
  const byKey = new Map(seen.map((c) => [key(c.operation, c.format), c]));
  const required = new Set<string>();
  const missing: MissingCell[] = [];
  for (const op of OPERATION_IDS) {
    if (!wanted.has(op)) continue;
    if (!hasBody.has(op)) {
      required.add(key(op, 'none'));
      const cell = byKey.get(key(op, 'none'));
      if (!cell || cell.succeeded === 0) missing.push({ operation: op, format: 'none', reason: missingReason(cell) });
      continue;
    }
    const sentIn = (['json', 'xml'] as const).filter((f) => (byKey.get(key(op, f))?.requests ?? 0) > 0);
    const formats = declared.formats ?? sentIn;
    if (formats.length === 0) {
      // Sent with no body (or none at all): the operation needs a JSON or XML body to succeed.
      const bare = byKey.get(key(op, 'none'));
      missing.push({ operation: op, format: 'any', reason: bare ? `sent ${bare.requests} time${bare.requests === 1 ? '' : 's'} without a JSON or XML body, never succeeded (${answersText(bare.answers)})` : 'never sent' });
      continue;
    }
    for (const f of formats) {
      required.add(key(op, f));
      const cell = byKey.get(key(op, f));
      if (!cell || cell.succeeded === 0) missing.push({ operation: op, format: f, reason: missingReason(cell) });
    }
  }
  const cells: ExercisedCell[] = [];
  const listed = new Set<string>();
  for (const c of seen) {
    listed.add(key(c.operation, c.format));
    cells.push({ operation: c.operation, format: c.format, requests: c.requests, succeeded: c.succeeded, answers: { ...c.answers }, declared: required.has(key(c.operation, c.format)) });
  }
  // A declared cell the client never sent is listed too: the report shows what was asked and not done.
  for (const m of missing) {
    if (m.format === 'any' || listed.has(key(m.operation, m.format))) continue;
    cells.push({ operation: m.operation, format: m.format, requests: 0, succeeded: 0, answers: {}, declared: true });
  }
  const order = (c: ExercisedCell): number => OPERATION_IDS.indexOf(c.operation) * 3 + ['json', 'xml', 'none'].indexOf(c.format);
  cells.sort((a, b) => order(a) - order(b));
  return { operations: [...ops], operationsFrom: declared.operations === null ? 'default' : 'option', formats: declared.formats === null ? null : [...declared.formats], cells, missing };
}

/** The declared operations × formats that succeeded, for the verdict and the certificate: "run notification JSON, merge JSON, …". */
export function succeededText(coverage: ClientCoverage): string {
  return coverage.cells.filter((c) => c.declared && c.succeeded > 0).map((c) => cellLabel(c.operation, c.format)).join(', ');
}

/** Why the declared operations were not all achieved, in one line: "demerge never sent; merge JSON sent 3 times, never succeeded (403 ×3)". */
export function missingText(coverage: ClientCoverage): string {
  const all = coverage.missing;
  const total = coverage.cells.reduce((n, c) => n + c.requests, 0);
  if (all.length > 0 && total > 0 && coverage.cells.every((c) => c.succeeded === 0)) {
    const answers: Record<string, number> = {};
    for (const c of coverage.cells) for (const [a, n] of Object.entries(c.answers)) answers[a] = (answers[a] ?? 0) + n;
    return `nothing succeeded: every one of the ${total} request${total === 1 ? '' : 's'} of the documented operations was refused (${answersText(answers)})`;
  }
  return all.map((m) => `${cellLabel(m.operation, m.format)} ${m.reason}`).join('; ');
}
