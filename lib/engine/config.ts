import path from 'node:path';
import { fromRoot } from '../paths.ts';

/** The run's configuration, read from the environment (all documented in the README). */
export interface RunConfig {
  /** API under test; undefined until the global setup has started the embedded server. */
  baseUrl: string | undefined;
  /** True when the harness started the embedded reference server itself. */
  embedded: boolean;
  /**
   * True for the embedded server and for a base URL on this machine (localhost, 127.0.0.0/8, ::1): a
   * server of your own, not shared data. Destructive checks are on and nothing is paced by default there;
   * a remote target gets the safe defaults (destructive off, 10/min).
   */
  local: boolean;
  key: string;
  targetFile: string;
  destructive: boolean;
  strict: boolean;
  runs: number;
  seed: number | undefined;
  reportDir: string;
  timeoutMs: number;
  maxBodyBytes: number;
  /** Requests per second over the whole run (all workers), or null for no limit. */
  rate: string | undefined;
  /** ISWC_BUDGET: the most requests the run may send (planned, never exceeded by fixed cases). */
  budget: number | undefined;
  /** ISWC_PLAN: 'full' (default) or 'smoke' (every spec check once, fewest requests). */
  plan: 'full' | 'smoke';
  /** ISWC_WAIVERS: absolute path of the waivers file (known deviations, lib/waivers/), or undefined. */
  waivers: string | undefined;
  /** ISWC_REQUIRE_ALL: a run that did not exercise every spec check fails. */
  requireAll: boolean;
}

export class ConfigError extends Error {
  readonly code = 'ISWC_CONFIG';
}

/** The key of the embedded reference server when ISWC_SUBSCRIPTION_KEY is not set. */
export const EMBEDDED_DEFAULT_KEY = 'local-dev-key';

function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function flag(name: string, fallback: boolean): boolean {
  const value = env(name);
  if (value === undefined) return fallback;
  if (['1', 'true', 'yes'].includes(value.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(value.toLowerCase())) return false;
  throw new ConfigError(`${name} must be 1 or 0, got "${value}"`);
}

function positiveInt(name: string, fallback: number): number {
  const value = env(name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} must be a positive integer, got "${value}"`);
  return n;
}

/** A base URL must be http(s), carry no credentials, query or fragment: the key goes only to its origin. */
export function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`ISWC_BASE_URL "${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`ISWC_BASE_URL must be http:// or https://, got ${url.protocol}`);
  if (url.username || url.password) throw new ConfigError('ISWC_BASE_URL must not carry credentials; the key is read from ISWC_SUBSCRIPTION_KEY only');
  if (url.search || url.hash) throw new ConfigError('ISWC_BASE_URL must not carry a query or a fragment');
  return text.replace(/\/+$/, '');
}

/**
 * The run's configuration. `requireKey: false` is for readers that never send a request (reporters
 * merging shard results), which must not need the key.
 */
export function readConfig(options: { requireKey?: boolean } = {}): RunConfig {
  const embedded = env('ISWC_EMBEDDED') === '1' || env('ISWC_BASE_URL') === undefined;
  const rawBase = env('ISWC_BASE_URL');
  const baseUrl = rawBase === undefined ? undefined : checkBaseUrl(rawBase);
  const local = embedded || (baseUrl !== undefined && isLoopback(baseUrl));
  const key = env('ISWC_SUBSCRIPTION_KEY');
  if (!local && key === undefined && options.requireKey !== false) {
    throw new ConfigError('ISWC_SUBSCRIPTION_KEY is not set: a remote base URL needs the subscription key in the environment (it is never taken from a flag or a file).');
  }
  const seedText = env('ISWC_SEED');
  const seed = seedText === undefined ? undefined : Number(seedText);
  if (seed !== undefined && !Number.isSafeInteger(seed)) throw new ConfigError(`ISWC_SEED must be an integer, got "${seedText}"`);
  const waiversFile = env('ISWC_WAIVERS');
  return {
    baseUrl,
    embedded,
    local,
    key: key ?? EMBEDDED_DEFAULT_KEY,
    targetFile: path.resolve(env('ISWC_TARGET') ?? fromRoot('fixtures', 'targets', 'embedded.json')),
    destructive: flag('ISWC_DESTRUCTIVE', local),
    strict: flag('ISWC_STRICT', false),
    runs: positiveInt('ISWC_RUNS', 100),
    seed,
    reportDir: path.resolve(env('ISWC_REPORT_DIR') ?? 'reports'),
    timeoutMs: positiveInt('ISWC_TIMEOUT_MS', 10_000),
    maxBodyBytes: positiveInt('ISWC_MAX_BODY', 1024 * 1024),
    rate: env('ISWC_RATE'),
    budget: env('ISWC_BUDGET') === undefined ? undefined : positiveInt('ISWC_BUDGET', 1),
    plan: planName(env('ISWC_PLAN')),
    waivers: waiversFile === undefined ? undefined : path.resolve(waiversFile),
    requireAll: flag('ISWC_REQUIRE_ALL', false),
  };
}

/** Does a failure at this level fail the run? (A waived execution is not a failure: it never gates.) */
export function gating(level: 'spec' | 'http' | 'observed', strict: boolean): boolean {
  return level === 'spec' || (level === 'http' && strict);
}

function planName(value: string | undefined): 'full' | 'smoke' {
  if (value === undefined || value === 'full') return 'full';
  if (value === 'smoke') return 'smoke';
  throw new ConfigError(`ISWC_PLAN must be full or smoke, got "${value}"`);
}

/** Is the URL's host this machine (localhost, 127.0.0.0/8, ::1)? */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
