import { fromRoot } from '../foundation/paths.ts';

/** Every default of the harness, in one place (lib/cli/environment.ts, --help and docs/configuration.md quote them). */
export const DEFAULTS = Object.freeze({
  /** The key of the embedded reference server when ISWC_SUBSCRIPTION_KEY is not set (not a secret: it guards nothing). */
  embeddedKey: 'local-dev-key',
  /** The published production limit (docs/production.md): the pace against a remote base URL. */
  remoteRate: '10/min',
  targetFile: fromRoot('fixtures', 'targets', 'embedded.json'),
  reportDir: 'reports',
  runs: 100,
  timeoutMs: 10_000,
  maxBodyBytes: 1024 * 1024,
  /** Playwright workers for `npm test`; `npm run conformance` uses one (memory, see docs/performance.md). */
  workers: 2,
  /** Timeouts in a row after which the target counts as unresponsive. */
  unresponsiveAfter: 5,
});
