/**
 * SIGINT and SIGTERM in the process that runs the conformance run (Playwright's runner, where the run's
 * engine lives). The first signal stops the engine at once (no request starts after it is handled) and
 * lets the run end as Playwright ends an interrupted run: the tests in flight end, the reporters write
 * every report marked interrupted, the exit code is 130. A SIGTERM is turned into the SIGINT Playwright
 * handles (it has no SIGTERM handling of its own and would die without a report). A second signal exits
 * at once, with 130.
 *
 * Signals that come within a second of the first count as the same one: a terminal's Ctrl-C reaches
 * every process of the foreground group, and npm and npx forward it to their child as well.
 */

export const SAME_SIGNAL_WINDOW_MS = 1000;

/** The exit code of an interrupted run (128 + SIGINT's 2, the shell's convention). */
export const INTERRUPTED_EXIT = 130;

interface InterruptState {
  signal?: NodeJS.Signals;
}

const SLOT = Symbol.for('iswc-conformance.interruption');

function state(): InterruptState {
  const g = globalThis as Record<symbol, unknown>;
  g[SLOT] ??= {};
  return g[SLOT] as InterruptState;
}

/** The signal that interrupted this process's run, if one did (the reporters read it). */
export function interruptedBy(): NodeJS.Signals | undefined {
  return state().signal;
}

export interface InterruptWatchOptions {
  /** Called once, on the first signal: stop sending. */
  onFirst(signal: NodeJS.Signals): void;
  /** Where the notices go (stderr). */
  write(text: string): void;
  /** Ends the process on a second signal (tests pass their own). */
  exit?: (code: number) => void;
  now?: () => number;
}

/** Watches SIGINT and SIGTERM until disposed. */
export function watchInterruptions(options: InterruptWatchOptions): () => void {
  const now = options.now ?? Date.now;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let firstAt: number | undefined;
  const handler = (signal: NodeJS.Signals): void => {
    const at = now();
    if (firstAt === undefined) {
      state().signal = signal;
      firstAt = at;
      options.write(`\niswc-conformance: ${signal}: stopping; no new request is sent. The reports are written and marked interrupted; exit code 130. A second signal exits at once.\n`);
      options.onFirst(signal);
      // Playwright ends an interrupted run on SIGINT only.
      if (signal === 'SIGTERM') process.kill(process.pid, 'SIGINT');
      return;
    }
    if (at - firstAt < SAME_SIGNAL_WINDOW_MS) return;
    options.write(`\niswc-conformance: second signal (${signal}): exiting at once, exit code 130; the reports may be incomplete.\n`);
    exit(INTERRUPTED_EXIT);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
