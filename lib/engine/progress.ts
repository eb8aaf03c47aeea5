import type { ConsumedEntry } from '../report/consumed.ts';
import { clock } from '../report/figures.ts';
import type { RunFigures } from '../report/model.ts';

export { clock };
import type { RunHalt } from '../report/outcome.ts';

/** Where the run's engine leaves its progress for the reporters of its process (they outlive the global teardown). */
export const PROGRESS_SLOT = Symbol.for('iswc-conformance.run-progress');

/**
 * The progress of a long run: on a terminal, one live line redrawn every second; without one (CI), a
 * line every 30 seconds while the run is sending. Requests sent of those planned, gating failures so
 * far, time elapsed, the time left at the pace so far, and the time spent waiting on throttling.
 */

/** What the run has done so far (the progress line reads it): the run's figures, and what bounds it. */
export interface EngineProgress extends RunFigures {
  /** Gating check failures so far. */
  failures: number;
  /** When the engine started (performance.now() time origin). */
  startedAtMs: number;
  /** ISWC_RATE in requests per second, or null for no limit: the pace can be no faster. */
  rate: number | null;
  /** ISWC_BUDGET, when the run has one: no more than this is sent, resends included. */
  budget?: number;
  /** When --max-duration stops the run (performance.now() time), when it has one. */
  deadlineAtMs?: number;
  /** Why the run stopped sending, once it did. */
  halt?: RunHalt;
  /** Disposable entries consumed so far (this run's, and an earlier run's not found back), for the report. */
  consumed?: ConsumedEntry[];
  /** Why the cases on entries an earlier run consumed were not judged, once one was found (lib/report/consumed.ts). */
  consumedReason?: string;
  /** Refusals of entries the run consumes that no earlier report explains: what to check (lib/report/consumed.ts, hint). */
  consumedHint?: string;
  /** The faults of the catalogue the cases run so far tried, and the measurement that says so (lib/run/tried.ts). */
  tried?: { faults: string[]; catalogue: string };
}

/** Between two lines in a log without a terminal. */
export const LOG_INTERVAL_MS = 30_000;
/** Between two redraws of the live line on a terminal. */
export const LIVE_INTERVAL_MS = 1_000;

/**
 * One line: `48 of 60 planned requests sent (80%) · sent 60 (12 resends) · answered 59 · 3 failures ·
 * 4m10s elapsed · about 1m12s left at this pace · 20s waiting on throttling`. The share counts first
 * sends only (resends are shown apart), so it never passes 100%; the time left is never more than what
 * --max-duration leaves, nor than the budget allows.
 */
export function progressLine(p: EngineProgress, nowMs: number): string {
  const elapsed = nowMs - p.startedAtMs;
  const first = Math.max(0, p.sent - p.retried);
  const planned = Math.max(p.planned, first);
  const share = planned === 0 ? 100 : Math.floor((100 * first) / planned);
  const parts = [
    `${first} of ${planned} planned requests sent (${share}%)`,
    `sent ${p.sent} (${p.retried} resend${p.retried === 1 ? '' : 's'}${p.budget !== undefined ? `, budget ${p.budget}` : ''})`,
    `answered ${p.answered}`,
    `${p.failures} failure${p.failures === 1 ? '' : 's'}`,
    `${clock(elapsed)} elapsed`,
  ];
  if (p.halt) parts.push(haltWords(p.halt));
  else if (first === 0) parts.push('time left not known yet');
  else if (first >= planned) parts.push('finishing');
  else {
    // The pace so far, never faster than the rate (the first requests go at once, the rest wait their turn).
    const measured = p.sent / Math.max(1, elapsed);
    const pace = p.rate === null ? measured : Math.min(measured, p.rate / 1000);
    const toSend = Math.min(planned - first, p.budget !== undefined ? Math.max(0, p.budget - p.sent) : Infinity);
    const left = toSend / pace;
    const untilDeadline = p.deadlineAtMs !== undefined ? Math.max(0, p.deadlineAtMs - nowMs) : Infinity;
    parts.push(left > untilDeadline ? `about ${clock(untilDeadline)} left: --max-duration stops the run then` : `about ${clock(left)} left at this pace`);
  }
  parts.push(`${clock(p.waitedMs)} waiting on throttling or maintenance`);
  return parts.join(' · ');
}

function haltWords(halt: RunHalt): string {
  switch (halt.kind) {
    case 'target-unusable':
      return 'target unusable: nothing more is sent';
    case 'interrupted':
      return 'interrupted: nothing more is sent';
    case 'budget':
      return 'request budget used up: nothing more is sent';
    default:
      return 'time limit reached: nothing more is sent';
  }
}

export interface ProgressOptions {
  /** The run's progress, or undefined while there is no run (no engine in this process). */
  source: () => EngineProgress | undefined;
  write(text: string): void;
  /** A terminal: one live line (redrawn in place) instead of a line now and then. */
  live: boolean;
  intervalMs?: number;
  now?: () => number;
}

/** Prints the progress line until stopped. */
export class ProgressPrinter {
  private timer: NodeJS.Timeout | undefined;
  private shown = false;
  private lastSent = -1;
  private lastWaitedMs = -1;
  private readonly now: () => number;

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  start(): void {
    if (this.timer) return;
    const every = this.options.intervalMs ?? (this.options.live ? LIVE_INTERVAL_MS : LOG_INTERVAL_MS);
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref();
  }

  /** One line now (the live line redrawn, or one log line when the run moved or is still sending). */
  tick(): void {
    const p = this.options.source();
    // No run in this process (the unit tests' runner plans nothing): nothing to say.
    if (!p || (p.planned === 0 && p.sent === 0)) return;
    const line = progressLine(p, this.now());
    if (this.options.live) {
      this.options.write(`\r\x1b[2K${line}`);
      this.shown = true;
      return;
    }
    // A log line only when the run moved since the last one: it sent something, or waited on throttling
    // (not while Playwright runs other tests, nor once the run is done or stopped).
    if (p.sent === this.lastSent && p.waitedMs === this.lastWaitedMs) return;
    this.lastSent = p.sent;
    this.lastWaitedMs = p.waitedMs;
    this.options.write(`progress: ${line}\n`);
  }

  /** Prints text above the live line (which is redrawn after it). */
  above(text: string): void {
    if (this.options.live && this.shown) this.options.write('\r\x1b[2K');
    this.options.write(text.endsWith('\n') ? text : `${text}\n`);
    if (this.options.live && this.shown) this.tick();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.options.live && this.shown) this.options.write('\r\x1b[2K');
    this.shown = false;
  }
}

/** Where the engine leaves the verdict of every test it ran (engineVerdicts). */
export const VERDICTS_SLOT = Symbol.for('iswc-conformance.run-verdicts');

/** A test the engine ran and judged: its executions attachment. */
export interface JudgedVerdict {
  project: string;
  title: string;
  attachmentBody: string;
}

/**
 * The verdicts of the tests the run's engine ran and judged, whether or not a test collected them. A run
 * stopped (a signal, its time limit) before Playwright got to end a test the engine ran ahead has sent its
 * requests all the same: the reporter writes what they showed, not "not sent". Empty with no engine here.
 */
export function engineVerdicts(): JudgedVerdict[] {
  const read = (globalThis as Record<symbol, unknown>)[VERDICTS_SLOT] as (() => JudgedVerdict[]) | undefined;
  return read?.() ?? [];
}

/** The progress the run's engine left in this process (reporters run in the engine's process). */
export function engineProgress(): EngineProgress | undefined {
  const read = (globalThis as Record<symbol, unknown>)[PROGRESS_SLOT] as (() => EngineProgress) | undefined;
  return read?.();
}
