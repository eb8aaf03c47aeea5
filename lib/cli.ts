import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ConfigError} from './config/config.ts';
import { checkBaseUrl, isLoopback } from './config/config.ts';
import { parseRate } from './config/rate.ts';
import { WaiverError, loadWaivers } from './report/waivers/load.ts';

export const HELP = `iswc-conformance: conformance run against the ISWC Agency Submission API

Usage: npx iswc-conformance [options]

Without --base-url the embedded reference server of the API is started for the run.

Options:
  --base-url URL     API under test (http:// or https://, no credentials). Env ISWC_BASE_URL.
  --target FILE      Target profile: what exists in the target (default fixtures/targets/embedded.json).
  --strict           http-level failures fail the run too (ISWC_STRICT=1).
  --rate R           Requests per second over the whole run, e.g. 5, 0.5, 10/min; 0 = no limit.
                     Default: no limit on the embedded server or a base URL on this machine
                     (localhost, 127.x, ::1), 10/min against a remote base URL.
  --budget N         Send at most N requests: cases are chosen by the distinct checks they cover,
                     generated inputs get what is left (ISWC_BUDGET).
  --smoke            Every spec check of the document once, in as few requests as possible.
  --destructive      Run checks that consume the profile's disposable entries (successful merge,
                     demerge, delete). On by default for the embedded server and a base URL on
                     this machine, off for a remote one.
  --grep RE          Only cases whose title matches (e.g. @smoke, @auth, merge).
  --shard I/N        Run shard I of N (merge shards with npx playwright merge-reports).
  --report-dir DIR   Where reports go (default ./reports).
  --runs N           Runs per property (ISWC_RUNS, default 100).
  --seed N           fast-check seed (ISWC_SEED); the run prints the one it used.
  --workers N        Playwright workers (default 2).
  --waivers FILE     Known deviations of the target, waived in the open (YAML, schema
                     schemas/waivers.schema.json): a failure a live waiver matches is reported as
                     "waived" with its reason and does not fail the run, until the waiver's date
                     (ISWC_WAIVERS). A malformed file stops here, before any request.
  --require-all      Fail the run when a spec check of the document was not exercised (non-destructive
                     mode, --budget, --smoke, --grep, entries used up): ISWC_REQUIRE_ALL=1.
  --plan             Print the plan (cases, requests, time at the rate, requests that change data)
                     and exit without sending anything.
  -h, --help         This text.

The subscription key is read only from the environment variable ISWC_SUBSCRIPTION_KEY, never from a
flag or a file, and is written nowhere (reports and curl lines show $ISWC_SUBSCRIPTION_KEY).
Exit status: 0 when no spec check failed (and with --strict no http check; with --require-all every
spec check was exercised), 1 otherwise, 2 on bad usage (a malformed waivers file included).`;

export interface CliPlan {
  /** Environment for the run (added to the caller's). */
  env: Record<string, string>;
  /** Extra arguments for `playwright test`. */
  playwrightArgs: string[];
  /** Print the plan instead of running. */
  planOnly: boolean;
  help: boolean;
}

export class UsageError extends Error {
  readonly code = 'ISWC_USAGE';
}

/** Turns command-line arguments into the run's environment; refuses anything unsafe before a request is sent. */
export function parseCli(argv: string[], cwd: string, env: NodeJS.ProcessEnv): CliPlan {
  if (argv.some((a) => /^--(key|subscription-key|api-key)\b/.test(a))) {
    throw new UsageError('the subscription key is never taken from a flag: set ISWC_SUBSCRIPTION_KEY in the environment');
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        'base-url': { type: 'string' },
        target: { type: 'string' },
        strict: { type: 'boolean' },
        rate: { type: 'string' },
        budget: { type: 'string' },
        smoke: { type: 'boolean' },
        destructive: { type: 'boolean' },
        grep: { type: 'string' },
        shard: { type: 'string' },
        'report-dir': { type: 'string' },
        runs: { type: 'string' },
        seed: { type: 'string' },
        workers: { type: 'string' },
        plan: { type: 'boolean' },
        waivers: { type: 'string' },
        'require-all': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const out: CliPlan = { env: {}, playwrightArgs: [], planOnly: values.plan === true, help: values.help === true };
  if (out.help) return out;
  const str = (name: string): string | undefined => (typeof values[name] === 'string' ? (values[name]) : undefined);
  const baseUrl = str('base-url') ?? env.ISWC_BASE_URL;
  if (baseUrl) {
    try {
      out.env.ISWC_BASE_URL = checkBaseUrl(baseUrl);
    } catch (e) {
      throw new UsageError((e as ConfigError).message.replace('ISWC_BASE_URL', '--base-url'));
    }
    if (!env.ISWC_SUBSCRIPTION_KEY && !isLoopback(out.env.ISWC_BASE_URL)) {
      throw new UsageError('ISWC_SUBSCRIPTION_KEY is not set: a remote base URL needs the subscription key in the environment');
    }
  }
  const target = str('target');
  if (target) out.env.ISWC_TARGET = path.resolve(cwd, target);
  if (values.strict) out.env.ISWC_STRICT = '1';
  if (values.destructive) out.env.ISWC_DESTRUCTIVE = '1';
  if (values.smoke) out.env.ISWC_PLAN = 'smoke';
  if (values['require-all']) out.env.ISWC_REQUIRE_ALL = '1';
  const waivers = str('waivers') ?? (env.ISWC_WAIVERS?.trim() || undefined);
  if (waivers !== undefined) {
    const file = path.resolve(cwd, waivers);
    try {
      loadWaivers(file);
    } catch (e) {
      if (e instanceof WaiverError) throw new UsageError(e.message);
      throw e;
    }
    out.env.ISWC_WAIVERS = file;
  }
  const rate = str('rate');
  if (rate !== undefined) {
    try {
      parseRate(rate);
    } catch (e) {
      throw new UsageError(`--rate: ${(e as Error).message}`);
    }
    out.env.ISWC_RATE = rate;
  }
  for (const [flag, name] of [['budget', 'ISWC_BUDGET'], ['runs', 'ISWC_RUNS'], ['workers', 'ISWC_WORKERS']] as const) {
    const v = str(flag);
    if (v === undefined) continue;
    if (!/^[1-9][0-9]*$/.test(v)) throw new UsageError(`--${flag} must be a positive integer, got "${v}"`);
    out.env[name] = v;
  }
  const seed = str('seed');
  if (seed !== undefined) {
    if (!/^-?[0-9]+$/.test(seed)) throw new UsageError(`--seed must be an integer, got "${seed}"`);
    out.env.ISWC_SEED = seed;
  }
  out.env.ISWC_REPORT_DIR = path.resolve(cwd, str('report-dir') ?? env.ISWC_REPORT_DIR ?? 'reports');
  const grep = str('grep');
  if (grep !== undefined) out.playwrightArgs.push(`--grep=${grep}`);
  const shard = str('shard');
  if (shard !== undefined) {
    if (!/^[1-9][0-9]*\/[1-9][0-9]*$/.test(shard)) throw new UsageError(`--shard must look like 1/3, got "${shard}"`);
    out.playwrightArgs.push(`--shard=${shard}`);
  }
  return out;
}
