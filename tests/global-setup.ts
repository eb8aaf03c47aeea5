import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FullConfig } from '@playwright/test';
import { readConfig } from '../lib/engine/config.ts';
import { startPacer } from '../lib/http/pacer.ts';
import type { Pacer } from '../lib/http/pacer.ts';
import { parseRate } from '../lib/http/rate.ts';
import { loadProfile } from '../lib/profile/load.ts';
import { runWaivers } from '../lib/waivers/run.ts';
import { startReferenceServer } from '../server/index.ts';
import type { RunningServer } from '../server/index.ts';

/** The published production limit (DOMAIN.md): the default pace against a remote base URL. */
const REMOTE_DEFAULT_RATE = '10/min';

/**
 * Runs once before the workers start: starts the embedded reference server when no base URL is given,
 * fixes the seed for every worker, and starts the pacer that holds the rate limit across workers.
 * Whatever it decides reaches the workers and the reporters through the environment.
 */
export default async function globalSetup(playwright: FullConfig): Promise<() => Promise<void>> {
  const config = readConfig();
  const profile = loadProfile(config.targetFile);
  // A malformed waivers file stops the run here, before any request, naming the file, entry and line.
  const waivers = runWaivers(config.waivers);
  // Allure reads every file in its results directory: a run that writes Allure results starts from an
  // empty one. Runs with other reporters (blob shards, nested runs in tests) leave it alone.
  if (playwright.reporter.some(([name]) => name.includes('allure-playwright'))) {
    rmSync(path.join(config.reportDir, 'allure-results'), { recursive: true, force: true, maxRetries: 3 });
  }
  let server: RunningServer | undefined;
  if (!config.baseUrl) {
    server = await startReferenceServer({ profile, key: config.key });
    process.env.ISWC_BASE_URL = server.url;
    process.env.ISWC_EMBEDDED = '1';
  }
  if (!process.env.ISWC_SEED) process.env.ISWC_SEED = String(Math.floor(Math.random() * 2 ** 31));
  const rate = parseRate(config.rate ?? (config.local ? undefined : REMOTE_DEFAULT_RATE));
  let pacer: Pacer | undefined;
  if (rate !== null) {
    pacer = await startPacer(rate);
    process.env.ISWC_PACER_URL = pacer.url;
  }
  process.env.ISWC_RUN_STARTED = new Date().toISOString();
  // Shared by every client of the run: once the target is found unresponsive, no worker waits on it again.
  const breakerDir = mkdtempSync(path.join(tmpdir(), 'iswc-conformance-'));
  process.env.ISWC_UNRESPONSIVE_FILE = path.join(breakerDir, 'unresponsive');
  const lines = [
    `iswc-conformance: target ${process.env.ISWC_BASE_URL}${server ? ' (embedded reference server)' : ''}, profile "${profile.name}"`,
    `  destructive ${config.destructive ? 'on' : 'off'}, strict ${config.strict ? 'on' : 'off'}, ISWC_RUNS=${config.runs}, ISWC_SEED=${process.env.ISWC_SEED}, rate ${rate === null ? 'unlimited' : `${rate.toFixed(3)}/s`}`,
    ...(waivers ? [`  waivers ${waivers.file} (${waivers.waivers.length} entr${waivers.waivers.length === 1 ? 'y' : 'ies'})`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return async () => {
    rmSync(breakerDir, { recursive: true, force: true });
    await pacer?.close();
    await server?.close();
  };
}
