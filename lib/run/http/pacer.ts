/**
 * The request rate of a run. The run's one engine (lib/engine/engine.ts, in the main process) sends every
 * request, so one schedule in that process holds the rate for all workers: grants are spaced by 1/rate
 * seconds, the first one immediate.
 */

/** A gate usable as `beforeSend`; `close()` releases its connections. */
export type Gate = (() => Promise<void>) & { close(): Promise<void> };

function intervalOf(ratePerSecond: number): number {
  if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0) {
    throw new Error(`A pacer needs a positive, finite rate in requests per second, got ${ratePerSecond}`);
  }
  return 1000 / ratePerSecond;
}

/**
 * The shared schedule: a FIFO of waiters released one at a time, each at least intervalMs after the
 * previous release as actually measured (a late timer never lets the next grant come early).
 */
class Spacer {
  private last = -Infinity;
  private readonly queue: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly intervalMs: number) {}

  take(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.stopped) return;
      this.queue.push(resolve);
      this.pump();
    });
  }

  /** Drops the waiters (their promises never settle) and the timer. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pump(): void {
    while (this.timer === undefined && this.queue.length > 0) {
      const now = performance.now();
      const wait = this.last + this.intervalMs - now;
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, Math.ceil(wait));
        return;
      }
      this.last = now;
      const next = this.queue.shift();
      next?.();
    }
  }
}

/** A gate that spaces the calls of this process by 1/rate seconds. */
export function localGate(ratePerSecond: number): Gate {
  const spacer = new Spacer(intervalOf(ratePerSecond));
  const gate = (): Promise<void> => spacer.take();
  return Object.assign(gate, {
    close: () => {
      spacer.stop();
      return Promise.resolve();
    },
  });
}
