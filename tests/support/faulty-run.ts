import path from 'node:path';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';
import { childEnv, runPlaywright } from './run-playwright.ts';
import type { ChildRun } from './run-playwright.ts';

export interface FaultyRunOptions {
  /** Faults of the reference server's catalogue (server/faults.ts). */
  faults: readonly string[];
  /** Playwright's --grep: the cases to run. */
  grep: string;
  /** Where the run writes its reports (ISWC_REPORT_DIR) and its test results (a `test-results` folder inside). */
  dir: string;
  extraEnv?: Record<string, string | undefined>;
  /** Playwright's --reporter, replacing the configuration's reporters (e.g. `blob`, for a later merge-reports). */
  reporter?: string;
}

/**
 * The conformance projects (json and xml), run by Playwright as a user runs them, with every reporter of
 * playwright.config.ts, against a reference server on this machine that plays the given faults. What
 * the tests of the report files (Playwright's junit.xml, Allure's results and report) read.
 */
export async function runAgainstFaultyServer(options: FaultyRunOptions): Promise<ChildRun> {
  const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  const server = await startReferenceServer({ profile, key: EMBEDDED_KEY, faults: options.faults });
  try {
    const env = childEnv({ ISWC_BASE_URL: server.url, ISWC_SUBSCRIPTION_KEY: EMBEDDED_KEY, ISWC_REPORT_DIR: options.dir, ISWC_SEED: undefined, ISWC_TARGET: undefined, ISWC_WAIVERS: undefined, ...options.extraEnv });
    return await runPlaywright(['test', '--project=json', '--project=xml', '--grep', options.grep, '--output', path.join(options.dir, 'test-results'), ...(options.reporter ? [`--reporter=${options.reporter}`] : [])], env, { timeoutMs: 240_000 });
  } finally {
    await server.close();
  }
}
