/**
 * Every environment variable iswc-conformance reads, once: what it means, its default, the flag that sets
 * the same. The commands' `--help` (their `environment`), docs/cli.md and docs/configuration.md are made
 * from this table, so that they cannot disagree; tests/unit/configuration.spec.ts fails when the code reads
 * a variable this table does not have. Defaults that are values of lib/config/defaults.ts are read from it.
 */
import path from 'node:path';
import { DEFAULTS } from '../config/defaults.ts';
import { fromRoot } from '../foundation/paths.ts';

export interface EnvironmentSetting {
  /** The variable, or variables read together (the proxy variables). */
  names: readonly string[];
  /** The flag that sets the same for the commands that take it; the flag wins over the variable. */
  flag?: string;
  /** What it does, for the commands that read it. Empty when `meaningFrom` says whose text it is. */
  meaning: string;
  /**
   * The command whose own `environment` text is the meaning (a variable only that command reads, written
   * next to its options): the reference quotes it rather than keeping a second copy.
   */
  meaningFrom?: string;
  /** What holds when it is unset or blank. */
  default: string;
  /** Who reads it when no command lists it in its `environment` (every command, the tests). */
  readBy?: string;
  /** Set by iswc-conformance for its own processes: listed so that nobody sets it by hand. */
  internal?: boolean;
}

const DEFAULT_TARGET = path.relative(fromRoot(), DEFAULTS.targetFile);

const SWITCH = 'Takes 1, true or yes, or 0, false or no; anything else is refused (exit 2).';

export const ENVIRONMENT: readonly EnvironmentSetting[] = [
  {
    names: ['ISWC_SUBSCRIPTION_KEY'],
    meaning:
      "The subscription key, sent as Ocp-Apim-Subscription-Key. Read only from the environment: a key flag is refused (exit 2). Sent only to the base URL's origin, never through a redirect, and written nowhere (every output shows $ISWC_SUBSCRIPTION_KEY). Required with any base URL, even one on this machine: without it nothing is sent (exit 2). At least 8 characters, else exit 2: the key is replaced by its placeholder wherever it occurs, and a shorter one (test, wrong) occurs in the reports' own words; API Management keys have 32. When the first 5 requests that show whether the key is accepted (the run's own key, a documented operation, acting for the profile's agency) are all answered 401 or 403, the run stops with exit 3: \"the target refused the key on every request: check ISWC_SUBSCRIPTION_KEY, and that it may act for agency …\".",
    default: `none; only the embedded reference server runs without one (it has a key of its own, ${DEFAULTS.embeddedKey})`,
  },
  {
    names: ['ISWC_SUBSCRIPTION_KEY_<agency>'],
    meaning:
      "compat only: a key of its own for one agency (ISWC_SUBSCRIPTION_KEY_058), for a build whose key acts for one agency only: that agency's requests are replayed with it. Wins over the same agency in ISWC_AGENCY_KEYS. Written nowhere, never printed (reports show $ISWC_SUBSCRIPTION_KEY_058). A name after the prefix that is not a 3-character agency code, or a key under 8 characters, is refused (exit 2).",
    default: 'none: every request goes with ISWC_SUBSCRIPTION_KEY',
    readBy: 'compat',
  },
  {
    names: ['ISWC_AGENCY_KEYS'],
    flag: 'agency-keys',
    meaning:
      'compat only: a file of keys per agency, a JSON object {"058": "<key>"} or lines 058=<key> (# comments), outside the --sessions folder. Keys are written nowhere and never printed; a file that cannot be read or holds a malformed line is refused (exit 2).',
    default: 'none',
    readBy: 'compat',
  },
  {
    names: ['ISWC_CLIENT_TIMEOUT'],
    flag: 'client-timeout',
    meaning:
      "compat only: how long the agencies' clients wait for an answer where their sessions do not show it (30s, 2m). An answer later than its client waits is broken for it; one slower than recorded but within the wait is a finding. The replay waits as long as the most patient client.",
    default: '30s',
    readBy: 'compat',
  },
  {
    names: ['ISWC_BASE_URL'],
    flag: 'base-url',
    meaning: 'The API under test: http:// or https://, no credentials, no query, no fragment. Redirects are never followed.',
    default: 'the embedded reference server, started for the run',
  },
  {
    names: ['ISWC_TARGET'],
    flag: 'target',
    meaning: 'The target profile: what exists in the target (docs/target-profile.md; its fields in docs/configuration.md#target-profile). A profile that is not valid stops every command before anything is sent (exit 2).',
    default: `${DEFAULT_TARGET} (what the embedded server holds)`,
  },
  {
    names: ['ISWC_DESTRUCTIVE'],
    flag: 'destructive',
    meaning: `1: run the checks that consume the profile's disposable entries (successful merge, demerge, delete), on those entries only. 0: they are skipped with the reason, and the run changes no data. ${SWITCH}`,
    default: '1 for the embedded server and a base URL on this machine (localhost, 127.x, ::1); 0 for a remote base URL',
  },
  {
    names: ['ISWC_STRICT'],
    flag: 'strict',
    meaning: `1: http-level failures (RFC 9110 and safe-handling conventions the document does not state) fail the run too; for the sandbox, http-level client checks fail the session. ${SWITCH}`,
    default: '0: only spec-level failures fail',
  },
  {
    names: ['ISWC_RUNS'],
    flag: 'runs',
    meaning: 'Runs per property-based check (generated inputs).',
    default: String(DEFAULTS.runs),
  },
  {
    names: ['ISWC_SEED'],
    flag: 'seed',
    meaning: 'The fast-check seed: with the same runs, plan, budget, profile and harness, the same seed generates the same inputs.',
    default: 'random; the run prints and records the one it used',
  },
  {
    names: ['ISWC_REPORT_DIR'],
    flag: 'report-dir',
    meaning: 'Where reports are written (run, certify, sandbox) and read (replay, diff, baseline, allure), relative to the directory the command runs in.',
    default: `${DEFAULTS.reportDir}/`,
  },
  {
    names: ['ISWC_RATE'],
    flag: 'rate',
    meaning:
      'Requests over the whole run, all workers and shards together, as a count per unit: 10/min, 5/s, 600/h; 0 means no limit. A bare number is refused (10 could be a second or a minute): write 10/min or 10/s. A run sharded over N machines (--shard I/N) paces each shard at the rate divided by N. 429 and 503 with Retry-After are honoured as throttling on every target, and 502, 503 without Retry-After and 504 of a target in maintenance are waited out with back-off (bounded waits, counted, never failures).',
    default: `no limit on the embedded server or a base URL on this machine; ${DEFAULTS.remoteRate} (the published production limit) on a remote base URL`,
  },
  {
    names: ['ISWC_TIMEOUT_MS'],
    meaning: 'Per-request timeout in milliseconds: connect, headers and the whole body. A request to a target not on this machine waits three times as long before it is no answer: a service started or deployed just before the run answers its first request late (a cold start), and a shared staging one request now and then. The document states no response time: a late answer is judged by the spec checks as any answer, and http.answered records it late (failing a strict run), except the first answer of a target.',
    default: String(DEFAULTS.timeoutMs),
  },
  {
    names: ['ISWC_MAX_BODY'],
    meaning: 'The largest response body read, in bytes; a larger one is the failure BODY_TOO_LARGE.',
    default: String(DEFAULTS.maxBodyBytes),
  },
  {
    names: ['ISWC_WORKERS'],
    flag: 'workers',
    meaning: "Playwright workers. The run's one engine, in the main process, sends every request and holds the rate, so more workers rarely make a run faster (docs/performance.md).",
    default: `1 for the run command (npx iswc-conformance, npm run conformance); ${DEFAULTS.workers} for npm test and a plain npx playwright test`,
  },
  {
    names: ['ISWC_BUDGET'],
    flag: 'budget',
    meaning:
      'The most requests that reach the target, resends included (after 429, 503, maintenance): a cap. Cases are taken in the committed ranking (lib/run/plans.generated.ts): the most faults of the reference server\'s catalogue caught per request first, then every spec check once, then coverage; generated inputs get what is left. A case starts only when it fits in what is left, so none is cut halfway; a run the budget stopped is a partial run. Each shard of a sharded run sends no more than its share.',
    default: 'no limit',
  },
  {
    names: ['ISWC_SLICE'],
    flag: 'slice',
    meaning:
      "With ISWC_BUDGET: which slice of the budget's rotation the run takes (0, 1, 2, …; taken modulo the number of slices). Every slice sends the key on every operation and the breadth that fits half the budget; what that leaves out is cut into slices of the rest of the budget, so consecutive gates given consecutive numbers (a build number, a counter the CI keeps) together send what one run of their combined budget sends, each within its own budget. The reports record the slice; `plan` shows the schedule.",
    default: '0',
  },
  {
    names: ['ISWC_PLAN'],
    flag: 'smoke',
    meaning:
      'full, or smoke: the fewest requests that catch every fault of the catalogue the mode (destructive or not) can catch and exercise every spec check it can, once (npm run plan:power measures it). --smoke sets smoke (--plan, in run and plan alike, prints the plan and sends nothing).',
    default: 'full',
  },
  {
    names: ['ISWC_WAIVERS'],
    flag: 'waivers',
    meaning:
      'A YAML file of known deviations of the target (docs/staging.md#waivers; its fields in docs/configuration.md#waivers), each waiver as narrow as its deviation (its check, operation, cases, steps, statuses, code, text): a failure a live waiver matches is reported as waived, with its reason, and does not fail the run; a failure of its check that looks otherwise still fails. A malformed file stops the run before any request (exit 2).',
    default: 'none',
  },
  {
    names: ['ISWC_REQUIRE_ALL'],
    flag: 'require-all',
    meaning: `1: a run that did not exercise every spec check of the document (non-destructive, a budget, the smoke plan, --grep, entries used up, --max-duration) fails, naming the checks it left out. ${SWITCH}`,
    default: '0: such a run passes as "conformant on N of M spec checks"',
  },
  {
    names: ['ISWC_MAX_DURATION'],
    flag: 'max-duration',
    meaning:
      'Stop sending once the run has lasted this long (90s, 20m, 1.5h, 1h30m; a bare number is refused: write 20m or 20s) and report a partial run: every case not sent is listed with "stopped at --max-duration". The exit code is that of what was judged (0 or 1).',
    default: 'no limit',
  },
  {
    names: ['ISWC_MAINTENANCE_WAIT'],
    flag: 'maintenance-wait',
    meaning:
      'How long a target in maintenance is waited out (every request answered 502, 503 without Retry-After, or 504) before the run stops with exit 3, "target unavailable": six resends, each wait twice the last, adding up to this (90s, 10m, 1h; a bare number is refused). Longer for a gate that should outlast a maintenance window; the waits are counted, never failures.',
    default: '63s (1 s, then doubled five times)',
  },
  {
    names: ['ISWC_HEADERS'],
    flag: 'header',
    meaning:
      'Extra headers for every request to the base URL\'s origin, as one JSON object of strings: {"X-Correlation-Id": "abc"}. --header \'Name: value\' adds to them (a flag replaces a header of the same name). Values are secrets of the run: written nowhere (records and curl lines show $ISWC_HEADER_X_CORRELATION_ID: export it to replay a curl line), and from 8 characters on removed wherever an answer or a message repeats them. Refused (exit 2): the headers the harness owns (Ocp-Apim-Subscription-Key, Host, Content-Length, Content-Type, Transfer-Encoding, Accept, Accept-Encoding, User-Agent, hop-by-hop ones, Proxy-Authorization), names that are not HTTP tokens, values with line breaks or control characters, a name given twice.',
    default: 'none',
  },
  {
    names: ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'],
    meaning:
      "The proxy to the base URL, read as undici's EnvHttpProxyAgent reads them; the lower-case variable wins when set (an empty one turns that proxy off). HTTPS_PROXY for an https:// target, through a CONNECT tunnel (the proxy sees host and port only; HTTP_PROXY when it is unset); HTTP_PROXY for an http:// target, as absolute-form requests (the proxy sees every request, the key included). NO_PROXY lists hosts reached directly: host, .domain, *.domain, host:port, *; loopback too (localhost,127.0.0.1,[::1]). A proxy URL may carry user:password@ (percent-encoded), written nowhere; a value without a scheme is http://; socks5:// is refused (exit 2). The run's first lines and its reports name the proxy used, never its credentials (docs/staging.md#behind-a-company-proxy).",
    default: 'a direct connection (the embedded server is never proxied)',
  },
  {
    names: ['NODE_EXTRA_CA_CERTS'],
    meaning: "A PEM file of extra certificate authorities: your company's CA, or that of a proxy that inspects TLS. Node reads it when the run starts; a missing file, or one without a certificate, is refused (exit 2).",
    default: "Node's own certificate authorities only",
  },
  {
    names: ['NODE_TLS_REJECT_UNAUTHORIZED'],
    meaning: '0 (certificate verification off) is refused (exit 2): the key could reach anyone in the middle. Give the CA in NODE_EXTRA_CA_CERTS instead.',
    default: 'certificates are verified',
  },
  {
    names: ['NODE_OPTIONS'],
    meaning: "Passed to the run's processes; the run command adds --max-semi-space-size=1 (a smaller young generation: less memory) unless it already names one.",
    default: '--max-semi-space-size=1',
  },
  {
    names: ['ISWC_PROGRESS'],
    meaning:
      "live: on a terminal, one live progress line (first requests sent of planned, never over 100%; sent with resends, answered; failures; time elapsed, and left within --max-duration and the budget; time waiting on throttling or maintenance) takes the place of Playwright's list of tests; the run command sets it when its output is a terminal. Otherwise the same line comes every 30 s while the run sends.",
    default: 'live on a terminal, else unset',
  },
  {
    names: ['ISWC_SANDBOX_KEY'],
    meaningFrom: 'sandbox',
    meaning: '',
    default: 'a random key, printed when the session starts',
  },
  {
    names: ['ISWC_SERVER_KEY'],
    meaningFrom: 'server',
    meaning: '',
    default: `${DEFAULTS.embeddedKey} (a test key that guards nothing)`,
  },
  {
    names: ['ISWC_SERVER_DEBUG'],
    meaningFrom: 'server',
    meaning: '',
    default: 'no stack is printed',
  },
  {
    names: ['ISWC_DEBUG'],
    meaning: '1: an internal error (exit 4) prints its stack, not only its one line.',
    default: 'one line',
    readBy: 'every command',
  },
  {
    names: ['ISWC_SHAPE_CACHE'],
    meaning: "0: the planner works out every case's shape again instead of reading the ones kept in node_modules/.cache/iswc-conformance (kept per profile and per version of the harness's files; delete the folder freely).",
    default: 'kept and read',
    readBy: 'run, plan, certify, profile check',
  },
  {
    names: ['ISWC_PREBUILT'],
    meaning: "0: the command runs its TypeScript sources through tsx instead of the bundle of them it builds on first use and again after any change, in node_modules/.cache/iswc-conformance/cli (about half a second of CPU more per command; delete the folder freely). With ISWC_DEBUG=1 a stack from the bundle names the sources too.",
    default: 'the bundle',
    readBy: 'every command',
  },
  {
    names: ['ISWC_CHROMIUM'],
    meaning: "The Chromium the browser tests and npm run bench:report open the HTML reports in (Debian's chromium package; never a browser download).",
    default: '/usr/bin/chromium',
    readBy: 'npm test (project browser), npm run test:e2e (the Allure report), npm run bench:report',
  },
  {
    names: ['ISWC_UPDATE_SCREENSHOT'],
    meaning: "1: the browser test writes the README's screenshot of the HTML report (docs/report-screenshot.png) again.",
    default: 'the screenshot is left as it is',
    readBy: 'npm test (project browser)',
  },
  {
    names: ['ISWC_RUN_CONTEXT', 'ISWC_CALLER_CWD'],
    meaning: "The run command's hand-over to its Playwright processes (where the run's engine listens; the directory the command was started in).",
    default: 'set by the run command',
    readBy: "the run's own processes",
    internal: true,
  },
];

/** The variables a conformance run reads (run, certify): their meaning and default, as every `--help` shows them. */
export const RUN_VARIABLES: readonly string[] = [
  'ISWC_SUBSCRIPTION_KEY',
  'ISWC_BASE_URL',
  'ISWC_TARGET',
  'ISWC_DESTRUCTIVE',
  'ISWC_STRICT',
  'ISWC_RATE',
  'ISWC_BUDGET',
  'ISWC_SLICE',
  'ISWC_PLAN',
  'ISWC_RUNS',
  'ISWC_SEED',
  'ISWC_REPORT_DIR',
  'ISWC_WAIVERS',
  'ISWC_REQUIRE_ALL',
  'ISWC_MAX_DURATION',
  'ISWC_MAINTENANCE_WAIT',
  'ISWC_WORKERS',
  'ISWC_TIMEOUT_MS',
  'ISWC_MAX_BODY',
  'ISWC_HEADERS',
  'HTTPS_PROXY',
  'NODE_EXTRA_CA_CERTS',
  'NODE_TLS_REJECT_UNAUTHORIZED',
  'NODE_OPTIONS',
  'ISWC_PROGRESS',
];

/** The setting of a variable, or undefined when the table has none. */
export function settingOf(name: string): EnvironmentSetting | undefined {
  return ENVIRONMENT.find((s) => s.names.includes(name));
}

/** A setting's text in a command's `--help`: its meaning, its default and its flag. */
export function settingText(setting: EnvironmentSetting): string {
  const flag = setting.flag ? ` The flag --${setting.flag} wins over it.` : '';
  return `${setting.meaning} Default: ${setting.default}.${flag}`;
}

/**
 * A command's `environment` rows for these variables, from the one table: a setting of several variables
 * (the proxy variables) is one row, named by any of them. Throws on a name the table does not have.
 */
export function environmentOf(names: readonly string[]): Array<readonly [string, string]> {
  const rows: Array<readonly [string, string]> = [];
  const seen = new Set<EnvironmentSetting>();
  for (const name of names) {
    const setting = settingOf(name);
    if (setting === undefined) throw new Error(`lib/cli/environment.ts has no setting for ${name}`);
    if (seen.has(setting)) continue;
    seen.add(setting);
    if (setting.meaningFrom !== undefined) throw new Error(`${name} is described by the ${setting.meaningFrom} command: list it there`);
    rows.push([setting.names.join(', '), settingText(setting)]);
  }
  return rows;
}
