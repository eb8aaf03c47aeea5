import type { CheckExecution } from '../run/execution.ts';
import type { ReplayTarget } from './identity.ts';
import { failureId, replayCommand } from './identity.ts';
import { waivedText } from './waivers/apply.ts';

/**
 * How a gating failure reads in the console and in every report: section, expected, received, replay
 * (the curl line, and, given where the run writes its report, the replay command of the failure's id).
 */
export function describeFailure(e: CheckExecution, replay?: ReplayTarget): string {
  const id = e.failureId ?? failureId(e);
  return [
    `${e.checkId} [${e.level}, section ${e.sections.join(', ')}] ${e.caseId} / ${e.step} (${e.format})`,
    `  Documented: ${e.expected ?? ''}`,
    `  Received:   ${e.received ?? ''}`,
    ...(e.generated ? [`  Generated:  ${e.generated}`] : []),
    ...(e.curl ? [`  Reproduce with: ${e.curl}`] : []),
    ...(replay !== undefined ? [`  Replay failure ${id}: ${replayCommand(id, replay)}`] : []),
  ].join('\n');
}

/** How a waived failure reads in a test's annotations. */
export function describeWaived(e: CheckExecution): string {
  return `${e.checkId} [${e.level}, section ${e.sections.join(', ')}] ${e.caseId} / ${e.step} (${e.format}): ${e.waiver ? waivedText(e.waiver) : 'waived'}`;
}
