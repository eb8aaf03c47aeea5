import { test } from '@playwright/test';
import { isCommandName } from '../../lib/cli/command-names.ts';

/**
 * The two tiers of the harness's tests (CONTRIBUTING.md, "Two tiers"). `npm test` is the quick one: the
 * unit tests, the self-check, the client's catalogue, the browser and the conformance suite, in-process
 * wherever they can be. `npm run test:e2e` is the other: the docs run as written (project `journeys`) and
 * the tests tagged `@e2e` (project `e2e`), which start the tool's real runs as processes, each a
 * Playwright runner and its workers (about 5 s of CPU before a request is sent), and often wait in real
 * time. CI runs both.
 *
 * A test of the quick tier that starts such a run fails at once, saying how to move it: without this,
 * one more real run a week would bring `npm test` back over its time unseen.
 */
export const E2E_TAG = '@e2e';

/** The projects of `npm run test:e2e`, where real runs belong. */
const E2E_PROJECTS: ReadonlySet<string> = new Set(['journeys', 'e2e']);

/**
 * Throws when the test calling it runs in the quick tier without the `@e2e` tag. Outside a test (a script,
 * a worker's own setup) it does nothing: only a test can be moved to the other tier.
 */
export function requireE2e(what: string): void {
  let info: ReturnType<typeof test.info>;
  try {
    info = test.info();
  } catch {
    return;
  }
  if (E2E_PROJECTS.has(info.project.name) || info.tags.includes(E2E_TAG)) return;
  throw new Error(
    `"${info.title}" (${info.file}) starts ${what} in the project ${info.project.name} of npm test, the quick tier: give the test the tag { tag: '${E2E_TAG}' } so that npm run test:e2e runs it (CONTRIBUTING.md, "Two tiers"), or prove it in-process (cliInProcess, inProcessReport)`,
  );
}

/**
 * Whether these arguments of the command line start a conformance run (a Playwright runner): `run`,
 * `certify` without a file to certify, and the default command, which is `run`. `--help`, `--version` and
 * `--plan` print and end.
 */
export function startsARun(args: readonly string[]): boolean {
  const first = args[0];
  if (first === undefined || ['--help', '-h', '--version', '-V'].includes(first)) return false;
  // certify --report certifies a finished run, and certify --client a sandbox session: neither runs.
  const certifiesAFile = first === 'certify' && args.some((a) => a === '--report' || a === '--client' || a.startsWith('--report=') || a.startsWith('--client='));
  const runs = first === 'run' || (first === 'certify' && !certifiesAFile) || !isCommandName(first);
  return runs && !args.some((a) => a === '--help' || a === '-h' || a === '--plan');
}
