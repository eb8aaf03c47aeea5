import { mkdtempSync, rmSync } from 'node:fs';
import { formatsLabel } from '../contract/profile/types.ts';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FullConfig } from '@playwright/test';
import { ConfigError, readConfig } from '../config/config.ts';
import type { RunConfig } from '../config/config.ts';
import { headerPlaceholder } from '../config/headers.ts';
import { describeRoute } from '../config/proxy.ts';
import { parseRate } from '../config/rate.ts';
import type { RunContext } from '../config/run-context.ts';
import { RUN_CONTEXT_VARIABLE } from '../config/run-context.ts';
import { loadProfile, ProfileError } from '../contract/profile/load.ts';
import { checkDigitNotice } from '../contract/profile/findings.ts';
import { WaiverError } from '../report/waivers/load.ts';
import { EXIT } from '../cli/command.ts';
import { ENGINE_SLOT, RunEngine } from '../engine/engine.ts';
import { startEngineService } from '../engine/service.ts';
import { watchInterruptions } from '../foundation/interrupt.ts';
import { shownPath } from '../foundation/paths.ts';
import { longRunNotice } from '../run/estimate.ts';
import { shardRefusal } from '../run/open-runs.ts';
import { runDay, runWaivers } from '../report/waivers/run.ts';
import { isLive, coversText } from '../report/waivers/apply.ts';
import type { WaiverSet } from '../report/waivers/types.ts';
import { PLAN_SLICES, planSuite, suiteOptionsFrom } from '../run/plan.ts';
import type { SliceInfo } from '../run/budget.ts';
import { plannedTests, writePlanFile } from '../run/plan-file.ts';
import type { RunningServer } from '../../server/index.ts';

/** Waivers already past their day when the run starts, said now rather than after an hour of sending: their failures gate again. */
export function expiredWaiverLines(set: WaiverSet, today: string): string[] {
  const expired = set.waivers.filter((w) => !isLive(w, today));
  if (expired.length === 0) return [];
  return [
    `  ! ${expired.length} waiver${expired.length === 1 ? ' has' : 's have'} expired (today is ${today} UTC): ${expired.length === 1 ? 'its' : 'their'} failures gate again; renew or remove ${expired.length === 1 ? 'it' : 'them'} in ${shownPath(set.file)}`,
    ...expired.map((w) => `    entry ${w.index} (line ${w.line}) ${coversText(w)}, until ${w.until}: ${w.reason}`),
  ];
}

/** What the console says of the way to the target: the proxy (never its credentials) and the extra headers (never their values). */
function networkLines(cfg: Readonly<RunConfig>): string[] {
  const route = describeRoute(cfg.network);
  const headers = cfg.headers.map((h) => `${h.name}: ${headerPlaceholder(h.name)}`);
  return [...(route ? [`  ${route}`] : []), ...(headers.length > 0 ? [`  extra headers ${headers.join(', ')}`] : [])];
}

/**
 * The run's settings, or the end of the run: a mistake in the configuration, the profile or the waivers
 * is said plainly (no stack trace) before anything starts and ends the run with exit 2, which the run
 * command passes on (lib/cli/commands/run.ts suiteExitCode).
 */
function settingsOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof ProfileError || e instanceof WaiverError)) throw e;
    process.stderr.write(`iswc-conformance: ${e.message}\n`);
    return process.exit(EXIT.USAGE);
  }
}

/**
 * Runs once before the workers start: starts the embedded reference server when no base URL is given,
 * fixes the seed, computes the plan once for the whole run, and starts the run's engine (one HTTP client
 * holding the rate and the circuit breaker, one judge, one redactor) that the tests ask to run their
 * cases. What it decided reaches every worker and reporter as one run context (one variable).
 */
export default async function globalSetup(playwright: FullConfig): Promise<() => Promise<void>> {
  // This process sends: the key is required (readConfig's one rule). The command line checked all this
  // already; plain `npx playwright test` meets it here.
  const { cfg, profile, waivers } = settingsOrExit(() => {
    const read = readConfig(process.env);
    // A malformed waivers file stops the run here, before any request, naming the file, entry and line.
    return { cfg: read, profile: loadProfile(read.targetFile), waivers: runWaivers(read.waivers) };
  });
  // Shards take no turns with each other: refused before anything starts, exit 2 as the command line does.
  const sharded = shardRefusal(profile, playwright.shard, '--shard');
  if (sharded) {
    process.stderr.write(`iswc-conformance: ${sharded}\n`);
    process.exit(EXIT.USAGE);
  }
  // Allure reads every file in its results directory: a run that writes Allure results starts from an
  // empty one. Runs with other reporters (blob shards, nested runs in tests) leave it alone.
  if (playwright.reporter.some(([name]) => name.includes('allure-playwright'))) {
    const results = path.join(cfg.reportDir, 'allure-results');
    try {
      rmSync(results, { recursive: true, force: true, maxRetries: 3 });
    } catch (e) {
      // Another run writing its reports to the same directory at this moment (ENOTEMPTY, EBUSY): said in one line, nothing sent.
      process.stderr.write(`iswc-conformance: cannot empty ${shownPath(results)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): another run is writing its reports to ${shownPath(cfg.reportDir)}; give this run a directory of its own (--report-dir DIR)\n`);
      process.exit(EXIT.USAGE);
    }
  }
  let server: RunningServer | undefined;
  // The reference server's modules are loaded only when it is started: a run against a target holds none of them.
  if (cfg.embedded) server = await (await import('../../server/index.ts')).startReferenceServer({ profile, key: cfg.key });
  const baseUrl = server?.url ?? cfg.baseUrl ?? '';
  const seed = cfg.seed ?? Math.floor(Math.random() * 2 ** 31);
  // ISWC_RATE is the whole gate's: a run sharded N ways paces each shard at its Nth.
  const shard = playwright.shard && playwright.shard.total > 1 ? playwright.shard : undefined;
  const wholeRate = parseRate(cfg.rate);
  const rate = wholeRate === null || !shard ? wholeRate : wholeRate / shard.total;
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-conformance-'));
  const planFile = path.join(dir, 'plan.json');
  const planned = await planSuite(profile, suiteOptionsFrom(cfg));
  writePlanFile(planFile, planned);
  const startedAt = new Date().toISOString();
  const breakerFile = path.join(dir, 'unresponsive');
  const maxDuration = process.env.ISWC_MAX_DURATION?.trim();
  const engine = new RunEngine({
    cfg,
    profile,
    baseUrl,
    seed,
    startedAt,
    breakerFile,
    planned,
    rate,
    tests: plannedTests(planned),
    ...(shard ? { shard } : {}),
    ...(cfg.maxDurationMs !== undefined ? { maxDurationMs: cfg.maxDurationMs, ...(maxDuration ? { maxDurationText: maxDuration } : {}) } : {}),
  });
  // SIGINT, SIGTERM, SIGHUP or the end of the process that started the run: no request after it; Playwright
  // ends the run and the reporters mark it interrupted.
  // The handlers stay until the process exits: the reporters write after the global teardown, and a signal
  // then (a duplicate, or the user's second) must be counted as one, never end the process unsaid.
  watchInterruptions({ onFirst: (_signal, reason) => engine.stop({ kind: 'interrupted', reason }), write: (text) => process.stderr.write(text) });
  const service = await startEngineService(engine);
  // The deferred-failures reporter, in this process, tells the engine which tests the run selected.
  (globalThis as Record<symbol, unknown>)[ENGINE_SLOT] = engine;
  const context: RunContext = { baseUrl, embedded: server !== undefined, seed, startedAt, breakerFile, planFile, engineUrl: service.url, engineToken: service.token };
  process.env[RUN_CONTEXT_VARIABLE] = JSON.stringify(context);
  const lines = [
    `iswc-conformance: target ${baseUrl}${server ? ' (embedded reference server)' : ''}, profile "${profile.name}"${formatsLabel(profile) ? ` (${formatsLabel(profile) ?? ''}: no other format is sent)` : ''}`,
    `  destructive ${cfg.destructive ? 'on' : 'off'}, strict ${cfg.strict ? 'on' : 'off'}, ISWC_RUNS=${cfg.runs}, ISWC_SEED=${seed}, rate ${rate === null ? 'unlimited' : `${rate.toFixed(3)}/s`}${shard ? ` (shard ${shard.current}/${shard.total}: its share of ${cfg.rate ?? 'the rate'}${cfg.budget !== undefined ? `, and of the budget of ${cfg.budget}` : ''})` : ''}`,
    ...budgetLines(cfg.budget, cfg.plan, PLAN_SLICES.get(planned), cfg.strict),
    ...(waivers ? [`  waivers ${shownPath(waivers.file)} (${waivers.waivers.length} entr${waivers.waivers.length === 1 ? 'y' : 'ies'})`, ...expiredWaiverLines(waivers, runDay(startedAt))] : []),
    ...checkDigitNotice(profile, shownPath(cfg.targetFile)),
    ...networkLines(cfg),
    ...(cfg.maxDurationMs !== undefined ? [`  stops sending after --max-duration ${maxDuration ?? `${cfg.maxDurationMs / 1000}s`}`] : []),
    ...longRunNotice(planned, { plan: cfg.plan, budget: cfg.budget, runs: cfg.runs, destructive: cfg.destructive, rate: wholeRate }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return async () => {
    delete (globalThis as Record<symbol, unknown>)[ENGINE_SLOT];
    await service.close();
    const restored = engine.restorations();
    if (restored !== undefined) process.stdout.write(`iswc-conformance: ${restored}\n`);
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
    await server?.close();
  };
}

/**
 * Under a budget: the budget, the slice of its rotation this run takes, and the ranking it walks, so that a
 * gate's console says which slice ran (the certificate and JUnit name it too).
 */
function budgetLines(budget: number | undefined, plan: string, slice: SliceInfo | undefined, strict: boolean): string[] {
  if (budget === undefined || plan === 'smoke') return [];
  const of = slice ? `, slice ${slice.index} of ${slice.of} (ISWC_SLICE=${slice.asked}; the next gate: --slice ${slice.asked + 1})` : '';
  return [`  budget ${budget} requests${of}, ranked for what fails a ${strict ? 'strict ' : ''}run${strict ? '' : ' (spec checks; with --strict, http checks too)'}`];
}
