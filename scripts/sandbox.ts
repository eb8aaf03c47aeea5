/**
 * npm run sandbox -- [options]: the sandbox until the command line's `sandbox` command lands
 * (npx iswc-conformance sandbox). See lib/sandbox/options.ts (SANDBOX_HELP) for the options.
 */
import { parseSandboxArgs, SANDBOX_HELP } from '../lib/sandbox/options.ts';
import { runSandbox } from '../lib/sandbox/run.ts';

const parsed = parseSandboxArgs(process.argv.slice(2), process.env);
if (parsed.kind === 'help') {
  process.stdout.write(`${SANDBOX_HELP}\n`);
} else if (parsed.kind === 'usage') {
  process.stderr.write(`iswc-conformance sandbox: ${parsed.message}\n(run with --help for the options)\n`);
  process.exitCode = 2;
} else {
  process.exitCode = await runSandbox(parsed.options, { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) });
}
