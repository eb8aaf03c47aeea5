import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { onStop, signalWindow } from '../../foundation/interrupt.ts';
import { fromRoot, repoRoot } from '../../foundation/paths.ts';
import { outcomeOf } from '../../report/outcome.ts';
import type { RunOutcome } from '../../report/outcome.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../command.ts';
import type { RunPlan } from '../run-args.ts';
import { parseRunArgs, RUN_ENVIRONMENT, RUN_EXIT_CODES, RUN_OPTIONS, RUN_PROCESS_DEFAULTS } from '../run-args.ts';

/**
 * `npx iswc-conformance run` (the default command): the conformance projects of playwright.config.ts
 * (json and xml) against ISWC_BASE_URL or the embedded reference server, with flags mapped onto the
 * ISWC_* variables the run reads. Its exit code comes from what the run recorded (conformance.json's
 * summary.outcome), whatever Playwright's own is.
 */

/** The environment of the Playwright run: the caller's, the run's settings, and the process defaults. */
export function playwrightEnv(plan: RunPlan, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const nodeOptions = env.NODE_OPTIONS?.includes('--max-semi-space-size') ? env.NODE_OPTIONS : `${RUN_PROCESS_DEFAULTS.nodeOptions} ${env.NODE_OPTIONS ?? ''}`.trim();
  return { ...env, ISWC_WORKERS: env.ISWC_WORKERS?.trim() || RUN_PROCESS_DEFAULTS.workers, ...plan.env, NODE_OPTIONS: nodeOptions };
}

/**
 * Runs the conformance projects through Playwright; resolves with Playwright's exit code (130 when a
 * signal ended it). SIGINT, SIGTERM and SIGHUP sent to this process are forwarded to the run, and so is
 * the end of the process that started this one (npm, npx, a shell: lib/foundation/launchers.ts), as a SIGHUP. They
 * are counted by the rule the run applies (lib/foundation/interrupt.ts signalWindow): a terminal's Ctrl-C reaches
 * both processes, and npm forwards it too, so signals within a second of the first are the same one and
 * are not forwarded again; a later one is the second, which the run answers by exiting at once. The run
 * watches this process in turn (it stops when this one is killed). The handlers are removed when the run
 * ends, however it ends.
 */
export function runPlaywrightSuite(plan: RunPlan, env: NodeJS.ProcessEnv, options: { live?: boolean } = {}): Promise<number> {
  const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const args = [cli, 'test', '-c', fromRoot('playwright.config.ts'), '--project=json', '--project=xml', ...plan.playwrightArgs];
  const childEnv = { ...playwrightEnv(plan, env), ...(options.live ? { ISWC_PROGRESS: 'live' } : {}) };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, env: childEnv, stdio: 'inherit' });
    const count = signalWindow();
    let signalled = false;
    const stopWatch = onStop(({ signal }) => {
      const which = count();
      // Within the window, the same signal; a later hangup is no second signal either (the run watches the launchers too).
      if (which === 'same' || (which === 'second' && signal === 'SIGHUP')) return;
      signalled = true;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
    // This process ending for any other reason must not leave the run behind.
    const orphan = (): void => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const teardown = (): void => {
      stopWatch();
      process.off('exit', orphan);
    };
    process.on('exit', orphan);
    child.on('error', (e) => {
      teardown();
      process.stderr.write(`iswc-conformance: cannot start the run (${e.message})\n`);
      resolve(EXIT.INTERNAL);
    });
    child.on('exit', (code, signal) => {
      teardown();
      resolve(code ?? (signal !== null || signalled ? EXIT.INTERRUPTED : EXIT.INTERNAL));
    });
  });
}

/** The outcome conformance.json recorded, when the run wrote one (at or after `since`); else undefined. */
export function recordedOutcome(reportDir: string, since: number): RunOutcome | undefined {
  const file = path.join(reportDir, 'conformance.json');
  if (!existsSync(file) || statSync(file).mtimeMs < since - 1000) return undefined;
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as { summary?: { outcome?: RunOutcome; verdict?: string } };
    return report.summary?.verdict === undefined ? undefined : outcomeOf({ verdict: report.summary.verdict, ...(report.summary.outcome ? { outcome: report.summary.outcome } : {}) });
  } catch {
    return undefined;
  }
}

/**
 * The exit code of a run: the one its report records (0, 1, 3, 130), else what Playwright's tells. A
 * report that says 0 while Playwright failed (a report that broke its schema, a test that crashed) is a
 * defect of the harness (4); a run that wrote no report was interrupted (130), refused its settings in
 * the global setup (2, which it printed), matched no case of --grep (2), or failed before its first test (4).
 */
export function suiteExitCode(playwrightCode: number, outcome: RunOutcome | undefined, grep: boolean): { code: number; why?: string } {
  if (outcome) {
    if (outcome.exitCode !== EXIT.OK) return { code: outcome.exitCode };
    if (playwrightCode === EXIT.OK) return { code: EXIT.OK };
    if (playwrightCode === EXIT.INTERRUPTED) return { code: EXIT.INTERRUPTED };
    return { code: EXIT.INTERNAL, why: `the report reads conformant but Playwright failed (exit ${playwrightCode}): see the messages above` };
  }
  if (playwrightCode === EXIT.INTERRUPTED) return { code: EXIT.INTERRUPTED };
  // The global setup refused the configuration, the profile or the waivers, and said why (Playwright's own codes are 0, 1 and 130).
  if (playwrightCode === EXIT.USAGE) return { code: EXIT.USAGE };
  if (playwrightCode === EXIT.OK && grep) return { code: EXIT.USAGE, why: 'no case matched --grep: nothing was sent and no report was written' };
  return { code: EXIT.INTERNAL, why: `the run wrote no report (Playwright exit ${playwrightCode}): see the messages above` };
}

/**
 * Removes the empty per-test folders Playwright leaves in the run's test-results (one per test; only a
 * test that wrote something, such as a failure's error-context.md, fills its own), so that the report
 * directory holds what a reader can open. Only empty folders go; nothing else is touched.
 */
export function pruneEmptyTestResults(reportDir: string): void {
  const dir = path.join(reportDir, 'test-results');
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    const folder = path.join(dir, name);
    try {
      if (statSync(folder).isDirectory() && readdirSync(folder).length === 0) rmdirSync(folder);
    } catch {
      // Gone already, or not ours to remove: the reports do not depend on it.
    }
  }
}

/** Runs the suite and ends with the exit code its report records. */
export async function runSuite(plan: RunPlan, env: NodeJS.ProcessEnv, io: CliIo): Promise<{ code: number; outcome?: RunOutcome }> {
  const started = Date.now();
  const reportDir = plan.env.ISWC_REPORT_DIR ?? path.resolve(io.cwd, env.ISWC_REPORT_DIR?.trim() || 'reports');
  const grep = plan.playwrightArgs.some((a) => a.startsWith('--grep='));
  const playwrightPlan = grep ? { ...plan, playwrightArgs: [...plan.playwrightArgs, '--pass-with-no-tests'] } : plan;
  const playwrightCode = await runPlaywrightSuite(playwrightPlan, env, { live: io.isTty === true });
  pruneEmptyTestResults(reportDir);
  const outcome = recordedOutcome(reportDir, started);
  const { code, why } = suiteExitCode(playwrightCode, outcome, grep);
  if (why) io.stderr(`iswc-conformance: ${why} (exit ${code})\n`);
  return { code, ...(outcome ? { outcome } : {}) };
}

export const runCommand: Command = {
  name: 'run',
  summary: 'the conformance run against a target (the default command)',
  usage: 'npx iswc-conformance [run] [options]',
  description:
    'Sends valid and invalid requests in JSON and XML (JSON only when the target profile says "formats": ["json"]) to the four operations, judges every answer against the interface document and writes reports/conformance.{json,html}, reports/conformance-junit.xml and reports/junit.xml. Without --base-url the embedded reference server of the API is started for the run. On a terminal a live line shows requests sent of planned, failures, time elapsed and left, and time waiting on throttling; without one, a line every 30 s. A run estimated over 15 minutes prints the estimate and the cheaper choices first. SIGINT (Ctrl-C), SIGTERM or SIGHUP, sent to this command or to the npm or npx that started it, stops sending within a second and writes the reports marked interrupted (exit 130); so does the end of the process that started it (npm killed, a closed terminal). Signals within a second of the first are the same one (a terminal\'s Ctrl-C reaches npm too, which forwards it), a signal a second or more later exits at once, also 130.',
  options: RUN_OPTIONS,
  environment: RUN_ENVIRONMENT,
  exitCodes: RUN_EXIT_CODES,
  async run({ values }, io: CliIo): Promise<number> {
    const plan = parseRunArgs(values, io.cwd, io.env);
    const env = { ...io.env, ...plan.env };
    if (plan.planOnly) {
      // The planner's modules only here: a run plans in its Playwright process, not in this one.
      const { planText } = await import('./plan.ts');
      io.stdout(`${await planText(env)}\n`);
      return EXIT.OK;
    }
    return (await runSuite(plan, env, io)).code;
  },
};
