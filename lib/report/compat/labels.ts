import { OPERATION_IDS, OPERATION_LABEL } from '../../contract/operations.ts';
import type { OperationId } from '../../contract/operations.ts';
import type { CellFormat, CompatCell, CompatReport, CompatVerdict, Counts } from './model.ts';

/** How the compatibility reports name columns, verdicts and counts: one place for the four writers. */

export const VERDICT_WORD: Record<CompatVerdict, string> = { compatible: 'compatible', changed: 'changed', broken: 'broken', skipped: 'not replayed' };
/** A cell's or an agency's verdict: one whose exchanges were not all judged is "not judged", never compatible. */
export const SET_VERDICT_WORD: Record<CompatVerdict, string> = { ...VERDICT_WORD, skipped: 'not judged' };
export const VERDICT_MARK: Record<CompatVerdict, string> = { compatible: '✅', changed: '🟡', broken: '❌', skipped: '⏭️' };
/** Marks any font has (the HTML page is read offline, where emoji may be missing). */
export const VERDICT_SIGN: Record<CompatVerdict, string> = { compatible: '✓', changed: '≠', broken: '✗', skipped: '–' };
export const VERDICT_COLOURS: Record<CompatVerdict, { background: string; text: string }> = {
  compatible: { background: '#c8e6c9', text: '#1b5e20' },
  changed: { background: '#ffe082', text: '#6d4c00' },
  broken: { background: '#ef9a9a', text: '#7f0000' },
  skipped: { background: '#e0e0e0', text: '#555555' },
};

const FORMAT_ORDER: readonly CellFormat[] = ['json', 'xml', 'none'];

/** "run notification XML", "demerge", "outside the documented operations". */
export function columnLabel(operation: OperationId | 'other', format: CellFormat): string {
  const label = operation === 'other' ? 'outside the documented operations' : OPERATION_LABEL[operation];
  return format === 'none' ? label : `${label} ${format.toUpperCase()}`;
}

export function operationName(operation: OperationId | 'other'): string {
  return operation === 'other' ? 'outside the documented operations' : OPERATION_LABEL[operation];
}

/** The matrix's columns: every operation × format some agency sent, in document order, then JSON, XML, none. */
export function columnsOf(report: Pick<CompatReport, 'cells'>): Array<{ operation: OperationId | 'other'; format: CellFormat }> {
  const ops: ReadonlyArray<OperationId | 'other'> = [...OPERATION_IDS, 'other'];
  const seen = new Set(report.cells.map((c) => `${c.operation} ${c.format}`));
  const out: Array<{ operation: OperationId | 'other'; format: CellFormat }> = [];
  for (const operation of ops) for (const format of FORMAT_ORDER) if (seen.has(`${operation} ${format}`)) out.push({ operation, format });
  return out;
}

export function cellOf(report: Pick<CompatReport, 'cells'>, agency: string, operation: OperationId | 'other', format: CellFormat): CompatCell | undefined {
  return report.cells.find((c) => c.agency === agency && c.operation === operation && c.format === format);
}

/** "2 broken · 1 compatible". */
export function countsText(counts: Counts): string {
  return (['broken', 'changed', 'compatible', 'skipped'] as const)
    .filter((v) => counts[v] > 0)
    .map((v) => `${counts[v]} ${VERDICT_WORD[v]}`)
    .join(' · ');
}

/** The anchor of a cell's exchanges in the HTML page. */
export function cellAnchor(agency: string, operation: string, format: string): string {
  return `cell-${agency}-${operation}-${format}`.replace(/[^A-Za-z0-9_-]/g, '_');
}
