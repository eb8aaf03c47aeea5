/**
 * The sandbox as a command, for tests that drive it from outside as a person does: started in its own
 * process, its "listening" line read, ended by a signal or by its own end conditions.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fromRoot, repoRoot } from '../../lib/foundation/paths.ts';

/** `npx iswc-conformance sandbox`: the package's bin, as npx runs it. */
const ENTRY = [fromRoot('bin', 'iswc-conformance.mjs'), 'sandbox'];

export interface SandboxCommand {
  url: string;
  child: ChildProcess;
  /** Resolves when the command exits: its status and everything it printed. */
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `npx iswc-conformance sandbox ARGS`, started with `env`; resolves once it listens. */
export function startSandboxCommand(args: readonly string[], env: Record<string, string>, timeoutMs = 30_000): Promise<SandboxCommand> {
  const child = spawn(process.execPath, [...ENTRY, ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the sandbox did not listen within ${timeoutMs} ms: ${stdout}${stderr}`));
    }, timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const url = /^listening (http:\/\/\S+)$/m.exec(stdout)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, child, exited });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox exited (${code}) before it listened: ${stdout}${stderr}`));
    });
  });
}
