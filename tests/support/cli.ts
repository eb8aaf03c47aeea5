import { spawn, spawnSync } from 'node:child_process';
import type { CliIo } from '../../lib/cli/command.ts';
import { EXIT } from '../../lib/cli/command.ts';
import { main } from '../../lib/cli/main.ts';
import { fromRoot, repoRoot } from '../../lib/foundation/paths.ts';
import { requireE2e, startsARun } from './tier.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout then stderr, for assertions on what the user saw. */
  out: string;
}

/** `npx iswc-conformance ARGS` as a user runs it: a process of its own, through bin/iswc-conformance.mjs. */
export function runCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): CliResult {
  if (startsARun(args)) requireE2e(`a conformance run (iswc-conformance ${args.join(' ')})`);
  const run = spawnSync(process.execPath, [fromRoot('bin', 'iswc-conformance.mjs'), ...args], {
    cwd: options.cwd ?? repoRoot,
    env: options.env ?? process.env,
    encoding: 'utf8',
    stdio: 'pipe',
    timeout: options.timeoutMs ?? 120_000,
  });
  const stdout = run.stdout ?? '';
  const stderr = run.stderr ?? '';
  return { code: run.status ?? 128, stdout, stderr, out: `${stdout}${stderr}` };
}

/**
 * The same as runCli without blocking this process: for a command that talks to servers the test runs
 * in this process (a proxy, a TLS front). Killed after `timeoutMs`.
 */
export function runCliAsync(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; refusedBeforeRun?: boolean } = {}): Promise<CliResult> {
  // A user's mistake is refused (exit 2) before any run starts: such a test stays in the quick tier,
  // and the claim is checked below.
  if (startsARun(args) && options.refusedBeforeRun !== true) requireE2e(`a conformance run (iswc-conformance ${args.join(' ')})`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fromRoot('bin', 'iswc-conformance.mjs'), ...args], { cwd: options.cwd ?? repoRoot, env: options.env ?? process.env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (options.refusedBeforeRun === true && code !== EXIT.USAGE) {
        reject(new Error(`iswc-conformance ${args.join(' ')} was to be refused before any run (exit ${EXIT.USAGE}), and exited ${code ?? 'by a signal'}:\n${stdout}${stderr}`));
        return;
      }
      resolve({ code: code ?? 128, stdout, stderr, out: `${stdout}${stderr}` });
    });
  });
}

/** The same command in this process (fast): main() with captured output. */
export async function cliInProcess(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; isTty?: boolean } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    cwd: options.cwd ?? repoRoot,
    env: options.env ?? {},
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    isTty: options.isTty ?? false,
  };
  const code = await main(args, io);
  return { code, stdout, stderr, out: `${stdout}${stderr}` };
}

export interface RunningCli {
  pid: number;
  /** What the process printed so far (stdout then stderr, interleaved as it came). */
  output(): string;
  /** Sends a signal to the process, or with `group` to its whole process group, as a terminal's Ctrl-C does. */
  signal(signal: NodeJS.Signals): void;
  /** Resolves when the process exits. */
  done: Promise<CliResult & { signal: NodeJS.Signals | null }>;
}

/** `npx iswc-conformance ARGS` as a process of its own that the test can watch and signal. */
export function startCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; group?: boolean } = {}): RunningCli {
  if (startsARun(args)) requireE2e(`a conformance run (iswc-conformance ${args.join(' ')})`);
  const child = spawn(process.execPath, [fromRoot('bin', 'iswc-conformance.mjs'), ...args], {
    cwd: options.cwd ?? repoRoot,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, led by the command, for signals sent to the group.
    detached: options.group === true,
  });
  let stdout = '';
  let stderr = '';
  let both = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString('utf8');
    both += d.toString('utf8');
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
    both += d.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const done = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? 128, signal, stdout, stderr, out: both });
    });
  });
  const signal = (s: NodeJS.Signals): void => {
    if (options.group === true && child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, s);
    else child.kill(s);
  };
  return { pid: child.pid ?? -1, output: () => both, signal, done };
}
