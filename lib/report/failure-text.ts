import type { CheckExecution } from '../run/execution.ts';
import { waivedText } from './waivers/apply.ts';

/** How a gating failure reads in the console and in every report: section, expected, received, replay. */
export function describeFailure(e: CheckExecution): string {
  return [
    `${e.checkId} [${e.level}, section ${e.sections.join(', ')}] ${e.caseId} / ${e.step} (${e.format})`,
    `  Documented: ${e.expected ?? ''}`,
    `  Received:   ${e.received ?? ''}`,
    ...(e.curl ? [`  Reproduce with: ${e.curl}`] : []),
  ].join('\n');
}

/** How a waived failure reads in a test's annotations. */
export function describeWaived(e: CheckExecution): string {
  return `${e.checkId} [${e.level}, section ${e.sections.join(', ')}] ${e.caseId} / ${e.step} (${e.format}): ${e.waiver ? waivedText(e.waiver) : 'waived'}`;
}
