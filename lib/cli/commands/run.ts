import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readConfig } from '../../config/config.ts';
import { loadProfile } from '../../contract/profile/load.ts';
import { fromRoot, repoRoot } from '../../paths.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../command.ts';
import type { RunPlan } from '../run-args.ts';
import { parseRunArgs, RUN_ENVIRONMENT, RUN_EXIT_CODES, RUN_OPTIONS, RUN_PROCESS_DEFAULTS } from '../run-args.ts';
import { renderPlan } from './plan.ts';

/**
 * `npx iswc-conformance run` (the default command): the conformance projects of playwright.config.ts
 * (json and xml) against ISWC_BASE_URL or the embedded reference server, with flags mapped onto the
 * ISWC_* variables the run reads.
 */

/** The environment of the Playwright run: the caller's, the run's settings, and the process defaults. */
export function playwrightEnv(plan: RunPlan, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const nodeOptions = env.NODE_OPTIONS?.includes('--max-semi-space-size') ? env.NODE_OPTIONS : `${RUN_PROCESS_DEFAULTS.nodeOptions} ${env.NODE_OPTIONS ?? ''}`.trim();
  return { ...env, ISWC_WORKERS: env.ISWC_WORKERS?.trim() || RUN_PROCESS_DEFAULTS.workers, ...plan.env, NODE_OPTIONS: nodeOptions };
}

/** Runs the conformance projects through Playwright; resolves with Playwright's exit code. */
export function runPlaywrightSuite(plan: RunPlan, env: NodeJS.ProcessEnv): Promise<number> {
  const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const args = [cli, 'test', '-c', fromRoot('playwright.config.ts'), '--project=json', '--project=xml', ...plan.playwrightArgs];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, env: playwrightEnv(plan, env), stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? EXIT.INTERRUPTED : EXIT.INTERNAL));
    });
  });
}

export const runCommand: Command = {
  name: 'run',
  summary: 'the conformance run against a target (the default command)',
  usage: 'npx iswc-conformance [run] [options]',
  description:
    'Sends valid and invalid requests in JSON and XML to the four operations, judges every answer against the interface document and writes reports/conformance.{json,html}, reports/conformance-junit.xml and reports/junit.xml. Without --base-url the embedded reference server of the API is started for the run.',
  options: RUN_OPTIONS,
  environment: RUN_ENVIRONMENT,
  exitCodes: RUN_EXIT_CODES,
  async run({ values }, io: CliIo): Promise<number> {
    const plan = parseRunArgs(values, io.cwd, io.env);
    const env = { ...io.env, ...plan.env };
    if (plan.planOnly) {
      const config = readConfig(env, { requireKey: false });
      io.stdout(`${await renderPlan(config, loadProfile(config.targetFile))}\n`);
      return EXIT.OK;
    }
    return runPlaywrightSuite(plan, env);
  },
};
