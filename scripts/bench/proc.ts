/**
 * Process helpers of the benchmark: spawning bounded children in their own process group (so that a
 * child and everything it starts can be ended together), sampling the resident memory of a whole
 * process tree from /proc, and starting the reference server as a child process.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { repoRoot } from '../../lib/foundation/paths.ts';

export const MiB = 1024 * 1024;

/** Every child the benchmark started and has not seen exit: ended on the way out, whatever happens. */
const live = new Set<ChildProcess>();

/** Ends a child and its process group: SIGTERM, then SIGKILL after `graceMs`. Resolves when it has exited. */
export function endChild(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    live.delete(child);
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    const pid = child.pid;
    const signal = (sig: NodeJS.Signals): void => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, sig); // the whole group: the child was spawned detached, as its group leader
      } catch {
        try {
          child.kill(sig);
        } catch {
          // already gone
        }
      }
    };
    const timer = setTimeout(() => signal('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      // Anything the child left behind in its group goes too.
      signal('SIGKILL');
      live.delete(child);
      resolve();
    });
    signal('SIGTERM');
  });
}

/** Kills every child still running, synchronously (for exit and signal handlers). */
export function killAllNow(): void {
  for (const child of live) {
    if (child.pid === undefined) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  timedOut: boolean;
}

export interface Started {
  child: ChildProcess;
  /** Resolves when the child has exited (or was ended at its time limit). */
  done: Promise<Finished>;
  /** Resolves with the first stdout line that matches, or rejects at the deadline or on exit. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
}

/** Output kept per stream: enough for the last lines of a report, never unbounded. */
const KEEP_OUTPUT = 256 * 1024;

/** Spawns `command args` in its own process group, ended after `timeoutMs` whatever it is doing. */
export function startChild(command: string, args: readonly string[], options: { env: NodeJS.ProcessEnv; timeoutMs: number; cwd?: string }): Started {
  const spawnOptions: SpawnOptions = { cwd: options.cwd ?? repoRoot, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] };
  const started = performance.now();
  const child = spawn(command, [...args], spawnOptions);
  live.add(child);
  let stdout = '';
  let stderr = '';
  const lineWaiters: Array<{ pattern: RegExp; resolve: (m: RegExpMatchArray) => void }> = [];
  let pending = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    stdout = (stdout + chunk).slice(-KEEP_OUTPUT);
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      for (let i = lineWaiters.length - 1; i >= 0; i -= 1) {
        const waiter = lineWaiters[i];
        const match = waiter ? waiter.pattern.exec(line) : null;
        if (waiter && match) {
          lineWaiters.splice(i, 1);
          waiter.resolve(match);
        }
      }
    }
  });
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-KEEP_OUTPUT);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void endChild(child);
  }, options.timeoutMs);
  const done = new Promise<Finished>((resolve) => {
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, signal, stdout, stderr, wallMs: performance.now() - started, timedOut });
    };
    child.once('error', (e) => {
      stderr += `\n${e.message}`;
      finish(null, null);
    });
    child.once('close', finish);
  });
  const waitForLine = (pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`)), timeoutMs);
      lineWaiters.push({
        pattern,
        resolve: (m) => {
          clearTimeout(t);
          resolve(m);
        },
      });
      void done.then((f) => {
        clearTimeout(t);
        reject(new Error(`exited (code ${f.code}, signal ${f.signal}) before printing a line matching ${pattern}; stderr: ${f.stderr.slice(-2000)}`));
      });
    });
  return { child, done, waitForLine };
}

/** `node --import tsx FILE ARGS`: runs a TypeScript file of the repository in a child Node process. */
export function nodeTs(file: string, args: readonly string[], nodeOptions: readonly string[] = []): [string, string[]] {
  return [process.execPath, [...nodeOptions, '--import', 'tsx', file, ...args]];
}

export interface ServerChild {
  url: string;
  started: Started;
  close(): Promise<void>;
}

/**
 * The embedded reference server in a child process of its own, on 127.0.0.1 and a free port, seeded
 * fresh from the profile: the load generator or the engine then has the other core to itself.
 */
export async function startServerChild(options: {
  key: string;
  target: string;
  env: NodeJS.ProcessEnv;
  nodeOptions?: readonly string[];
  timeoutMs: number;
  /** More arguments of the server command (`--fault ID`, `--choices SET`). */
  args?: readonly string[];
  /** Another server script printing `listening URL` (the schema-driven mock). */
  script?: string;
}): Promise<ServerChild> {
  const serverArgs = options.script ? ['--port', '0'] : ['--host', '127.0.0.1', '--port', '0', '--target', options.target, '--key', options.key, ...(options.args ?? [])];
  const [cmd, args] = options.script ? nodeTs(options.script, serverArgs, options.nodeOptions ?? []) : nodeTs('lib/cli/entry.ts', ['server', ...serverArgs], options.nodeOptions ?? []);
  const started = startChild(cmd, args, { env: options.env, timeoutMs: options.timeoutMs });
  let line: RegExpMatchArray;
  try {
    line = await started.waitForLine(/^listening (http:\/\/127\.0\.0\.1:\d+)\s*$/, 30_000);
  } catch (e) {
    await endChild(started.child);
    throw e;
  }
  const url = line[1];
  if (url === undefined) throw new Error('the server printed no URL');
  return {
    url,
    started,
    async close(): Promise<void> {
      await endChild(started.child, 5000);
      await started.done;
    },
  };
}

/** True where /proc gives per-process memory (Linux). */
export const procAvailable = existsSync('/proc/self/status');

function readParentMap(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid ...: comm may hold spaces or parentheses, so read after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(rest[1]);
    const list = children.get(ppid);
    if (list) list.push(Number(name));
    else children.set(ppid, [Number(name)]);
  }
  return children;
}

function rssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * A process's proportional set size: its private pages plus its share of pages it shares with others
 * (the Node binary's code, shared libraries), so that a sum over processes counts each page once.
 */
function pssBytes(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident memory of `root` and all its descendants now, per process (and their PSS summed, when asked). */
export function treeRss(root: number, withPss = false): { bytes: number; pssBytes: number; processes: Map<number, number> } {
  const children = readParentMap();
  let bytes = 0;
  let pss = 0;
  const processes = new Map<number, number>();
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop();
    if (pid === undefined || processes.has(pid)) continue;
    const rss = rssBytes(pid);
    if (rss > 0) {
      bytes += rss;
      processes.set(pid, rss);
      if (withPss) pss += pssBytes(pid);
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return { bytes, pssBytes: pss, processes };
}

/** A short name for a process: the script it runs (e.g. `cli.js`, `workerProcessEntry.js`, `cli.ts`). */
function processLabel(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    const script = argv.slice(1).find((a) => !a.startsWith('-') && /\.(c|m)?(j|t)s$/.test(a));
    return script ? script.split('/').pop() ?? script : (argv[0]?.split('/').pop() ?? '?');
  } catch {
    return '?';
  }
}

export interface TreePeak {
  /** Peak of the sum over the tree. */
  peakBytes: number;
  /** Peak of the sum of PSS over the tree (each shared page counted once); 0 unless asked. */
  peakPssBytes: number;
  /** The largest peak of one process of the tree: what `/usr/bin/time -v` reports as the maximum resident set size of a command. */
  largestProcessBytes: number;
  /** Most processes seen at once. */
  peakProcesses: number;
  samples: number;
  /** Each process's own peak, largest first. */
  perProcess: Array<{ pid: number; label: string; peakBytes: number }>;
}

export interface TreeSampler {
  stop(): TreePeak;
}

/** Samples the tree's resident memory every `everyMs` (default 100 ms) until stopped; `withPss` adds the PSS sum. */
export function sampleTree(root: number, everyMs = 100, withPss = false): TreeSampler {
  let peakBytes = 0;
  let peakPssBytes = 0;
  let peakProcesses = 0;
  let samples = 0;
  const perPid = new Map<number, { label: string; peakBytes: number }>();
  const sample = (): void => {
    if (!procAvailable) return;
    const { bytes, pssBytes: pss, processes } = treeRss(root, withPss);
    samples += 1;
    peakBytes = Math.max(peakBytes, bytes);
    peakPssBytes = Math.max(peakPssBytes, pss);
    peakProcesses = Math.max(peakProcesses, processes.size);
    for (const [pid, rss] of processes) {
      const seen = perPid.get(pid);
      if (!seen) perPid.set(pid, { label: processLabel(pid), peakBytes: rss });
      else if (rss > seen.peakBytes) {
        // Named again at its peak: a child sampled between fork and exec showed its parent's command line.
        seen.peakBytes = rss;
        seen.label = processLabel(pid);
      }
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const perProcess = [...perPid.entries()].map(([pid, p]) => ({ pid, ...p })).sort((a, b) => b.peakBytes - a.peakBytes);
      return { peakBytes, peakPssBytes, largestProcessBytes: perProcess[0]?.peakBytes ?? 0, peakProcesses, samples, perProcess };
    },
  };
}
