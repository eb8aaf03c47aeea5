import { ProfileError } from '../../contract/profile/load.ts';
import { SANDBOX_DESCRIPTION, SANDBOX_ENVIRONMENT, SANDBOX_OPTIONS, SANDBOX_USAGE, sandboxOptionsFrom } from '../../sandbox/options.ts';
import { runSandbox } from '../../sandbox/run.ts';
import type { Command } from '../command.ts';
import { EXIT, UsageError } from '../command.ts';

/**
 * `npx iswc-conformance sandbox`: the reference server started for a client under test, every request
 * judged from the client's side (lib/sandbox/, docs/client-checks.md). A thin wrapper: the options are
 * lib/sandbox/options.ts's, the session is runSandbox's.
 */
export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'serve a client under test: judge every request it sends, answer like production, report',
  usage: SANDBOX_USAGE,
  description: SANDBOX_DESCRIPTION,
  options: SANDBOX_OPTIONS,
  environment: SANDBOX_ENVIRONMENT,
  exitCodes: [
    [EXIT.OK, 'the session ended (--requests, --idle, --wait-first) and the client is conformant: every declared operation (--operations, --formats) succeeded at least once, and no spec-level client check failed (with --strict, no http-level one either)'],
    [EXIT.NOT_CONFORMANT, 'not conformant: a spec-level client check failed (with --strict, an http-level one too), or a declared operation never succeeded; the reports say which, on which request, and why. Also when the session judged no request of the client (verdict incomplete: it shows nothing). certify --client issues a certificate for neither'],
    [EXIT.USAGE, 'bad options (one line: an unreadable --inject, --operations or --formats, trouble past --requests or two kinds on one request), an unreadable profile, a --report-dir that cannot be written (refused at start, in one line), an ISWC_SANDBOX_KEY under 8 characters, or the port cannot be taken'],
    [EXIT.INTERNAL, 'judging a request raised (a defect of iswc-conformance, not of the client): the session ends at once and the reports hold what was judged before it'],
    [
      EXIT.INTERRUPTED,
      "the session was ended by SIGINT, SIGTERM or SIGHUP, or because the process that started it (npm, npx, a shell) ended: the reports are written with the session's verdict (endedBy \"signal\"), which the console's last lines repeat, and the port is free again. A session that must end with its verdict as the exit status (a CI step) ends by --idle or --requests",
    ],
  ],
  async run({ values }, io) {
    let options;
    try {
      options = sandboxOptionsFrom(values, io.env, io.cwd);
    } catch (e) {
      throw new UsageError(e instanceof ProfileError ? e.message : (e as Error).message);
    }
    return runSandbox(options, { out: (line) => io.stdout(`${line}\n`), err: (line) => io.stderr(`${line}\n`) });
  },
};
