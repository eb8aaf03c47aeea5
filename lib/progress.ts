import type { RunHalt } from './report/outcome.ts';

/** Where the run's engine leaves its progress for the reporters of its process (they outlive the global teardown). */
export const PROGRESS_SLOT = Symbol.for('iswc-conformance.run-progress');

/**
 * The progress of a long run: on a terminal, one live line redrawn every second; without one (CI), a
 * line every 30 seconds while the run is sending. Requests sent of those planned, gating failures so
 * far, time elapsed, the time left at the pace so far, and the time spent waiting on throttling.
 */

/** What the run has done so far (the progress line reads it). */
export interface EngineProgress {
  /** Requests sent so far, resends after throttling included. */
  sent: number;
  /** Requests the selected tests are estimated to send (at the plan's runs per property). */
  planned: number;
  /** Gating check failures so far. */
  failures: number;
  /** Time waited on throttling (429, 503 with Retry-After), in milliseconds. */
  throttledMs: number;
  /** When the engine started (performance.now() time origin). */
  startedAtMs: number;
  /** ISWC_RATE in requests per second, or null for no limit: the pace can be no faster. */
  rate: number | null;
  /** Why the run stopped sending, once it did. */
  halt?: RunHalt;
}

/** Between two lines in a log without a terminal. */
export const LOG_INTERVAL_MS = 30_000;
/** Between two redraws of the live line on a terminal. */
export const LIVE_INTERVAL_MS = 1_000;

/** `45s`, `12m05s`, `3h52m`. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** One line: `120 of 2770 requests sent · 3 failures · 4m10s elapsed · about 1h32m left at this pace · 20s waiting on throttling`. */
export function progressLine(p: EngineProgress, nowMs: number): string {
  const elapsed = nowMs - p.startedAtMs;
  const parts = [`${p.sent} of ${p.planned} requests sent`, `${p.failures} failure${p.failures === 1 ? '' : 's'}`, `${clock(elapsed)} elapsed`];
  if (p.halt) parts.push(p.halt.kind === 'target-unusable' ? 'target unusable: nothing more is sent' : p.halt.kind === 'interrupted' ? 'interrupted: nothing more is sent' : 'time limit reached: nothing more is sent');
  else if (p.sent === 0) parts.push('time left not known yet');
  else if (p.sent >= p.planned) parts.push('finishing');
  else {
    // The pace so far, never faster than the rate (the first requests go at once, the rest wait their turn).
    const measured = p.sent / Math.max(1, elapsed);
    const pace = p.rate === null ? measured : Math.min(measured, p.rate / 1000);
    parts.push(`about ${clock((p.planned - p.sent) / pace)} left at this pace`);
  }
  parts.push(`${clock(p.throttledMs)} waiting on throttling`);
  return parts.join(' · ');
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
  private lastThrottledMs = -1;
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
    if (!p) return;
    const line = progressLine(p, this.now());
    if (this.options.live) {
      this.options.write(`\r\x1b[2K${line}`);
      this.shown = true;
      return;
    }
    // A log line only when the run moved since the last one: it sent something, or waited on throttling
    // (not while Playwright runs other tests, nor once the run is done or stopped).
    if (p.sent === this.lastSent && p.throttledMs === this.lastThrottledMs) return;
    this.lastSent = p.sent;
    this.lastThrottledMs = p.throttledMs;
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

/** The progress the run's engine left in this process (reporters run in the engine's process). */
export function engineProgress(): EngineProgress | undefined {
  const read = (globalThis as Record<symbol, unknown>)[PROGRESS_SLOT] as (() => EngineProgress) | undefined;
  return read?.();
}
