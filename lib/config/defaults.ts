import { availableParallelism } from 'node:os';
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
  /**
   * Playwright workers for `npm test` (testWorkers()): one more than the machine's cores, from 2 to 8, since
   * some of its tests wait (back-off, timeouts, commands they start). On two cores, three workers took 401 s
   * of CPU and 4.2 min where four took 492 s and 4.8 min, and two 377 s but 4.9 min, idle while tests
   * waited (CONTRIBUTING.md, "Where the time goes"); `npm run conformance` uses one (memory, see
   * docs/performance.md).
   */
  workers: 'cores + 1 (2 to 8)',
  /** Timeouts in a row after which the target counts as unresponsive. */
  unresponsiveAfter: 5,
});

/** The workers of `npm test` and a plain `npx playwright test` without ISWC_WORKERS (DEFAULTS.workers). */
export function testWorkers(cores = availableParallelism()): number {
  return Math.min(8, Math.max(2, cores + 1));
}
