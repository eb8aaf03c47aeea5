import type { OperationId } from '../../contract/operations.ts';
import { OPERATION_LABEL } from '../../contract/operations.ts';
import type { CellFormat, TroubleKind } from './model.ts';

/** How the client reports and the console name operations, answers and trouble. */

/** "run notification JSON", "submission delete": an operation × format as the reports name it. */
export function cellLabel(operation: OperationId, format: CellFormat | 'any'): string {
  const label = OPERATION_LABEL[operation];
  return format === 'none' ? label : format === 'any' ? `${label} (JSON or XML)` : `${label} ${format.toUpperCase()}`;
}

/** "403 ×4, reset ×1" from the answers of a cell, most frequent first. */
export function answersText(answers: Record<string, number>): string {
  return Object.entries(answers)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([answer, n]) => `${answer === 'none' ? 'no answer' : answer} ×${n}`)
    .join(', ');
}

/** `503@4`, `503@4x10`, `503@4for60s`: how --inject and the reports write an injection. */
export function injectionText(i: { kind: TroubleKind; at: number; times?: number; forSeconds?: number }): string {
  const seconds = i.forSeconds;
  const span = i.times !== undefined ? `x${i.times}` : seconds !== undefined ? `for${seconds < 1 ? `${Math.round(seconds * 1000)}ms` : `${seconds}s`}` : '';
  return `${i.kind}@${i.at}${span}`;
}
