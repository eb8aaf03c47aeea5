import { spawn, spawnSync } from 'node:child_process';
import type { CliIo } from '../../lib/cli/command.ts';
import { main } from '../../lib/cli/main.ts';
import { fromRoot, repoRoot } from '../../lib/paths.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout then stderr, for assertions on what the user saw. */
  out: string;
}

/** `npx iswc-conformance ARGS` as a user runs it: a process of its own, through bin/iswc-conformance.mjs. */
export function runCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): CliResult {
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
export function runCliAsync(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
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
      resolve({ code: code ?? 128, stdout, stderr, out: `${stdout}${stderr}` });
    });
  });
}

/** The same command in this process (fast): main() with captured output. */
export async function cliInProcess(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
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
    isTty: false,
  };
  const code = await main(args, io);
  return { code, stdout, stderr, out: `${stdout}${stderr}` };
}
