import { watchLaunchers } from './launchers.ts';
import type { LauncherWatchOptions } from './launchers.ts';

/**
 * Stopping on a signal, in every process of the tool that sends or listens: SIGINT, SIGTERM and SIGHUP,
 * and the end of the processes that started it (lib/foundation/launchers.ts: npm dies on SIGHUP without telling its
 * child; a shell that does not exec its command can die and leave node behind), taken as a SIGHUP.
 *
 * In the process that runs the conformance run (Playwright's runner, where the run's engine lives), the
 * first signal stops the engine at once (no request starts after it is handled) and lets the run end as
 * Playwright ends an interrupted run: the tests in flight end, the reporters write every report marked
 * interrupted, the exit code is 130. SIGTERM and SIGHUP are turned into the SIGINT Playwright handles (it
 * has no handling of its own for them and would die without a report); that SIGINT, sent by the process
 * to itself, is known by a flag and never taken for the user's second signal. A second signal exits at
 * once, with 130; a later SIGHUP never does (the same hangup reaches the run more than once).
 *
 * Signals that come within a second of the first count as the same one (signalWindow, the one rule the
 * command that starts the run applies too): a terminal's Ctrl-C reaches every process of the foreground
 * group, and npm, npx and the command forward it to their child as well.
 */

export const SAME_SIGNAL_WINDOW_MS = 1000;

/** The exit code of a command a signal ended (128 + SIGINT's 2, the shell's convention), whichever signal it was. */
export const INTERRUPTED_EXIT = 130;

/** The signals that stop the tool. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

interface InterruptState {
  /** Why the run was ended early by itself (the target found unusable), when it was: no signal of the user's. */
  endedEarly?: string;
  signal?: NodeJS.Signals;
  /** Why, in words: "interrupted by SIGTERM", or the launcher that is gone. */
  reason?: string;
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
 * Ends the run now, as Playwright ends an interrupted one (no test starts after it, the reporters write
 * every report), because the run itself found that nothing more can be sent: the target is unusable. The
 * SIGINT this sends is known by the flag, never taken for the user's; the reports say why the run
 * stopped, not "interrupted". Once only.
 */
export function endRunEarly(reason: string, signalSelf: (signal: NodeJS.Signals) => void = (signal) => process.kill(process.pid, signal)): void {
  const own = state();
  if (own.endedEarly !== undefined || own.signal !== undefined) return;
  own.endedEarly = reason;
  own.selfSent = (own.selfSent ?? 0) + 1;
  signalSelf('SIGINT');
}

/** Why the run ended itself early (endRunEarly), if it did. */
export function endedEarly(): string | undefined {
  return state().endedEarly;
}

/** Why this process's run was interrupted, in words ("interrupted by SIGTERM"), if it was. */
export function interruptionReason(): string | undefined {
  return state().reason;
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

/** A stop: the signal (SIGHUP when the launchers are gone) and why, in words. */
export interface Stop {
  signal: NodeJS.Signals;
  reason: string;
}

export interface StopWatchOptions {
  /** Watch the processes that started this one (default true; tests of the signal rules turn it off). */
  launchers?: boolean | Omit<LauncherWatchOptions, 'onGone'>;
}

/**
 * Calls `handler` on every SIGINT, SIGTERM and SIGHUP, and once when a process that started this one is
 * gone (as a SIGHUP, with that reason), until disposed. Also keeps a closed terminal or a dead pipe from
 * crashing the process while it stops: a write to stdout or stderr that fails is dropped.
 */
export function onStop(handler: (stop: Stop) => void, options: StopWatchOptions = {}): () => void {
  const onSignal = (signal: NodeJS.Signals): void => handler({ signal, reason: `interrupted by ${signal}` });
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  const launcherOptions = typeof options.launchers === 'object' ? options.launchers : {};
  const unwatch =
    options.launchers === false
      ? () => undefined
      : watchLaunchers({
          ...launcherOptions,
          onGone: (why) => {
            ignoreBrokenOutput();
            handler({ signal: 'SIGHUP', reason: `interrupted: ${why}` });
          },
        });
  return () => {
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
    unwatch();
  };
}

/** Kept once a run is stopping: a later SIGHUP is the hangup already handled, never a reason to die before the reports. */
function ignoreLateHangup(): void {
  // nothing: the run is stopping already
}

let outputGuarded = false;
/** Writes to a terminal that is gone (EIO) or a pipe nobody reads (EPIPE) are dropped instead of crashing the process. */
export function ignoreBrokenOutput(): void {
  if (outputGuarded) return;
  outputGuarded = true;
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}

/** Resolves with the first stop (a signal, or the launchers gone); the handlers go with it. */
export function untilStopped(options: StopWatchOptions = {}): Promise<Stop> {
  return new Promise((resolve) => {
    const dispose = onStop((stop) => {
      dispose();
      resolve(stop);
    }, options);
  });
}

export interface InterruptWatchOptions extends StopWatchOptions {
  /** Called once, on the first signal: stop sending. */
  onFirst(signal: NodeJS.Signals, reason: string): void;
  /** Where the notices go (stderr). */
  write(text: string): void;
  /** Ends the process on a second signal (tests pass their own). */
  exit?: (code: number) => void;
  now?: () => number;
  /** Sends this process a signal (tests pass their own). */
  signalSelf?: (signal: NodeJS.Signals) => void;
}

/** Watches SIGINT, SIGTERM, SIGHUP and the launchers until disposed (the run's side: see the module's comment). */
export function watchInterruptions(options: InterruptWatchOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const count = signalWindow(options.now);
  const signalSelf = options.signalSelf ?? ((signal: NodeJS.Signals) => process.kill(process.pid, signal));
  return onStop(({ signal, reason }) => {
    const own = state();
    if (signal === 'SIGINT' && (own.selfSent ?? 0) > 0) {
      // The SIGINT sent below for Playwright: not a signal of the user's, whenever it arrives.
      own.selfSent = (own.selfSent ?? 0) - 1;
      return;
    }
    const which = count();
    if (which === 'first') {
      own.signal = signal;
      own.reason = reason;
      // The same hangup may still come (forwarded by the command that started this process) after the
      // handlers are gone, while the reports are written: it must not end the process then.
      process.on('SIGHUP', ignoreLateHangup);
      const what = reason === `interrupted by ${signal}` ? signal : `${reason.replace(/^interrupted: /, '')} (taken as ${signal})`;
      options.write(`\niswc-conformance: ${what}: stopping; no new request is sent. The reports are written and marked interrupted; exit code 130. A second signal (a second or more after this one) exits at once.\n`);
      options.onFirst(signal, reason);
      // Playwright ends an interrupted run on SIGINT only.
      if (signal !== 'SIGINT') {
        own.selfSent = (own.selfSent ?? 0) + 1;
        signalSelf('SIGINT');
      }
      return;
    }
    // A hangup is never the user insisting: the same hangup reaches this process twice (its own watch of the
    // launchers, and the command forwarding it), and a terminal that is gone cannot press Ctrl-C again.
    if (which === 'same' || signal === 'SIGHUP') return;
    options.write(`\niswc-conformance: second signal (${signal}): exiting at once, exit code 130; the reports may be incomplete.\n`);
    exit(INTERRUPTED_EXIT);
  }, options);
}

/** What exitOnUnhandledStops needs of a process (tests pass their own). */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  listenerCount(signal: NodeJS.Signals): number;
}

/**
 * In the command's own process: a stop signal that nothing else handles (before a run starts, or after it
 * has ended while the command finishes) ends the process with 130 at once, where Node's default would kill
 * it by the signal and leave its parent no exit code. While a command watches signals itself (a run, the
 * server, the sandbox), this one does nothing.
 */
export function exitOnUnhandledStops(source: SignalSource = process, exit: (code: number) => void = (code) => process.exit(code)): void {
  for (const signal of STOP_SIGNALS) {
    source.on(signal, () => {
      if (source.listenerCount(signal) === 1) exit(INTERRUPTED_EXIT);
    });
  }
}
