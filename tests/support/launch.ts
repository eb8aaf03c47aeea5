import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { repoRoot } from '../../lib/foundation/paths.ts';
import { requireE2e } from './tier.ts';

/**
 * The tool as people start it: `npm run SCRIPT -- ARGS` and `npx iswc-conformance ARGS` in the
 * repository, each process tree tagged with a marker variable of its own, so that a test can signal the
 * npm or npx process alone and then find every process of that tree that is left, whatever its parent.
 */

// Not an ISWC_ variable: the tool never reads it; it only marks the processes of one launch.
export const MARKER_VARIABLE = 'LAUNCH_TEST_MARKER';

export type Launcher = 'npm' | 'npx';

export interface Launched {
  /** The pid of npm or npx itself: the only process the test signals. */
  pid: number;
  marker: string;
  output(): string;
  /** How npm or npx ended: its exit code, or the signal that killed it. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>;
}

/** `npm run <script> -- ARGS` or `npx iswc-conformance <command> ARGS` (the script names the command). */
export function launch(launcher: Launcher, script: 'conformance' | 'server' | 'sandbox', args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 300_000): Launched {
  requireE2e(`the tool through ${launcher} (${script})`);
  const marker = randomUUID();
  const command = script === 'conformance' ? 'run' : script;
  const argv = launcher === 'npm' ? ['run', '--silent', script, '--', ...args] : ['iswc-conformance', command, ...args];
  const child = spawn(launcher, argv, { cwd: repoRoot, env: { ...env, [MARKER_VARIABLE]: marker }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  // Past its time, the whole tree is ended: a test that fails must not leave a run sending.
  const timer = setTimeout(() => killMarked(marker), timeoutMs);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve) => {
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out });
    });
  });
  return { pid: child.pid ?? -1, marker, output: () => out, done };
}

/** The pids of every live process (zombies aside) whose environment carries the marker. */
export function markedProcesses(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (/\) Z /.test(readFileSync(`/proc/${name}/stat`, 'utf8'))) continue;
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(`${MARKER_VARIABLE}=${marker}\0`)) found.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Ends every process of a marked tree (cleanup after a failed test). */
export function killMarked(marker: string): void {
  for (const pid of markedProcesses(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/** Whether a port on 127.0.0.1 can be listened on again. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Waits until `text` appears in what a launched command printed; returns the whole output then. */
export async function waitForOutput(launched: Launched, pattern: RegExp, timeoutMs = 120_000): Promise<RegExpExecArray> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(launched.output());
    if (m) return m;
    if (Date.now() > until) throw new Error(`no ${pattern} in the output within ${timeoutMs} ms:\n${launched.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
