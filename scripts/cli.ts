/** The `iswc-conformance` command (package bin): parses flags, then runs Playwright or prints the plan. */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { HELP, UsageError, parseCli } from '../lib/cli.ts';
import { fromRoot, repoRoot } from '../lib/paths.ts';

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

try {
  const plan = parseCli(process.argv.slice(2), process.cwd(), process.env);
  if (plan.help) {
    process.stdout.write(`${HELP}\n`);
  } else {
    const env = { ...process.env, ...plan.env };
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    if (plan.planOnly) {
      process.exitCode = await run(process.execPath, [tsx, fromRoot('scripts', 'plan.ts')], env);
    } else {
      const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
      process.exitCode = await run(process.execPath, [playwright, 'test', '-c', fromRoot('playwright.config.ts'), '--project=json', '--project=xml', ...plan.playwrightArgs], env);
    }
  }
} catch (e) {
  if (e instanceof UsageError) {
    process.stderr.write(`iswc-conformance: ${e.message}\n(run with --help for the options)\n`);
    process.exitCode = 2;
  } else {
    throw e;
  }
}
