/**
 * A target that cannot be used is known in seconds, at the default remote rate (10 a minute), and said
 * for what it is: a closed port, a certificate this machine does not accept, a proxy that refuses the
 * way, a host that does not resolve (directly, or behind a proxy that says so). Each stops the run after
 * a short unpaced retry with exit 3, and no test whose requests never reached the target reads as passed.
 * Every kind through the run's pipeline in this process, against servers on loopback; the real command on
 * a closed port in lifecycle.spec.ts, where what keeps it within seconds is asserted (three attempts, none
 * waiting its turn at the pace, the tests left not run); the time itself is printed, bounded there only
 * generously (a loaded CI machine), and measured by `npm run bench`.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { EXIT } from '../../lib/cli/command.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { resolveNetworkRoute } from '../../lib/config/proxy.ts';
import { runSuiteWithOutcome } from '../../lib/engine/pipeline.ts';
import { startReferenceServer } from '../../server/index.ts';
import { forwardProxy } from '../support/forward-proxy.ts';
import { Cleanup, closedPort } from '../../server/hostile/servers.ts';
import { hasOpenssl, makeTestPki, tlsFront } from '../support/tls.ts';

test.describe.configure({ mode: 'parallel', timeout: 120_000 });

const KEY = 'unusable-key-7f3a9c2e';
const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

interface Unusable {
  name: string;
  /** Sets the target up; returns the base URL and the environment the run needs. */
  setup(): Promise<{ baseUrl: string; env?: Record<string, string> }>;
  /** What the headline must say. */
  says: RegExp;
}

const CASES: Unusable[] = [
  {
    name: 'a closed port',
    setup: async () => ({ baseUrl: `http://127.0.0.1:${await closedPort()}` }),
    says: /✗ TARGET UNUSABLE: the target could not be reached \(3 attempts\): the connection to 127\.0\.0\.1:\d+ was refused \(ECONNREFUSED\): nothing listens there; check the base URL's host and port/,
  },
  {
    name: 'a certificate this machine does not accept',
    setup: async () => {
      const pki = makeTestPki();
      cleanup.defer(() => pki.remove());
      const server = cleanup.add(await startReferenceServer({ profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), key: KEY }));
      const front = cleanup.add(await tlsFront(pki, server.port));
      return { baseUrl: front.url };
    },
    says: /✗ TARGET UNUSABLE: no TLS connection could be made \(3 attempts\): the TLS certificate of https:\/\/127\.0\.0\.1:\d+ was not accepted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE.*NODE_EXTRA_CA_CERTS/,
  },
  {
    name: 'a proxy that refuses the way',
    setup: async () => {
      const proxy = cleanup.add(await forwardProxy({ refuse: 403 }));
      return { baseUrl: 'https://staging.example.invalid', env: { HTTPS_PROXY: proxy.url } };
    },
    says: /✗ TARGET UNUSABLE: the request never reached the target \(3 attempts\): the proxy at http:\/\/127\.0\.0\.1:\d+ refused the connection to staging\.example\.invalid \(403 Forbidden\): the proxy does not allow staging\.example\.invalid/,
  },
  {
    name: 'an unknown host',
    setup: () => Promise.resolve({ baseUrl: 'https://staging-typo.example.invalid' }),
    says: /✗ TARGET UNUSABLE: the target could not be reached \(3 attempts\): DNS: the host staging-typo\.example\.invalid could not be resolved \(ENOTFOUND: no such host\)/,
  },
  {
    name: 'an unknown host behind a proxy (a CONNECT tunnel) that says so',
    setup: async () => {
      const proxy = cleanup.add(await forwardProxy({ squid: true }));
      return { baseUrl: 'https://staging-typo.example.invalid', env: { HTTPS_PROXY: proxy.url } };
    },
    says: /✗ TARGET UNUSABLE: the request never reached the target \(3 attempts\): DNS: the proxy at http:\/\/127\.0\.0\.1:\d+ could not resolve the host staging-typo\.example\.invalid \(503, X-Squid-Error: ERR_DNS_FAIL 0\): check the host of the base URL/,
  },
  {
    name: 'an unknown host behind a proxy (absolute-form requests) that says so',
    setup: async () => {
      const proxy = cleanup.add(await forwardProxy({ squid: true }));
      return { baseUrl: 'http://staging-typo.example.invalid', env: { HTTP_PROXY: proxy.url } };
    },
    says: /✗ TARGET UNUSABLE: the request never reached the target \(3 attempts\): DNS: the proxy at http:\/\/127\.0\.0\.1:\d+ could not resolve the host staging-typo\.example\.invalid \(503, X-Squid-Error: ERR_DNS_FAIL 0\)/,
  },
];

/**
 * Every kind, through the run's own pipeline in this process (the client a run makes, the way to the target
 * resolved from the environment as a run resolves it, the run's outcome): what stops the run and how it is
 * said. The way from that reason to the command's headline, reports and exit code is the same for every
 * kind: the real command proves it on a closed port in lifecycle.spec.ts (and on a certificate refused in
 * network-run.spec.ts).
 */
for (const c of CASES) {
  test(`${c.name}: the run stops as target unusable (exit 3), said for what it is; nothing judged`, async () => {
    test.skip(c.name.includes('certificate') && !hasOpenssl(), 'openssl is not installed: no test CA can be made');
    const { baseUrl, env } = await c.setup();
    const run = await runSuiteWithOutcome({
      baseUrl,
      key: KEY,
      profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')),
      destructive: false,
      concurrency: 1,
      network: resolveNetworkRoute(baseUrl, { ...env }),
      settings: { seed: 1, runs: 5 },
    });
    expect(run.outcome).toMatchObject({ status: 'target-unusable', exitCode: EXIT.TARGET_UNUSABLE });
    expect(`✗ TARGET UNUSABLE: ${run.halt?.reason ?? ''}`).toMatch(c.says);
    // Nothing reached the target's HTTP server: nothing judged, nothing failed, nothing passed.
    expect(run.executions.filter((e) => e.verdict === 'pass' || e.verdict === 'fail')).toEqual([]);
  });
}
