import { createHash } from 'node:crypto';
import type { CheckExecution } from '../run/execution.ts';

/** Stable identity of an execution across runs: what the diff, the merge test and failure ids key on. */
export function executionKey(e: Pick<CheckExecution, 'caseId' | 'format' | 'step' | 'checkId'>): string {
  return `${e.caseId}\u0001${e.format}\u0001${e.step}\u0001${e.checkId}`;
}

/** Hex digits of a failure id: short enough to type, long enough not to collide within a run (32 bits). */
export const FAILURE_ID_LENGTH = 8;

/**
 * The short id of a failure: the first 8 hex digits of the SHA-256 of its execution key (case, format,
 * step, check). The same failure gets the same id in every report of the run and in later runs that
 * fail the same way, so `replay <id>` finds it, whichever writer printed it.
 */
export function failureId(e: Pick<CheckExecution, 'caseId' | 'format' | 'step' | 'checkId'>): string {
  return createHash('sha256').update(executionKey(e), 'utf8').digest('hex').slice(0, FAILURE_ID_LENGTH);
}

/** Failures and waived failures carry an id: they are what a person replays. */
export function hasFailureId(e: Pick<CheckExecution, 'verdict'>): boolean {
  return e.verdict === 'fail' || e.verdict === 'waived';
}

function shellWord(text: string): string {
  return /^[\w./:@-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * `npx iswc-conformance replay <id> --report <file>`: the command printed next to a failure. `baseUrl`
 * (the console of the run's own caller only, never a report file someone else may read): the target to
 * name, since replay sends the key only to a target its caller names.
 */
export function replayCommand(id: string, reportFile: string, baseUrl?: string): string {
  return `npx iswc-conformance replay ${id} --report ${shellWord(reportFile)}${baseUrl !== undefined ? ` --base-url ${shellWord(baseUrl)}` : ''}`;
}
