import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../lib/foundation/paths.ts';
import { requireE2e } from './tier.ts';
import { REQUEST_TIMEOUT_MS } from './timeouts.ts';

/**
 * The environment for a child Playwright run: the parent's, without what a running Playwright (or the
 * harness's global setup) put there (the run context) — a nested run must start its own embedded server,
 * seed, pacer and plan — and without the machine's proxy settings and extra headers, which a test that
 * wants them gives itself (a company proxy could not reach the test's servers on loopback).
 */
export function childEnv(overrides: Record<string, string | undefined> = {}, parent: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  // The tests' one request timeout (tests/support/timeouts.ts), unless the parent or the test sets its own.
  const env: NodeJS.ProcessEnv = { ISWC_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) };
  const inherited = /^(ISWC_RUN_CONTEXT|TEST_WORKER_INDEX|TEST_PARALLEL_INDEX|PW_|PLAYWRIGHT_|FORCE_COLOR|ISWC_HEADERS$|NODE_EXTRA_CA_CERTS$|(https?|no)_proxy$)/i;
  for (const [k, v] of Object.entries(parent)) if (!inherited.test(k)) env[k] = v;
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  env.NODE_OPTIONS = withTestYoungGeneration(env.NODE_OPTIONS);
  return env;
}

/**
 * V8's default young generation for the runs the tests start. The run command gives its processes a small
 * one (--max-semi-space-size=1: less memory on a user's machine) unless NODE_OPTIONS names one; the tests
 * prove what a run does, not its memory, and a smoke run's runner spent about 0.8 s of its 8 s of CPU more
 * collecting garbage with it (CONTRIBUTING.md, "Where the time goes"). The docs' commands run with a
 * newcomer's environment (tests/support/doc-commands.ts), the run command's default included.
 */
export function withTestYoungGeneration(nodeOptions: string | undefined): string {
  const given = nodeOptions?.trim() ?? '';
  return given.includes('--max-semi-space-size') ? given : `${given} --max-semi-space-size=16`.trim();
}

export interface ChildRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Playwright's command line, started by node itself: what `npx playwright` runs, without npm's own start (about 0.8 s of CPU a run). */
const PLAYWRIGHT_CLI = path.join(repoRoot, 'node_modules', '@playwright', 'test', 'cli.js');

/** Runs `npx playwright <args>` in the repository; `inherit` shows its output live instead of capturing it. */
export function runPlaywright(args: readonly string[], env: NodeJS.ProcessEnv, options: { inherit?: boolean; timeoutMs?: number } = {}): Promise<ChildRun> {
  requireE2e(`a Playwright run (playwright ${args[0] ?? ''})`);
  return new Promise((resolve, reject) => {
    // One worker, as the run command has: a nested run of the conformance projects gains nothing from more
    // (its tests only hand cases to the run's one engine), and each costs about 2 s of CPU to start.
    const workers = args[0] === 'test' && env.ISWC_WORKERS === undefined && !args.some((a) => a.startsWith('--workers') || a.startsWith('-j')) ? ['--workers=1'] : [];
    const child = spawn(process.execPath, [PLAYWRIGHT_CLI, ...args, ...workers], { cwd: repoRoot, env, stdio: options.inherit ? 'inherit' : 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGTERM'), options.timeoutMs) : undefined;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}
