import { existsSync } from 'node:fs';
import path from 'node:path';
import { checkBaseUrl, ConfigError, readConfig } from '../../config/config.ts';
import { HEADERS_VARIABLE, headersVariableText } from '../../config/headers.ts';
import { parseRate } from '../../config/rate.ts';
import { loadProfile } from '../../contract/profile/load.ts';
import { DEFAULTS } from '../../config/defaults.ts';
import { redactorFromEnv } from '../../foundation/redact.ts';
import type { ConformanceReport } from '../../report/model.ts';
import { findFailure, replayFailure, ReplayError } from '../replay.ts';
import type { Command, OptionValues } from '../command.ts';
import { EXIT, exitMeaning, listOption, reportDirOf, stringOption, UsageError } from '../command.ts';
import { checkCertificateSettings, extraHeaders, RUN_OPTIONS } from '../run-args.ts';
import { readReportArgument } from './diff.ts';
import { shownPath } from '../../foundation/paths.ts';

/**
 * `npx iswc-conformance replay ID`: sends the requests of one failure of a report again (a fixed case's
 * steps, or a generated failure's one input through fast-check's seed and path), prints each exchange
 * with its failing checks and says whether the failure still happens.
 */

type Env = Readonly<Record<string, string | undefined>>;

function originOf(url: string): string {
  return new URL(url).origin;
}

/**
 * Where a replay may send the subscription key. A report is a file anyone may hand over, so its base URL
 * alone never receives the key: a run made against the embedded server replays against a fresh one
 * (unless --base-url says otherwise); any other needs the caller to name the target, with --base-url
 * (sent there, whatever the report says) or with ISWC_BASE_URL, accepted only when its origin is the
 * report's. Undefined: the embedded server.
 */
export function replayTarget(report: ConformanceReport, values: OptionValues, env: Env): { baseUrl: string; named: string } | undefined {
  const check = (text: string, name: string): string => {
    try {
      return checkBaseUrl(text, name);
    } catch (e) {
      throw new UsageError((e as ConfigError).message);
    }
  };
  const flag = stringOption(values, 'base-url');
  if (flag !== undefined) return { baseUrl: check(flag, '--base-url'), named: '--base-url' };
  if (report.meta.embedded) return undefined;
  let recorded: string | undefined;
  try {
    recorded = report.meta.baseUrl ? checkBaseUrl(report.meta.baseUrl, 'the report') : undefined;
  } catch {
    recorded = undefined;
  }
  const variable = env.ISWC_BASE_URL?.trim() || undefined;
  if (recorded === undefined) {
    throw new UsageError(`the report records no usable base URL: name the target to replay against with --base-url URL${variable !== undefined ? ' (ISWC_BASE_URL cannot be checked against the run\'s origin)' : ''}`);
  }
  if (variable === undefined) {
    throw new UsageError(
      `the run was made against ${recorded}: the subscription key is sent only to a target you name, never to one a report file names. To replay there, pass --base-url ${recorded} (or set ISWC_BASE_URL to it)`,
    );
  }
  const baseUrl = check(variable, 'ISWC_BASE_URL');
  if (originOf(baseUrl) !== originOf(recorded)) {
    throw new UsageError(
      `ISWC_BASE_URL is ${originOf(baseUrl)}, but the run was made against ${originOf(recorded)}: the key is not sent to a target the report does not match unless --base-url names it. Pass --base-url ${recorded} to replay against the run's target, or --base-url ${baseUrl} to replay against ISWC_BASE_URL's`,
    );
  }
  return { baseUrl, named: "ISWC_BASE_URL, the run's origin" };
}

export const replayCommand: Command = {
  name: 'replay',
  summary: 'send the requests of one failure again, by its id, and say whether it still happens',
  usage: "npx iswc-conformance replay ID [--report conformance.json] [--target FILE] [--base-url URL] [--header 'NAME: VALUE']... [--destructive]",
  description:
    "ID is a failure's short id, printed next to it in the console, the HTML report, JUnit and conformance.json (failureId); a unique prefix of 4 or more digits will do. A fixed case's failure sends the case's steps in order, with the disposable entries the run gave it. A generated failure (a property, the model test) sends only its input: fast-check walks the recorded seed and path to the shrunk counterexample, which is sent once, with the case's fixed steps around it (a nominal request a differential check compares with); the property is not run again. A case that consumes disposable entries consumed them in the run: a target not reset since answers differently, so replay it on a fresh or restarted one (the output says so). Target: a fresh embedded reference server when the run was made against the embedded one (unless --base-url names another); otherwise the target must be named, because a report is a file anyone may hand over and the subscription key never goes to a base URL read from it alone: --base-url URL (the key goes there), or ISWC_BASE_URL when its origin is the one the report records (anything else exits 2 and says what to pass). Requests go as a run sends them: the proxy of HTTPS_PROXY, HTTP_PROXY and NO_PROXY, the extra headers of ISWC_HEADERS and --header (values written nowhere), the run's User-Agent, throttling waited out, and a stop once the target refuses the key. The run's profile is needed (--target), and checked against the report by content.",
  options: {
    report: { type: 'string', value: 'FILE', description: 'The run whose failure to replay (default: reports/conformance.json, or conformance.json in ISWC_REPORT_DIR).' },
    target: { type: 'string', value: 'FILE', description: "The run's target profile (default ISWC_TARGET, else fixtures/targets/embedded.json); refused when its content digest differs from the report's." },
    'base-url': {
      type: 'string',
      value: 'URL',
      description: "The target to replay against, and to send ISWC_SUBSCRIPTION_KEY to, whatever the report says. Without it: a fresh embedded server for an embedded run; else ISWC_BASE_URL, only when its origin is the report's.",
    },
    header: { ...(RUN_OPTIONS.header ?? { type: 'string' }), description: 'Add a header to every request to the target, as for a run (adds to ISWC_HEADERS; the value is written nowhere); repeatable.' },
    destructive: { type: 'boolean', description: 'Allow replaying a case that consumes disposable profile entries against a target that is not on this machine.' },
  },
  positionals: { min: 1, max: 1 },
  environment: [
    ['ISWC_SUBSCRIPTION_KEY', 'The key of the target, required for any target but the embedded server; sent only to the target named by --base-url or ISWC_BASE_URL, never printed; at least 8 characters.'],
    ['ISWC_BASE_URL', "The target, accepted only when its origin is the report's (--base-url names any other); not read for a run made against the embedded server."],
    [`${HEADERS_VARIABLE}, HTTPS_PROXY, HTTP_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS`, 'Extra headers, the proxy and the certificate authorities, read as a run reads them (see run --help).'],
    ['ISWC_REPORT_DIR', 'Where the default report is (default reports/).'],
    ['ISWC_TARGET', 'The default profile.'],
    ['ISWC_RATE, ISWC_TIMEOUT_MS, ISWC_MAX_BODY, ISWC_MAINTENANCE_WAIT', 'Pacing (10/min on a target not on this machine), per-request timeout, largest body and how long a target in maintenance is waited out, as for a run.'],
  ],
  exitCodes: [
    [EXIT.OK, 'the failure does not happen any more (its check passes on the same step)'],
    [EXIT.NOT_CONFORMANT, 'the failure happens again, or the replay could not reach its step (the output says which)'],
    exitMeaning(EXIT.USAGE, `; no failure with that id; the profile differs from the run's; a run not made against the embedded server and no target named (--base-url, or ISWC_BASE_URL of the report's origin); a destructive case against a remote target without --destructive`),
    exitMeaning(EXIT.TARGET_UNUSABLE),
    exitMeaning(EXIT.INTERNAL),
  ],
  async run({ values, positionals }, io) {
    const str = (name: string): string | undefined => stringOption(values, name);
    const reportDir = reportDirOf(io);
    const reportFile = path.resolve(io.cwd, str('report') ?? path.join(reportDir, 'conformance.json'));
    const report = readReportArgument(reportFile, '--report');
    const targetOption = str('target') ?? (io.env.ISWC_TARGET?.trim() || undefined);
    const profileFile = targetOption !== undefined ? path.resolve(io.cwd, targetOption) : DEFAULTS.targetFile;
    if (!existsSync(profileFile)) throw new UsageError(`--target: no profile at ${profileFile}`);
    const profile = loadProfile(profileFile);
    const target = replayTarget(report, values, io.env);
    const headers = extraHeaders(listOption(values, 'header'), io.env);
    // The run's configuration for this target: key (required for any but the embedded server), pacing
    // (10/min on a remote one unless ISWC_RATE says otherwise), limits, extra headers, proxy route.
    const env = { ...io.env, ISWC_BASE_URL: target?.baseUrl ?? '', ISWC_TARGET: profileFile, ...(headers !== undefined ? { [HEADERS_VARIABLE]: headersVariableText(headers) } : {}) };
    let settings;
    try {
      settings = readConfig(env);
    } catch (e) {
      if (e instanceof ConfigError) throw new UsageError(e.message);
      throw e;
    }
    if (target !== undefined) checkCertificateSettings(io.env, io.cwd);
    let result;
    try {
      const failure = findFailure(report, positionals[0] ?? '');
      result = await replayFailure({
        report,
        failure,
        profile,
        profileSource: shownPath(profileFile, io.cwd),
        ...(target !== undefined ? { target } : {}),
        settings,
        allowDestructive: values.destructive === true,
        rate: parseRate(settings.rate),
      });
    } catch (e) {
      if (e instanceof ReplayError) throw new UsageError(e.message);
      throw e;
    }
    const redact = redactorFromEnv(env);
    io.stdout(`${redact.text(result.lines.join('\n'))}\n`);
    return result.code;
  },
};
