import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FullConfig } from '@playwright/test';
import { config } from '../lib/config/config.ts';
import { parseRate } from '../lib/config/rate.ts';
import type { RunContext } from '../lib/config/run-context.ts';
import { RUN_CONTEXT_VARIABLE } from '../lib/config/run-context.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { runWaivers } from '../lib/report/waivers/run.ts';
import { startPacer } from '../lib/run/http/pacer.ts';
import type { Pacer } from '../lib/run/http/pacer.ts';
import { planSuite, suiteOptionsFrom } from '../lib/run/plan.ts';
import { writePlanFile } from '../lib/run/plan-file.ts';
import { startReferenceServer } from '../server/index.ts';
import type { RunningServer } from '../server/index.ts';

/**
 * Runs once before the workers start: starts the embedded reference server when no base URL is given,
 * fixes the seed, starts the pacer that holds the rate across workers, and computes the plan once for
 * the whole run. What it decided reaches every worker and reporter as one run context (one variable).
 */
export default async function globalSetup(playwright: FullConfig): Promise<() => Promise<void>> {
  const cfg = config();
  const profile = loadProfile(cfg.targetFile);
  // A malformed waivers file stops the run here, before any request, naming the file, entry and line.
  const waivers = runWaivers(cfg.waivers);
  // Allure reads every file in its results directory: a run that writes Allure results starts from an
  // empty one. Runs with other reporters (blob shards, nested runs in tests) leave it alone.
  if (playwright.reporter.some(([name]) => name.includes('allure-playwright'))) {
    rmSync(path.join(cfg.reportDir, 'allure-results'), { recursive: true, force: true, maxRetries: 3 });
  }
  let server: RunningServer | undefined;
  if (cfg.embedded) server = await startReferenceServer({ profile, key: cfg.key });
  const baseUrl = server?.url ?? cfg.baseUrl ?? '';
  const seed = cfg.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rate = parseRate(cfg.rate);
  let pacer: Pacer | undefined;
  if (rate !== null) pacer = await startPacer(rate);
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-conformance-'));
  const planFile = path.join(dir, 'plan.json');
  writePlanFile(planFile, await planSuite(profile, suiteOptionsFrom(cfg)));
  const context: RunContext = {
    baseUrl,
    embedded: server !== undefined,
    seed,
    ...(pacer ? { pacerUrl: pacer.url } : {}),
    startedAt: new Date().toISOString(),
    breakerFile: path.join(dir, 'unresponsive'),
    planFile,
  };
  process.env[RUN_CONTEXT_VARIABLE] = JSON.stringify(context);
  const lines = [
    `iswc-conformance: target ${baseUrl}${server ? ' (embedded reference server)' : ''}, profile "${profile.name}"`,
    `  destructive ${cfg.destructive ? 'on' : 'off'}, strict ${cfg.strict ? 'on' : 'off'}, ISWC_RUNS=${cfg.runs}, ISWC_SEED=${seed}, rate ${rate === null ? 'unlimited' : `${rate.toFixed(3)}/s`}`,
    ...(waivers ? [`  waivers ${waivers.file} (${waivers.waivers.length} entr${waivers.waivers.length === 1 ? 'y' : 'ies'})`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    await pacer?.close();
    await server?.close();
  };
}
