import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The processes that started this one, and the moment one of them is gone. `npm run X` and `npx X`
 * start the tool through `<script-shell> -c "<command>"`; npm dies at once on SIGHUP without telling its
 * child, and a shell that does not exec its command (dash) can die on SIGTERM and leave node behind. A
 * tool that sends requests to a shared staging must not run on as an orphan: it treats the end of the
 * process that started it, or of the launchers above it, as a hangup (SIGHUP).
 *
 * Watched: the parent, always; above it, each ancestor that only launched this one (npm or npx, a
 * shell run with -c, this tool's own command process), up to the first that is none of these (a login
 * shell, a CI agent, a supervisor) or pid 1. An ancestor counts as gone when its /proc entry is gone or
 * belongs to another process (its start time changed), when it is a zombie (dead, not yet reaped), or,
 * for the parent, when this process was given another parent. Without /proc (macOS, Windows) only the
 * parent is watched, through process.ppid.
 */

/** How often the watched processes are read: a few times a second, so that sending stops within one. */
export const LAUNCHER_POLL_MS = 250;

/** Stop walking up after this many launchers (a chain is npm, a shell, the command: three at most in practice). */
const MAX_DEPTH = 8;

export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** Start time in clock ticks since boot (field 22 of /proc/PID/stat): tells a reused pid apart. */
  startTicks: number;
  /** R, S, D, Z, … (field 3): Z is a process that has ended and is not reaped yet. */
  state: string;
  /** argv, NUL-separated in /proc/PID/cmdline (a process title may have replaced it with one string). */
  argv: string[];
}

/** Reads how Linux describes a process; undefined when it is gone or /proc is not there. */
export function readProcess(pid: number, root = '/proc'): ProcessEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(path.join(root, String(pid), 'stat'), 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  const state = fields[0] ?? '?';
  const ppid = Number(fields[1]);
  const startTicks = Number(fields[19]);
  let argv: string[] = [];
  try {
    argv = readFileSync(path.join(root, String(pid), 'cmdline'), 'utf8').split('\0').filter((a) => a !== '');
  } catch {
    // A zombie has no command line; it is gone anyway.
  }
  return { pid, ppid, startTicks, state, argv };
}

const SHELLS = new Set(['sh', 'dash', 'bash', 'ash', 'zsh', 'ksh', 'mksh', 'busybox']);

/**
 * Does this process only launch the one below it: npm or npx (its process title, or node running
 * npm-cli.js / npx-cli.js), a shell running a command (-c), or this tool's own command process?
 */
export function isLauncher(argv: readonly string[]): boolean {
  const [first = '', ...rest] = argv;
  // npm sets its process title ("npm exec iswc-conformance server"), which replaces argv with one string.
  if (/^npx?(\s|$)/.test(first) || /^npm-cli\b|^npx-cli\b/.test(path.basename(first))) return true;
  const name = path.basename(first.split(/\s/)[0] ?? '');
  if (SHELLS.has(name)) return rest.includes('-c') || /\s-c\s/.test(first);
  if (name === 'node' || name === 'nodejs' || /^node\d*$/.test(name)) {
    const script = rest.find((a) => !a.startsWith('-')) ?? '';
    return /(?:^|\/)(?:npm-cli|npx-cli)\.js$/.test(script) || /(?:^|\/)iswc-conformance(?:\.mjs)?$/.test(script);
  }
  return false;
}

/** The processes to watch, from the parent up (see the module's comment); empty without /proc. */
export function launcherChain(selfPid = process.pid, read: (pid: number) => ProcessEntry | undefined = readProcess): ProcessEntry[] {
  const self = read(selfPid);
  if (!self) return [];
  const chain: ProcessEntry[] = [];
  let pid = self.ppid;
  while (pid > 1 && chain.length < MAX_DEPTH) {
    const entry = read(pid);
    if (!entry) break;
    chain.push(entry);
    if (!isLauncher(entry.argv)) break;
    pid = entry.ppid;
  }
  return chain;
}

/** Why a watched process counts as gone, or undefined while it runs. */
export function goneReason(watched: ProcessEntry, read: (pid: number) => ProcessEntry | undefined = readProcess): string | undefined {
  const now = read(watched.pid);
  const what = `${describe(watched)}`;
  if (!now || now.startTicks !== watched.startTicks) return `${what} is gone`;
  if (now.state === 'Z') return `${what} has ended`;
  return undefined;
}

/** `npm (pid 812)`, `sh -c (pid 813)`, `iswc-conformance (pid 814)`. */
export function describe(entry: ProcessEntry): string {
  const [first = '?', ...rest] = entry.argv;
  const name = /^npx?(\s|$)/.test(first) ? first.split(/\s/)[0] : path.basename(first.split(/\s/)[0] ?? '?');
  const script = rest.find((a) => !a.startsWith('-'));
  const shown = name === 'node' && script ? path.basename(script).replace(/\.(m?js|cjs)$/, '').replace(/-cli$/, '') : name;
  return `the process that started it (${shown}, pid ${entry.pid})`;
}

export interface LauncherWatchOptions {
  /** Called once, when the first watched process is gone: behave as on SIGHUP. */
  onGone(reason: string): void;
  intervalMs?: number;
  /** Tests pass their own process table. */
  read?: (pid: number) => ProcessEntry | undefined;
  selfPid?: number;
  /** This process's parent now (process.ppid; tests pass their own). */
  parentPid?: () => number;
}

/** Watches the processes that started this one until disposed; the timer never keeps the process alive. */
export function watchLaunchers(options: LauncherWatchOptions): () => void {
  const read = options.read ?? readProcess;
  const parentPid = options.parentPid ?? (() => process.ppid);
  const chain = launcherChain(options.selfPid ?? process.pid, read);
  const firstParent = parentPid();
  let done = false;
  const check = (): void => {
    if (done) return;
    let reason: string | undefined;
    if (firstParent > 1 && parentPid() !== firstParent) reason = `the process that started it (pid ${firstParent}) is gone`;
    for (const entry of chain) {
      if (reason !== undefined) break;
      reason = goneReason(entry, read);
    }
    if (reason === undefined) return;
    done = true;
    clearInterval(timer);
    options.onGone(reason);
  };
  const timer = setInterval(check, options.intervalMs ?? LAUNCHER_POLL_MS);
  timer.unref();
  return () => {
    done = true;
    clearInterval(timer);
  };
}
