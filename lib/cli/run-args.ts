import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { checkBaseUrl, ConfigError, parseDuration, readConfig } from '../config/config.ts';
import type { ExtraHeader } from '../config/headers.ts';
import { checkExtraHeaders, HEADERS_VARIABLE, headersVariableText, mergeExtraHeaders, parseHeaderArgument, parseHeadersVariable } from '../config/headers.ts';
import { subscriptionKeyHeader } from '../contract/openapi.ts';
import { parseRate } from '../config/rate.ts';
import { DEFAULTS } from '../config/defaults.ts';
import { loadProfile } from '../contract/profile/load.ts';
import type { OpenRuns as OpenRunsSetting } from '../contract/profile/types.ts';
import { PROFILE_DEFAULTS } from '../contract/profile/types.ts';
import { shardRefusal } from '../run/open-runs.ts';
import { profileDigest, shortDigest } from '../report/binding.ts';
import { readReport } from '../report/validate.ts';
import { loadWaivers, WaiverError } from '../report/waivers/load.ts';
import type { Command, OptionSpec, OptionValues } from './command.ts';
import { CALLER_CWD_VARIABLE } from '../foundation/paths.ts';
import { environmentOf, RUN_VARIABLES } from './environment.ts';
import { EXIT, exitMeaning, listOption, stringOption, unwritableMessage, UsageError } from './command.ts';

/**
 * The options of a conformance run, shared by the commands that start one or describe one (run, plan,
 * certify), and the one function that turns them into the run's ISWC_* environment.
 */

/** The options a run is selected and paced by (shared with `plan` and `certify`). */
export const SELECTION_OPTIONS: Record<string, OptionSpec> = {
  'base-url': { type: 'string', value: 'URL', description: 'API under test (http:// or https://, no credentials, no query). Default: the embedded reference server, started for the run (ISWC_BASE_URL).' },
  target: { type: 'string', value: 'FILE', description: 'Target profile: what exists in the target (ISWC_TARGET; default fixtures/targets/embedded.json).' },
  destructive: {
    type: 'boolean',
    description:
      "Run checks that consume the profile's disposable entries (successful merge, demerge, delete). On by default for the embedded server and a base URL on this machine, off for a remote one (ISWC_DESTRUCTIVE=1). With a reusable profile (\"reusable\": true) only the changes the run undoes are made, each entry is shown as found at the end, and no entry is consumed (docs/target-profile.md).",
  },
  smoke: { type: 'boolean', description: 'Every spec check of the document once, and every fault of the catalogue the mode can catch, in as few requests as possible (ISWC_PLAN=smoke).' },
  budget: {
    type: 'string',
    value: 'N',
    description:
      'Send at most N requests, resends after 429, 503 and maintenance included (a cap): cases are taken in the committed ranking (the most faults of the catalogue caught per request first, then every spec check once; without --strict only the faults a spec check catches count, since an http check fails no such run), generated inputs get what is left; a case starts only when it fits in what is left (ISWC_BUDGET). What the first answers show steers the rest: a case they show can tell nothing on this target (a format it does not serve, a preferred ISWC it looks up first) is left out with the reason, and the cases next in the ranking run in its place; never one that would exercise a spec check not yet exercised. Each shard of a sharded run takes its share.',
  },
  slice: {
    type: 'string',
    value: 'N',
    description:
      "With --budget: which slice of the budget's rotation to run (ISWC_SLICE, default 0). Every slice proves the key on every operation and the breadth that fits half the budget; the rest of the ranking is cut into slices of what is left, and slice N takes the (N modulo their number)th, so gates given 0, 1, 2, … (a build number, a counter your CI keeps) together send what one run of their combined budget sends. `plan --budget N` shows the schedule; the reports name the slice, so a slice can be replayed.",
  },
  runs: { type: 'string', value: 'N', description: 'Runs per property-based check (ISWC_RUNS, default 100).' },
  rate: {
    type: 'string',
    value: 'R',
    description: 'Requests over the whole run, a count per unit: 10/min, 5/s, 600/h; 0 = no limit (ISWC_RATE). A bare number is refused: write its unit. Default: no limit on the embedded server or a base URL on this machine, 10/min on a remote one. Each shard of a sharded run paces itself at its share.',
  },
};

export const RUN_OPTIONS: Record<string, OptionSpec> = {
  ...SELECTION_OPTIONS,
  strict: { type: 'boolean', description: 'http-level failures fail the run too (ISWC_STRICT=1).' },
  grep: { type: 'string', value: 'RE', description: 'Only cases whose title matches (e.g. @smoke, @auth, merge).' },
  shard: { type: 'string', value: 'I/N', description: 'Run shard I of N (merge shards with npx playwright merge-reports). Refused (exit 2) with a target profile whose openRuns is "one": shards take no turns with each other.' },
  'report-dir': { type: 'string', value: 'DIR', description: 'Where reports go (ISWC_REPORT_DIR, default ./reports).' },
  seed: { type: 'string', value: 'N', description: 'fast-check seed (ISWC_SEED); the run prints the one it used.' },
  workers: { type: 'string', value: 'N', description: 'Playwright workers (ISWC_WORKERS, default 1).' },
  waivers: {
    type: 'string',
    value: 'FILE',
    description:
      'Known deviations of the target, waived in the open (YAML, schema schemas/waivers.schema.json), each as narrow as its deviation: a failure of a live waiver\'s check (on its operation and format, in its cases and at its steps, where given) whose answer looks like the deviation (one of its statuses; its code and text, where given) is reported as "waived" with its reason and does not fail the run, until the waiver\'s date (ISWC_WAIVERS). A failure of that check that looks otherwise still fails and says what the waiver covers. A malformed file stops here, before any request.',
  },
  header: {
    type: 'string',
    multiple: true,
    value: "'NAME: VALUE'",
    description:
      "Add a header to every request to the base URL's origin (a company gateway's token, a trace id); repeatable. Its value is written nowhere: records and curl lines show a shell variable instead (X-Trace-Id: $ISWC_HEADER_X_TRACE_ID). Headers the harness owns are refused (the subscription key, Host, Content-Length, Content-Type, Transfer-Encoding, Accept, Accept-Encoding, User-Agent, hop-by-hop ones). Adds to ISWC_HEADERS; a secret belongs there rather than in a flag, which process lists show.",
  },
  'require-all': { type: 'boolean', description: 'Fail the run when a spec check of the document was not exercised (non-destructive mode, --budget, --smoke, --grep, entries used up): ISWC_REQUIRE_ALL=1.' },
  'max-duration': {
    type: 'string',
    value: 'D',
    description:
      'Stop sending once the run has lasted D (90s, 20m, 1.5h, 1h30m; a bare number is refused: write its unit) and report a partial run: every case not sent is listed with "stopped at --max-duration" (ISWC_MAX_DURATION). The exit code is then that of what was judged (0 or 1).',
  },
  'maintenance-wait': {
    type: 'string',
    value: 'D',
    description:
      'How long a target in maintenance (every request answered 502, 503 without Retry-After, or 504) is waited out before the run stops with exit 3 (ISWC_MAINTENANCE_WAIT, default 63s): six resends, the waits doubling, adding up to D (90s, 10m; a bare number is refused).',
  },
  plan: { type: 'boolean', description: 'Print the plan (cases, requests, time at the rate, requests that change data) and exit without sending anything; the same as the plan command.' },
  'same-inputs-as': {
    type: 'string',
    value: 'FILE',
    description:
      "Generate the same inputs as the run of this conformance.json, so that a diff against it compares like with like: its seed, ISWC_RUNS, plan and budget. Its profile too: refused when the profile of this run differs from that run's by content (pass --target with it). Not with --seed, --runs, --smoke or --budget; --destructive and --strict are not taken (the diff flags them).",
  },
};

/** The variables a run reads, with their meaning and default: the one table of lib/cli/environment.ts. */
export const RUN_ENVIRONMENT: ReadonlyArray<readonly [string, string]> = environmentOf(RUN_VARIABLES);

export const RUN_EXIT_CODES: Command['exitCodes'] = [
  exitMeaning(EXIT.OK, `: no spec check failed (with --strict no http check either; with --require-all every spec check was exercised); a partial run (--smoke, --budget, --max-duration) too, unless --require-all`),
  exitMeaning(EXIT.NOT_CONFORMANT, `: a gating check failed`),
  exitMeaning(EXIT.USAGE, `; also a base URL without ISWC_SUBSCRIPTION_KEY, a key under 8 characters, and a --grep that matches no case`),
  exitMeaning(EXIT.TARGET_UNUSABLE, `: the run stops sending and says why (conformance.json summary.outcome; JUnit carries an error test case); also a destructive run whose only obstacle was disposable entries an earlier run against the same target consumed (named, with what to do; summary.outcome data-consumed)`),
  exitMeaning(EXIT.INTERNAL),
  exitMeaning(EXIT.INTERRUPTED, `: nothing is sent after the signal, the reports are marked interrupted; a second signal, a second or more after the first, exits at once`),
];

/**
 * `--same-inputs-as FILE`: the settings that decide which inputs a run generates, taken from that run's
 * report (seed, ISWC_RUNS, plan and budget, as variables that win over the caller's), after checking that
 * this run's profile is that run's by content. A budget that run did not have is cleared.
 */
export function sameInputsAs(file: string, values: OptionValues, profileFile: string | undefined): Record<string, string> {
  const given = ['seed', 'runs', 'smoke', 'budget'].filter((name) => values[name] !== undefined);
  if (given.length > 0) throw new UsageError(`--same-inputs-as takes the seed, runs, plan and budget from ${file}: give it without --${given.join(', --')}`);
  let report;
  try {
    report = readReport(file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(err.code === 'ENOENT' ? `--same-inputs-as: no report at ${file}` : `--same-inputs-as: ${err.message}`);
  }
  const { meta } = report;
  if (meta.seed === null) throw new UsageError(`--same-inputs-as: ${file} records no seed; its generated inputs cannot be made again`);
  if (!meta.plan) throw new UsageError(`--same-inputs-as: ${file} records no plan (ISWC_PLAN, ISWC_BUDGET; reports written before the plan was recorded): give --seed ${meta.seed} --runs ${meta.runs} and the plan that run had instead`);
  const profile = loadProfile(profileFile ?? DEFAULTS.targetFile);
  const digest = profileDigest(profile);
  if (meta.profileDigest !== undefined ? meta.profileDigest !== digest : meta.profile !== profile.name) {
    throw new UsageError(
      `--same-inputs-as: ${file} was made with profile "${meta.profile}" ${shortDigest(meta.profileDigest)}, this run would use "${profile.name}" ${shortDigest(digest)} (${profileFile ?? DEFAULTS.targetFile}): the profile decides generated values and entries, so pass --target with that run's profile`,
    );
  }
  return { ISWC_SEED: String(meta.seed), ISWC_RUNS: String(meta.runs), ISWC_PLAN: meta.plan.name, ISWC_BUDGET: meta.plan.budget === null ? '' : String(meta.plan.budget) };
}

/** What `run` does once its arguments are read. */
export interface RunPlan {
  /** Environment for the run (added to the caller's). */
  env: Record<string, string>;
  /** Extra arguments for `playwright test`. */
  playwrightArgs: string[];
  /** Print the plan instead of running. */
  planOnly: boolean;
}

/**
 * What `npm run conformance` and `npx iswc-conformance` set unless the caller did: one Playwright worker
 * (the run's engine does the work; see docs/performance.md) and a small young generation (memory).
 */
export const RUN_PROCESS_DEFAULTS = Object.freeze({ workers: '1', nodeOptions: '--max-semi-space-size=1' });

/** ISWC_HEADERS and the --header flags, merged and checked; undefined when neither is given. */
export function extraHeaders(flags: readonly string[], env: NodeJS.ProcessEnv): ExtraHeader[] | undefined {
  const text = env[HEADERS_VARIABLE]?.trim();
  if (flags.length === 0 && !text) return undefined;
  try {
    const merged = mergeExtraHeaders(text ? parseHeadersVariable(text) : [], flags.map((f) => parseHeaderArgument(f)));
    const keyHeader = subscriptionKeyHeader();
    checkExtraHeaders(merged, flags.length > 0 ? '--header' : HEADERS_VARIABLE, { [keyHeader]: 'the subscription key is read from ISWC_SUBSCRIPTION_KEY only, and sent by the harness itself' });
    return merged;
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * NODE_EXTRA_CA_CERTS as an absolute path (the run's processes start in the repository, not here), or
 * undefined when unset. Node only warns about a file it cannot load and goes on without it; here it
 * stops the run before anything is sent.
 */
function extraCaFile(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const given = env.NODE_EXTRA_CA_CERTS?.trim();
  if (!given) return undefined;
  const file = path.resolve(cwd, given);
  if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`NODE_EXTRA_CA_CERTS names ${file}, which is not a file: give the PEM file of the certificate authority that signed the target's certificate`);
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch (e) {
    throw new UsageError(`NODE_EXTRA_CA_CERTS: ${file} cannot be read (${(e as Error).message})`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`NODE_EXTRA_CA_CERTS: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----); Node would ignore it`);
  return file;
}

/**
 * The certificate settings of a process that sends the key: NODE_EXTRA_CA_CERTS checked (returned
 * absolute), NODE_TLS_REJECT_UNAUTHORIZED=0 refused, since Node would then accept any certificate and the
 * key would go to whoever sits in the middle.
 */
export function checkCertificateSettings(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const ca = extraCaFile(env, cwd);
  if (env.NODE_TLS_REJECT_UNAUTHORIZED?.trim() === '0') {
    throw new UsageError('NODE_TLS_REJECT_UNAUTHORIZED=0 turns certificate verification off, and the subscription key could reach anyone in the middle: unset it, and give the CA that signed the target\'s certificate in NODE_EXTRA_CA_CERTS instead');
  }
  return ca;
}

/** --grep as Playwright reads it (`/re/flags`, else a case-insensitive pattern): refused here when it does not compile. */
function checkGrep(grep: string): void {
  const slashed = /^\/(.*)\/([gi]*)$/.exec(grep);
  try {
    new RegExp(slashed?.[1] ?? grep, slashed?.[2] ?? 'gi');
  } catch (e) {
    throw new UsageError(`--grep ${JSON.stringify(grep)} is not a regular expression (${(e as Error).message}); quote it for the shell, and escape ( [ { with \\`);
  }
}

/** The report directory, made now: one that cannot be written (a file, no permission) stops the run before it starts. */
function writableDirectory(dir: string, name: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new UsageError(`${name}: ${unwritableMessage(e) ?? `cannot write ${dir}: ${(e as Error).message}`}`);
  }
}

/** Turns the run's options into its environment; refuses anything unsafe before a request is sent. */
export function parseRunArgs(values: OptionValues, cwd: string, env: NodeJS.ProcessEnv): RunPlan {
  // The run's processes start in the repository: every path is made absolute here, and they print paths relative to the caller's directory.
  const out: RunPlan = { env: { [CALLER_CWD_VARIABLE]: cwd }, playwrightArgs: [], planOnly: values.plan === true };
  const str = (name: string): string | undefined => stringOption(values, name);
  const baseUrl = str('base-url') ?? (env.ISWC_BASE_URL?.trim() || undefined);
  if (baseUrl) {
    try {
      out.env.ISWC_BASE_URL = checkBaseUrl(baseUrl, str('base-url') !== undefined ? '--base-url' : 'ISWC_BASE_URL');
    } catch (e) {
      throw new UsageError((e as ConfigError).message);
    }
  }
  const target = str('target') ?? (env.ISWC_TARGET?.trim() || undefined);
  const profileFile = target !== undefined ? path.resolve(cwd, target) : undefined;
  let openRuns: OpenRunsSetting = PROFILE_DEFAULTS.openRuns;
  if (profileFile) {
    out.env.ISWC_TARGET = profileFile;
    try {
      openRuns = loadProfile(profileFile).openRuns;
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
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
  for (const [flag, name] of [
    ['budget', 'ISWC_BUDGET'],
    ['runs', 'ISWC_RUNS'],
    ['workers', 'ISWC_WORKERS'],
  ] as const) {
    const v = str(flag);
    if (v === undefined) continue;
    if (!/^[1-9][0-9]*$/.test(v)) throw new UsageError(`--${flag} must be a positive integer, got "${v}"`);
    out.env[name] = v;
  }
  const slice = str('slice');
  if (slice !== undefined) {
    if (!/^[0-9]+$/.test(slice) || !Number.isSafeInteger(Number(slice))) throw new UsageError(`--slice must be a whole number (0, 1, 2, …), got "${slice}"`);
    out.env.ISWC_SLICE = slice;
  }
  for (const [flag, name] of [
    ['max-duration', 'ISWC_MAX_DURATION'],
    ['maintenance-wait', 'ISWC_MAINTENANCE_WAIT'],
  ] as const) {
    const duration = str(flag);
    if (duration === undefined) continue;
    try {
      parseDuration(duration, `--${flag}`);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    out.env[name] = duration;
  }
  const seed = str('seed');
  if (seed !== undefined) {
    if (!/^-?[0-9]+$/.test(seed)) throw new UsageError(`--seed must be an integer, got "${seed}"`);
    out.env.ISWC_SEED = seed;
  }
  const sameAs = str('same-inputs-as');
  if (sameAs !== undefined) Object.assign(out.env, sameInputsAs(path.resolve(cwd, sameAs), values, profileFile));
  out.env.ISWC_REPORT_DIR = path.resolve(cwd, str('report-dir') ?? (env.ISWC_REPORT_DIR?.trim() || 'reports'));
  const headers = extraHeaders(listOption(values, 'header'), env);
  if (headers !== undefined) out.env[HEADERS_VARIABLE] = headersVariableText(headers);
  if (!out.planOnly) {
    const ca = checkCertificateSettings(env, cwd);
    if (ca !== undefined) out.env.NODE_EXTRA_CA_CERTS = ca;
  }
  // Every remaining setting of the environment must be readable too (and the key there for a base URL:
  // readConfig's rule, the one every command applies): a usage error now, not a failed global setup later.
  try {
    readConfig({ ...env, ...out.env }, { requireKey: !out.planOnly });
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  if (!out.planOnly) writableDirectory(out.env.ISWC_REPORT_DIR, str('report-dir') !== undefined ? '--report-dir' : 'ISWC_REPORT_DIR');
  const grep = str('grep');
  if (grep !== undefined) {
    checkGrep(grep);
    out.playwrightArgs.push(`--grep=${grep}`);
  }
  const shard = str('shard');
  if (shard !== undefined) {
    if (!/^[1-9][0-9]*\/[1-9][0-9]*$/.test(shard)) throw new UsageError(`--shard must look like 1/3, got "${shard}"`);
    const [current, total] = shard.split('/').map(Number);
    if ((current ?? 0) > (total ?? 0)) throw new UsageError(`--shard ${shard}: there is no shard ${current} of ${total}; I goes from 1 to N`);
    const refused = shardRefusal({ openRuns }, { current: current ?? 1, total: total ?? 1 }, '--shard');
    if (refused) throw new UsageError(refused);
    out.playwrightArgs.push(`--shard=${shard}`);
  }
  return out;
}
