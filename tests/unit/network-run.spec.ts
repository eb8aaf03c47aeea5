/**
 * The real command (`npx iswc-conformance run`, a process of its own) on a company network, all on
 * loopback with servers each test starts and stops: the embedded reference server behind a TLS front
 * whose certificate a CA made by the test signed, a recording forward proxy that demands credentials,
 * NO_PROXY, and the CA given (or not) in NODE_EXTRA_CA_CERTS, which Node reads only at process start.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { startReferenceServer } from '../../server/index.ts';
import { cliInProcess, runCliAsync } from '../support/cli.ts';
import { forwardProxy } from '../support/forward-proxy.ts';
import { Cleanup, closedPort } from '../../server/hostile/servers.ts';
import { childEnv } from '../support/run-playwright.ts';
import { hasOpenssl, makeTestPki, tlsFront } from '../support/tls.ts';

test.describe.configure({ timeout: 180_000 });

const KEY = 'network-run-key-0c4f9e1a7d2b';
const HEADER_VALUE = 'gateway-token-83b1e6d0c2a9';
const CREDENTIALS = { user: 'agency-bot', password: 'pr0xy-run-pa55-e4d1' };

const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Every secret of these runs, in the forms a file could hold it. */
function leaks(texts: Array<[string, string]>): string[] {
  const secrets = [KEY, HEADER_VALUE, CREDENTIALS.password, `${CREDENTIALS.user}:${CREDENTIALS.password}`];
  const forms = secrets.flatMap((s) => [s, encodeURIComponent(s), Buffer.from(s).toString('base64').replace(/=+$/, '')]);
  return texts.flatMap(([where, text]) => forms.filter((f) => text.includes(f)).map((f) => `${where}: ${f}`));
}

async function referenceServer(): ReturnType<typeof startReferenceServer> {
  return cleanup.add(await startReferenceServer({ profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), key: KEY }));
}

function reportDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-network-'));
  cleanup.defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('https:// through a proxy that demands credentials, the CA in NODE_EXTRA_CA_CERTS: green, the proxy saw only tunnels, no secret anywhere', { tag: '@e2e' }, async () => {
  test.skip(!hasOpenssl(), 'openssl is not installed: no test CA can be made');
  const pki = makeTestPki();
  cleanup.defer(() => pki.remove());
  const server = await referenceServer();
  const front = cleanup.add(await tlsFront(pki, server.port));
  const proxy = cleanup.add(await forwardProxy({ auth: CREDENTIALS }));
  const dir = reportDir();
  const env = childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, HTTPS_PROXY: proxy.uri(CREDENTIALS), NODE_EXTRA_CA_CERTS: pki.caFile, ISWC_REPORT_DIR: dir });
  const run = await runCliAsync(['run', '--base-url', front.url, '--budget', '40', '--seed', '1', '--header', `X-Gateway-Token: ${HEADER_VALUE}`], { env });
  expect(run.code, run.out).toBe(0);
  // The first lines say which way the run went, without the proxy's credentials or the header's value.
  expect(run.stdout).toContain(`  through the proxy ${proxy.url} (HTTPS_PROXY; CONNECT tunnel: the proxy sees host and port only)`);
  expect(run.stdout).toContain('  extra headers X-Gateway-Token: $ISWC_HEADER_X_GATEWAY_TOKEN');
  const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as { meta: { requests: number; network?: unknown } };
  expect(report.meta.network).toEqual({ proxy: { url: proxy.url, variable: 'HTTPS_PROXY', mode: 'connect' }, extraHeaders: ['X-Gateway-Token'] });
  expect(report.meta.requests).toBeGreaterThan(20);
  // The proxy saw tunnels to the base URL's host and port, each with its credentials, and nothing of the requests.
  expect(proxy.log.length).toBeGreaterThan(0);
  expect(proxy.log.every((e) => e.kind === 'connect' && e.target === `127.0.0.1:${front.port}` && e.status === 200)).toBe(true);
  expect(leaks([['proxy log', JSON.stringify(proxy.log.map((e) => ({ ...e, headers: { ...e.headers, 'proxy-authorization': undefined } })))]])).toEqual([]);
  const html = readFileSync(path.join(dir, 'conformance.html'), 'utf8');
  expect(html).toContain('CONNECT tunnel');
  expect(leaks([['console', run.out], ...filesUnder(dir).map((f): [string, string] => [path.relative(dir, f), readFileSync(f, 'latin1')])])).toEqual([]);
});

test('the same target without NODE_EXTRA_CA_CERTS fails clearly: TLS, with the hint, never a crash', { tag: '@e2e' }, async () => {
  test.skip(!hasOpenssl(), 'openssl is not installed: no test CA can be made');
  const pki = makeTestPki();
  cleanup.defer(() => pki.remove());
  const server = await referenceServer();
  const front = cleanup.add(await tlsFront(pki, server.port));
  const dir = reportDir();
  const run = await runCliAsync(['run', '--base-url', front.url, '--budget', '20', '--seed', '1'], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_REPORT_DIR: dir }) });
  expect(run.code, 'a TLS failure is the target being unusable, not a defect of the harness').toBe(3);
  // No request reached the target's HTTP server: nothing of the document was judged, nothing failed.
  expect(run.out).not.toContain('failing checks');
  expect(run.out).toMatch(/spec\s+0 passed, 0 failed/);
  expect(run.out).toContain(`✗ TARGET UNUSABLE: no TLS connection could be made (3 attempts): the TLS certificate of ${front.url} was not accepted (UNABLE_TO_VERIFY_LEAF_SIGNATURE`);
  expect(run.out).toContain('give the CA as a PEM file in NODE_EXTRA_CA_CERTS');
  expect(run.out).not.toMatch(/\n\s+at .*\.(ts|js):\d+/);
  // A CA file that does not exist stops the run before anything is sent.
  const missing = await cliInProcess(['run', '--base-url', front.url], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_REPORT_DIR: dir, NODE_EXTRA_CA_CERTS: path.join(pki.dir, 'missing.pem') }) });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain(`NODE_EXTRA_CA_CERTS names ${path.join(pki.dir, 'missing.pem')}, which is not a file`);
  const notCa = await cliInProcess(['run', '--base-url', front.url], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_REPORT_DIR: dir, NODE_EXTRA_CA_CERTS: path.join(pki.dir, 'san.ext') }) });
  expect(notCa.code).toBe(2);
  expect(notCa.stderr).toContain('holds no PEM certificate');
  // Turning verification off instead is refused.
  const off = await cliInProcess(['run', '--base-url', front.url], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_REPORT_DIR: dir, NODE_TLS_REJECT_UNAUTHORIZED: '0' }) });
  expect(off.code).toBe(2);
  expect(off.stderr).toContain('NODE_TLS_REJECT_UNAUTHORIZED=0 turns certificate verification off');
});

test('http:// through HTTP_PROXY: every request passes the proxy in absolute form; NO_PROXY sends the run direct', { tag: '@e2e' }, async () => {
  const server = await referenceServer();
  const proxy = cleanup.add(await forwardProxy());
  const dir = reportDir();
  const args = ['run', '--base-url', server.url, '--budget', '25', '--seed', '1'];
  const through = await runCliAsync(args, { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, HTTP_PROXY: proxy.url, ISWC_REPORT_DIR: dir }) });
  expect(through.code, through.out).toBe(0);
  expect(through.stdout).toContain(`  through the proxy ${proxy.url} (HTTP_PROXY; absolute-form requests: the proxy sees every request)`);
  const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as { meta: { requests: number } };
  expect(proxy.log).toHaveLength(report.meta.requests);
  expect(proxy.log.every((e) => e.kind === 'request' && e.target.startsWith(`${server.url}/`))).toBe(true);

  // A proxy that is not there, and NO_PROXY naming the target: the run never tries it (a fresh server:
  // the first run consumed the disposable entries of this one).
  const fresh = await referenceServer();
  const direct = await runCliAsync(['run', '--base-url', fresh.url, '--budget', '25', '--seed', '1'], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, HTTP_PROXY: `http://127.0.0.1:${await closedPort()}`, NO_PROXY: 'localhost,127.0.0.1', ISWC_REPORT_DIR: dir }) });
  expect(direct.code, direct.out).toBe(0);
  const bypass = `NO_PROXY entry "127.0.0.1" matches ${new URL(fresh.url).host} (HTTP_PROXY is not used for it)`;
  expect(direct.stdout).toContain(`  no proxy: ${bypass}`);
  const second = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as { meta: { network?: unknown } };
  expect(second.meta.network).toEqual({ proxy: null, bypass, extraHeaders: [] });
});

test('a proxy that cannot be reached: exit 3, "target unusable", and no check fails (nothing reached the target)', { tag: '@e2e' }, async () => {
  const dir = reportDir();
  const port = await closedPort();
  const run = await runCliAsync(['run', '--base-url', 'http://api.example.invalid', '--budget', '20', '--seed', '1', '--rate', '0'], {
    env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, HTTP_PROXY: `http://${CREDENTIALS.user}:${CREDENTIALS.password}@127.0.0.1:${port}`, ISWC_REPORT_DIR: dir }),
  });
  expect(run.code, run.out).toBe(3);
  expect(run.out).toContain(`✗ TARGET UNUSABLE: the request never reached the target (3 attempts): could not connect to the proxy at http://127.0.0.1:${port}`);
  expect(run.out).not.toContain('failing checks');
  expect(run.out).toMatch(/spec\s+0 passed, 0 failed/);
  expect(run.out).toMatch(/http\s+0 passed, 0 failed/);
  const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as { summary: { gatingFailures: number }; executions: Array<{ verdict: string }> };
  expect(report.summary.gatingFailures).toBe(0);
  expect(report.executions.filter((e) => e.verdict === 'fail')).toEqual([]);
  expect(leaks([['console', run.out], ...filesUnder(dir).map((f): [string, string] => [path.relative(dir, f), readFileSync(f, 'latin1')])])).toEqual([]);
});
