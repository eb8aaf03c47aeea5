/**
 * npm run test:changed [-- REF]: the quick pass of a working loop. Runs the tests of the files changed since
 * REF (default HEAD: what is not committed yet) and the tests that import a changed file, through
 * Playwright's --only-changed, in both tiers; the self-check and the browser are left to npm test unless a
 * changed file is theirs. npm test and npm run test:e2e stay the whole suite.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(`Usage: npm run test:changed [-- REF] [PLAYWRIGHT OPTIONS]

Runs, with npm test's settings, the tests Playwright finds changed since the git REF (default HEAD: the
uncommitted changes), and those that import a changed file (--only-changed). A change to a module most
tests import (the judge, the codecs) selects most of the suite. Any other argument goes to Playwright.
`);
  process.exit(0);
}
const ref = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : 'HEAD';
const rest = argv[0] === ref ? argv.slice(1) : argv;
const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
const child = spawn(process.execPath, [cli, 'test', `--only-changed=${ref}`, ...rest], {
  stdio: 'inherit',
  env: { ...process.env, ISWC_BASE_URL: '', ISWC_TARGET: '', ISWC_REPORT_DIR: 'test-reports' },
});
child.on('close', (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
