import { existsSync } from 'node:fs';
import path from 'node:path';
import { checkBaseUrl, ConfigError, readConfig } from '../../config/config.ts';
import { parseRate } from '../../config/rate.ts';
import { loadProfile } from '../../contract/profile/load.ts';
import { DEFAULTS } from '../../config/defaults.ts';
import { redactorFor } from '../../redact.ts';
import { findFailure, replayFailure, ReplayError } from '../../replay.ts';
import type { Command } from '../command.ts';
import { EXIT, EXIT_TEXT, stringOption, UsageError, reportDirOf } from '../command.ts';
import { readReportArgument } from './diff.ts';

/**
 * `npx iswc-conformance replay ID`: sends the requests of one failure of a report again (a fixed case's
 * steps, or a generated failure's one input through fast-check's seed and path), prints each exchange
 * with its failing checks and says whether the failure still happens.
 */
export const replayCommand: Command = {
  name: 'replay',
  summary: 'send the requests of one failure again, by its id, and say whether it still happens',
  usage: 'npx iswc-conformance replay ID [--report conformance.json] [--target FILE] [--base-url URL] [--destructive]',
  description:
    "ID is a failure's short id, printed next to it in the console, the HTML report, JUnit and conformance.json (failureId); a unique prefix of 4 or more digits will do. A fixed case's failure sends the case's steps in order, with the disposable entries the run gave it. A generated failure (a property, the model test) sends only its input: fast-check walks the recorded seed and path to the shrunk counterexample, which is sent once, with the case's fixed steps around it (a nominal request a differential check compares with); the property is not run again. A case that consumes disposable entries consumed them in the run: a target not reset since answers differently, so replay it on a fresh or restarted one (the output says so). Target: the report's base URL, a fresh embedded reference server when the run was made against the embedded one, or --base-url. The run's profile is needed (--target), and checked against the report by content.",
  options: {
    report: { type: 'string', value: 'FILE', description: 'The run whose failure to replay (default: reports/conformance.json, or conformance.json in ISWC_REPORT_DIR).' },
    target: { type: 'string', value: 'FILE', description: "The run's target profile (default ISWC_TARGET, else fixtures/targets/embedded.json); refused when its content digest differs from the report's." },
    'base-url': { type: 'string', value: 'URL', description: "Send to this target instead of the report's base URL (ISWC_BASE_URL is not read: a replay goes where the run went unless told otherwise)." },
    destructive: { type: 'boolean', description: 'Allow replaying a case that consumes disposable profile entries against a target that is not on this machine.' },
  },
  positionals: { min: 1, max: 1 },
  environment: [
    ['ISWC_SUBSCRIPTION_KEY', 'The key of the target, required for any target but the embedded server; never printed.'],
    ['ISWC_REPORT_DIR', 'Where the default report is (default reports/).'],
    ['ISWC_TARGET', 'The default profile.'],
    ['ISWC_RATE, ISWC_TIMEOUT_MS, ISWC_MAX_BODY', 'Pacing (10/min on a target not on this machine), per-request timeout and largest body, as for a run.'],
  ],
  exitCodes: [
    [EXIT.OK, 'the failure does not happen any more (its check passes on the same step)'],
    [EXIT.NOT_CONFORMANT, 'the failure happens again, or the replay could not reach its step (the output says which)'],
    [EXIT.USAGE, `${EXIT_TEXT[2]}; no failure with that id; the profile differs from the run's; a destructive case against a remote target without --destructive`],
    [EXIT.TARGET_UNUSABLE, EXIT_TEXT[3]],
    [EXIT.INTERNAL, EXIT_TEXT[4]],
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
    let baseUrl: string | undefined;
    const baseOption = str('base-url');
    if (baseOption !== undefined) {
      try {
        baseUrl = checkBaseUrl(baseOption, '--base-url');
      } catch (e) {
        throw new UsageError((e as ConfigError).message);
      }
    }
    const key = io.env.ISWC_SUBSCRIPTION_KEY?.trim() || undefined;
    const target = baseUrl ?? (report.meta.embedded ? undefined : (report.meta.baseUrl ?? undefined));
    let settings;
    try {
      // The run's pacing and limits for this target (10/min on a remote one unless ISWC_RATE says otherwise).
      settings = readConfig({ ...io.env, ISWC_BASE_URL: target ?? '', ISWC_TARGET: profileFile }, { requireKey: false });
    } catch (e) {
      if (e instanceof ConfigError) throw new UsageError(e.message);
      throw e;
    }
    let result;
    try {
      const failure = findFailure(report, positionals[0] ?? '');
      result = await replayFailure({
        report,
        failure,
        profile,
        profileSource: path.relative(io.cwd, profileFile) || profileFile,
        ...(baseUrl !== undefined ? { baseUrl } : {}),
        ...(key !== undefined ? { key } : {}),
        allowDestructive: values.destructive === true,
        timeoutMs: settings.timeoutMs,
        maxBodyBytes: settings.maxBodyBytes,
        rate: parseRate(settings.rate),
      });
    } catch (e) {
      if (e instanceof ReplayError) throw new UsageError(e.message);
      throw e;
    }
    io.stdout(`${redactorFor(key).text(result.lines.join('\n'))}\n`);
    return result.code;
  },
};
