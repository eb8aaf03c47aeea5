/**
 * SIGINT and SIGTERM in the process that runs the conformance run (Playwright's runner, where the run's
 * engine lives). The first signal stops the engine at once (no request starts after it is handled) and
 * lets the run end as Playwright ends an interrupted run: the tests in flight end, the reporters write
 * every report marked interrupted, the exit code is 130. A SIGTERM is turned into the SIGINT Playwright
 * handles (it has no SIGTERM handling of its own and would die without a report); that SIGINT, sent by
 * the process to itself, is known by a flag and never taken for the user's second signal. A second
 * signal exits at once, with 130.
 *
 * Signals that come within a second of the first count as the same one (signalWindow, the one rule the
 * command that starts the run applies too): a terminal's Ctrl-C reaches every process of the foreground
 * group, and npm, npx and the command forward it to their child as well.
 */

export const SAME_SIGNAL_WINDOW_MS = 1000;

/** The exit code of an interrupted run (128 + SIGINT's 2, the shell's convention). */
export const INTERRUPTED_EXIT = 130;

interface InterruptState {
  signal?: NodeJS.Signals;
  /** SIGINTs this process sent itself and has not received yet. */
  selfSent?: number;
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

/**
 * The one rule for counting signals: the first, those within SAME_SIGNAL_WINDOW_MS of it (the same
 * Ctrl-C, delivered again by the terminal's group and by the processes that forward it), and a second.
 */
export function signalWindow(now: () => number = Date.now): () => 'first' | 'same' | 'second' {
  let firstAt: number | undefined;
  return () => {
    const at = now();
    if (firstAt === undefined) {
      firstAt = at;
      return 'first';
    }
    return at - firstAt < SAME_SIGNAL_WINDOW_MS ? 'same' : 'second';
  };
}

export interface InterruptWatchOptions {
  /** Called once, on the first signal: stop sending. */
  onFirst(signal: NodeJS.Signals): void;
  /** Where the notices go (stderr). */
  write(text: string): void;
  /** Ends the process on a second signal (tests pass their own). */
  exit?: (code: number) => void;
  now?: () => number;
  /** Sends this process a signal (tests pass their own). */
  signalSelf?: (signal: NodeJS.Signals) => void;
}

/** Watches SIGINT and SIGTERM until disposed. */
export function watchInterruptions(options: InterruptWatchOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const count = signalWindow(options.now);
  const signalSelf = options.signalSelf ?? ((signal: NodeJS.Signals) => process.kill(process.pid, signal));
  const handler = (signal: NodeJS.Signals): void => {
    const own = state();
    if (signal === 'SIGINT' && (own.selfSent ?? 0) > 0) {
      // The SIGINT sent below for Playwright: not a signal of the user's, whenever it arrives.
      own.selfSent = (own.selfSent ?? 0) - 1;
      return;
    }
    const which = count();
    if (which === 'first') {
      own.signal = signal;
      options.write(`\niswc-conformance: ${signal}: stopping; no new request is sent. The reports are written and marked interrupted; exit code 130. A second signal (a second or more after this one) exits at once.\n`);
      options.onFirst(signal);
      // Playwright ends an interrupted run on SIGINT only.
      if (signal === 'SIGTERM') {
        own.selfSent = (own.selfSent ?? 0) + 1;
        signalSelf('SIGINT');
      }
      return;
    }
    if (which === 'same') return;
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
