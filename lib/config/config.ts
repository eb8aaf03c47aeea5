import path from 'node:path';
import { shortKeyProblem } from '../foundation/redact.ts';
import { DEFAULTS } from './defaults.ts';
import { ConfigError } from './errors.ts';
import type { ExtraHeader } from './headers.ts';
import { checkExtraHeaders, HEADERS_VARIABLE, parseHeadersVariable } from './headers.ts';
import type { NetworkRoute } from './proxy.ts';
import { resolveNetworkRoute } from './proxy.ts';
import { parseRate } from './rate.ts';

/**
 * The run's configuration: the environment (ISWC_*; the command line maps its flags onto the same
 * variables) read once into a frozen, validated object that is passed to what needs it. All documented
 * in docs/configuration.md (lib/cli/environment.ts); every default is in defaults.ts.
 */
export interface RunConfig {
  /** The base URL asked for; undefined: the embedded reference server is started for the run. */
  baseUrl: string | undefined;
  /** No base URL was given: the harness starts the embedded reference server. */
  embedded: boolean;
  /**
   * True for the embedded server and for a base URL on this machine (localhost, 127.0.0.0/8, ::1): a
   * server of your own, not shared data. Destructive checks are on and nothing is paced by default there;
   * a remote target gets the safe defaults (destructive off, 10/min).
   */
  local: boolean;
  /**
   * The subscription key to send: ISWC_SUBSCRIPTION_KEY; the embedded server's own key only for the
   * embedded server. Empty only for readers that send nothing (`requireKey: false` with a base URL).
   */
  key: string;
  /** ISWC_SUBSCRIPTION_KEY as given (what every report must never show), or undefined. */
  secretKey: string | undefined;
  targetFile: string;
  destructive: boolean;
  strict: boolean;
  runs: number;
  seed: number | undefined;
  reportDir: string;
  timeoutMs: number;
  maxBodyBytes: number;
  /** ISWC_RATE as given, or the remote default; undefined for no limit. */
  rate: string | undefined;
  /** ISWC_BUDGET: the most requests the run may send (planned, never exceeded by fixed cases). */
  budget: number | undefined;
  /** ISWC_SLICE: which slice of the budget's rotation a budgeted run takes (lib/run/budget.ts); undefined: 0. */
  slice: number | undefined;
  /** ISWC_PLAN: 'full' (default) or 'smoke' (every spec check once, fewest requests). */
  plan: 'full' | 'smoke';
  /** ISWC_WAIVERS: absolute path of the waivers file (known deviations), or undefined. */
  waivers: string | undefined;
  /** ISWC_REQUIRE_ALL: a run that did not exercise every spec check fails. */
  requireAll: boolean;
  /** ISWC_HEADERS: extra headers sent on every request to the base URL's origin; their values are secrets. */
  headers: readonly ExtraHeader[];
  /** HTTPS_PROXY / HTTP_PROXY / NO_PROXY for the base URL: the proxy the run goes through, or a direct connection. */
  network: NetworkRoute;
  /** ISWC_MAX_DURATION in milliseconds: the run stops sending once it has run this long; undefined for no limit. */
  maxDurationMs: number | undefined;
  /** ISWC_MAINTENANCE_WAIT in milliseconds: how long a target in maintenance is waited out (undefined: the default). */
  maintenanceWaitMs: number | undefined;
  /** NODE_EXTRA_CA_CERTS as an absolute path (the CA the run trusts besides Node's), for the replay lines' --cacert; undefined when unset. */
  caFile: string | undefined;
}

export { ConfigError };

type Env = Readonly<Record<string, string | undefined>>;

import { isLoopback } from './loopback.ts';

export { isLoopback };

/**
 * The one base-URL validator: http(s), no credentials, no query or fragment (the key goes only to its
 * origin). Returns the URL without a trailing slash. `name` is how the caller calls it (variable or flag).
 */
export function checkBaseUrl(text: string, name = 'ISWC_BASE_URL'): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${name} "${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be http:// or https://, got ${url.protocol}`);
  if (url.username || url.password) throw new ConfigError(`${name} must not carry credentials; the key is read from ISWC_SUBSCRIPTION_KEY only`);
  if (url.search || url.hash || text.includes('?') || text.includes('#')) throw new ConfigError(`${name} must not carry a query or a fragment`);
  return text.replace(/\/+$/, '');
}

const DURATION_UNIT_MS: Record<string, number> = { s: 1000, sec: 1000, second: 1000, m: 60_000, min: 60_000, minute: 60_000, h: 3_600_000, hr: 3_600_000, hour: 3_600_000 };

/** One part of a duration: a number and its unit (`20m`, `1.5 h`, `12 min`, `40 s`, `2 hours`). */
const DURATION_PART = /(\d+(?:\.\d+)?)\s*([a-z]+)\s*/giy;

/**
 * A duration such as `90s`, `20m`, `1.5h`, `1h30m`, and the forms the tool prints (`12 min`, `3.9 h`,
 * `40 s`), in milliseconds; `name` says whose it is. A bare number is refused: whether `20` is seconds or
 * minutes decides whether the run is cut short, so the unit is written.
 */
export function parseDuration(text: string, name = 'ISWC_MAX_DURATION'): number {
  const trimmed = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed) && Number(trimmed) > 0) {
    throw new ConfigError(`${name} "${text}" is a number without a unit: write ${trimmed}m for ${trimmed} minutes or ${trimmed}s for ${trimmed} seconds (also 1.5h, 1h30m)`);
  }
  let ms = 0;
  let end = 0;
  DURATION_PART.lastIndex = 0;
  for (let m = DURATION_PART.exec(trimmed); m !== null; m = DURATION_PART.exec(trimmed)) {
    const unit = (m[2]).toLowerCase();
    const per = DURATION_UNIT_MS[unit] ?? DURATION_UNIT_MS[unit.replace(/s$/, '')];
    if (per === undefined) {
      end = -1;
      break;
    }
    ms += Number(m[1]) * per;
    end = DURATION_PART.lastIndex;
  }
  ms = Math.round(ms);
  if (end !== trimmed.length || trimmed === '' || !Number.isFinite(ms) || ms <= 0) throw new ConfigError(`${name} must be a positive duration such as 90s, 20m or 1.5h, got "${text}"`);
  return ms;
}

/**
 * Reads the configuration from an environment. `requireKey: false` is for readers that never send a
 * request (reporters merging shard results), which must not need the key.
 */
/**
 * A boolean variable as every command reads it (ISWC_STRICT, ISWC_DESTRUCTIVE, …): 1, true, yes or 0,
 * false, no, in any case; blank or unset is the fallback; anything else is a ConfigError.
 */
export function envFlag(env: Env, name: string, fallback: boolean): boolean {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return fallback;
  if (['1', 'true', 'yes'].includes(value.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(value.toLowerCase())) return false;
  throw new ConfigError(`${name} must be 1 or 0, got "${value}"`);
}

export function readConfig(env: Env = process.env, options: { requireKey?: boolean } = {}): Readonly<RunConfig> {
  const get = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const flag = (name: string, fallback: boolean): boolean => envFlag(env, name, fallback);
  const positiveInt = (name: string, fallback: number): number => {
    const value = get(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} must be a positive integer, got "${value}"`);
    return n;
  };
  const sliceOf = (value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new ConfigError(`ISWC_SLICE must be a whole number (0, 1, 2, …: a counter your CI keeps, e.g. its build number), got "${value}"`);
    return Number(value);
  };
  const rawBase = get('ISWC_BASE_URL');
  const baseUrl = rawBase === undefined ? undefined : checkBaseUrl(rawBase);
  const embedded = baseUrl === undefined;
  const local = embedded || isLoopback(baseUrl);
  const key = get('ISWC_SUBSCRIPTION_KEY');
  // The embedded server's key opens only the embedded server: any base URL, even one on this machine, is
  // a server with a key of its own, and sending it another key would fail every check for nothing.
  if (!embedded && key === undefined && options.requireKey !== false) {
    throw new ConfigError(
      `ISWC_SUBSCRIPTION_KEY is not set: the base URL ${baseUrl}${local ? ' (even one on this machine)' : ''} needs the subscription key of that target in the environment (it is never taken from a flag or a file); only the embedded reference server (no base URL) has a key of its own`,
    );
  }
  const keyProblem = key === undefined ? undefined : shortKeyProblem('ISWC_SUBSCRIPTION_KEY', key, 'a server of your own takes one with --key');
  if (keyProblem) throw new ConfigError(keyProblem);
  const seedText = get('ISWC_SEED');
  const seed = seedText === undefined ? undefined : Number(seedText);
  if (seed !== undefined && !Number.isSafeInteger(seed)) throw new ConfigError(`ISWC_SEED must be an integer, got "${seedText}"`);
  const plan = get('ISWC_PLAN') ?? 'full';
  if (plan !== 'full' && plan !== 'smoke') throw new ConfigError(`ISWC_PLAN must be full or smoke, got "${plan}"`);
  const rate = get('ISWC_RATE');
  if (rate !== undefined) {
    try {
      parseRate(rate);
    } catch (e) {
      throw new ConfigError(`ISWC_RATE: ${(e as Error).message}`);
    }
  }
  // Read by playwright.config.ts, which cannot say what is wrong with it: checked here, before a run starts.
  positiveInt('ISWC_WORKERS', 1);
  const waivers = get('ISWC_WAIVERS');
  const headersText = get(HEADERS_VARIABLE);
  const headers = headersText === undefined ? [] : parseHeadersVariable(headersText);
  checkExtraHeaders(headers, HEADERS_VARIABLE);
  return Object.freeze({
    baseUrl,
    embedded,
    local,
    key: key ?? (embedded ? DEFAULTS.embeddedKey : ''),
    secretKey: key,
    targetFile: path.resolve(get('ISWC_TARGET') ?? DEFAULTS.targetFile),
    destructive: flag('ISWC_DESTRUCTIVE', local),
    strict: flag('ISWC_STRICT', false),
    runs: positiveInt('ISWC_RUNS', DEFAULTS.runs),
    seed,
    reportDir: path.resolve(get('ISWC_REPORT_DIR') ?? DEFAULTS.reportDir),
    timeoutMs: positiveInt('ISWC_TIMEOUT_MS', DEFAULTS.timeoutMs),
    maxBodyBytes: positiveInt('ISWC_MAX_BODY', DEFAULTS.maxBodyBytes),
    rate: rate ?? (local ? undefined : DEFAULTS.remoteRate),
    budget: get('ISWC_BUDGET') === undefined ? undefined : positiveInt('ISWC_BUDGET', 1),
    slice: sliceOf(get('ISWC_SLICE')),
    plan,
    waivers: waivers === undefined ? undefined : path.resolve(waivers),
    requireAll: flag('ISWC_REQUIRE_ALL', false),
    headers,
    network: resolveNetworkRoute(baseUrl, env),
    maxDurationMs: get('ISWC_MAX_DURATION') === undefined ? undefined : parseDuration(get('ISWC_MAX_DURATION') as string, 'ISWC_MAX_DURATION'),
    maintenanceWaitMs: get('ISWC_MAINTENANCE_WAIT') === undefined ? undefined : parseDuration(get('ISWC_MAINTENANCE_WAIT') as string, 'ISWC_MAINTENANCE_WAIT'),
    caFile: get('NODE_EXTRA_CA_CERTS') === undefined ? undefined : path.resolve(get('NODE_EXTRA_CA_CERTS') as string),
  });
}

let cached: Readonly<RunConfig> | undefined;

/** This process's configuration, read once from its environment (reporters: without needing the key). */
export function config(): Readonly<RunConfig> {
  cached ??= readConfig(process.env, { requireKey: false });
  return cached;
}
