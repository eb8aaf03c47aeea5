import { defineConfig } from '@playwright/test';
import { testWorkers } from './lib/config/defaults.ts';

// The command line always names its run's report directory (default ./reports). A run it did not start
// (npm test, npx playwright test) writes apart, to test-reports/, and says so to its workers: the tests'
// reports never overwrite a user's, nor collide with a run of theirs going on beside them.
if (!process.env.ISWC_REPORT_DIR?.trim()) process.env.ISWC_REPORT_DIR = 'test-reports';
const reportDir = process.env.ISWC_REPORT_DIR.trim();
// The run command on a terminal asks for the live progress line, which takes the list reporter's place.
const live = process.env.ISWC_PROGRESS === 'live' && process.stdout.isTTY === true;
// Anything but a positive integer is left to the global setup to refuse plainly (readConfig, exit 2):
// Playwright would print a stack for 0 and wait for ever with "NaN workers".
const workersText = process.env.ISWC_WORKERS?.trim() ?? '';
const workers = /^[1-9][0-9]*$/.test(workersText) ? Number(workersText) : testWorkers();

/** The tests that run the docs' commands as a reader would (tests/support/doc-commands.ts). */
const JOURNEYS = /\/(readme|guides|compat-guide|client-guide|printed-commands|certify-printed)\.spec\.ts$/;
/**
 * The tests that start the tool's real runs as processes (tests/support/tier.ts): with the journeys, the
 * second tier, `npm run test:e2e`; `npm test` runs the rest (CONTRIBUTING.md, "Two tiers").
 */
const E2E = /@e2e\b/;

/**
 * Projects: `json` and `xml` run the conformance suite in each body format against ISWC_BASE_URL (or the
 * embedded reference server, started by the global setup); `unit` holds the harness's own unit tests, `journeys` the README's and guides' commands run as written;
 * `selfcheck` proves every check by running the suite against each injected fault of the reference server;
 * `client` drives the example agency client through the sandbox and proves every client check.
 */
export default defineConfig({
  globalSetup: './lib/suite/global-setup.ts',
  forbidOnly: !!process.env.CI,
  fullyParallel: true,
  workers,
  retries: 0,
  // Generous per test: a paced run (a remote server, or ISWC_RATE) spends most of its time waiting its turn.
  timeout: process.env.ISWC_BASE_URL || !/^\s*0?\s*$/.test(process.env.ISWC_RATE ?? '') ? 30 * 60_000 : 60_000,
  // A run given its own report directory (the run command always gives one) keeps Playwright's per-test
  // files there: Playwright empties its output folder when a run starts, so two runs sharing one (shards
  // on one machine, two CI jobs, the CLI tests of npm test) would delete each other's files mid-run.
  outputDir: `${reportDir}/test-results`,
  reporter: [
    // First: it turns conformance tests that deferred their failure back into failed tests before any
    // other reporter sees them (a failed test would otherwise cost Playwright a new worker).
    ['./lib/engine/deferred-failures.ts'],
    ...(live ? [] : [['list'] as const]),
    // The run's progress: a live line on a terminal (run command), else a line every 30 s while it sends.
    ['./reporters/progress-reporter.ts', { live }],
    ['junit', { outputFile: `${reportDir}/junit.xml` }],
    ['./reporters/conformance-reporter.ts'],
    // allure-playwright with the run's environment (the seed used) and each attachment once.
    ['./reporters/allure-playwright.ts', { resultsDir: `${reportDir}/allure-results`, detail: false, suiteTitle: false }],
  ],
  projects: [
    // Snapshots are data (generator output), the same on every platform.
    // The docs run as written (README, guides, printed commands): each test is a chain of commands of a
    // minute or more, listed first so that they start first and no worker is left with one at the end.
    { name: 'journeys', testDir: 'tests/unit', testMatch: JOURNEYS },
    // The example agency client driven through the sandbox: green with trouble, and its fault catalogue.
    // Next, since several of its tests wait in real time (a late answer, a client retrying for ever) and
    // wait best beside work for the processor; listed last, they were the run's idle tail.
    { name: 'client', testDir: 'examples/agency-client' },
    { name: 'browser', testDir: 'tests/browser', grepInvert: E2E },
    { name: 'selfcheck', testDir: 'tests/selfcheck' },
    { name: 'unit', testDir: 'tests/unit', testIgnore: JOURNEYS, grepInvert: E2E, snapshotPathTemplate: '{testDir}/{testFileName}-snapshots/{arg}{ext}' },
    { name: 'json', testDir: 'lib/suite', testMatch: 'json.spec.ts' },
    { name: 'xml', testDir: 'lib/suite', testMatch: 'xml.spec.ts' },
    // The tests of unit and browser tagged @e2e: each starts the tool's real runs as processes (npm run test:e2e).
    { name: 'e2e', testDir: 'tests', testMatch: /\/(unit|browser)\/[^/]+\.spec\.ts$/, testIgnore: JOURNEYS, grep: E2E, snapshotPathTemplate: '{testDir}/unit/{testFileName}-snapshots/{arg}{ext}' },
  ],
});
