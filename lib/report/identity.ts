import { createHash } from 'node:crypto';
import path from 'node:path';
import { DEFAULTS } from '../config/defaults.ts';
import { shownPath } from '../foundation/paths.ts';
import type { CheckExecution } from '../run/execution.ts';
import type { ReplayFiles, RunMeta } from './model.ts';

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

/** A word as a POSIX shell reads it back: quoted unless it is plain. */
export function shellWord(text: string): string {
  return /^[\w./:@-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** What a replay command names: the report, the run's profile when not the default, and the target the key goes to. */
export interface ReplayTarget {
  report: string;
  target?: string;
  baseUrl?: string;
}

/**
 * `npx iswc-conformance replay <id> --report <file> [--target <profile>] [--base-url <url>]`: the command
 * every output prints next to a failure, complete, so that it runs as printed from the directory the run
 * was started in: replay needs the run's profile when it was not the default, and sends the key only to a
 * target its caller names (--base-url), never to one a report names.
 */
export function replayCommand(id: string, t: ReplayTarget): string {
  return `npx iswc-conformance replay ${id} ${replayArgs(t)}`;
}

/** The options of a replay command after its id: `--report FILE [--target FILE] [--base-url URL]`. */
export function replayArgs(t: ReplayTarget): string {
  return `--report ${shellWord(t.report)}${t.target !== undefined ? ` --target ${shellWord(t.target)}` : ''}${t.baseUrl !== undefined ? ` --base-url ${shellWord(t.baseUrl)}` : ''}`;
}

/**
 * The replay target of a report's failures, from what its run recorded: the report file and profile as the
 * run's caller typed them, and the base URL of a run not made against the embedded server. A report of an
 * earlier version, or built in-process, names `fallbackReport` (a file next to the writer's output).
 */
export function replayTargetOf(meta: Pick<RunMeta, 'replay' | 'embedded' | 'baseUrl'>, fallbackReport = 'conformance.json'): ReplayTarget {
  return {
    report: meta.replay?.report ?? fallbackReport,
    ...(meta.replay?.target !== undefined ? { target: meta.replay.target } : {}),
    ...(!meta.embedded && meta.baseUrl ? { baseUrl: meta.baseUrl } : {}),
  };
}

/** The report file and the profile (when not the default) of a run, as its caller types them. */
export function replayFilesOf(cfg: { reportDir: string; targetFile: string }): ReplayFiles {
  const target = path.resolve(cfg.targetFile) === path.resolve(DEFAULTS.targetFile) ? undefined : shownPath(cfg.targetFile);
  return { report: shownPath(path.join(cfg.reportDir, 'conformance.json')), ...(target !== undefined ? { target } : {}) };
}
