/**
 * The HTTP client through a company proxy, on loopback: a recording forward proxy (absolute-form for an
 * http:// target, CONNECT for an https:// one), started and stopped by each test. What passes the proxy,
 * what the proxy sees of the key and the extra headers, how its refusals, timeouts, the body cap and
 * redirects come out, and that a proxy's credentials are recorded nowhere.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { readConfig } from '../../lib/config/config.ts';
import type { RequestSpec } from '../../lib/contract/exchange.ts';
import { subscriptionKeyHeader } from '../../lib/contract/openapi.ts';
import { createHttpClient, unusableAnswer } from '../../lib/run/http/client.ts';
import type { RunClient } from '../../lib/run/http/client.ts';
import { createJudge } from '../../lib/check/judge.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { runPlannedCase } from '../../lib/run/runner.ts';
import { startReferenceServer } from '../../server/index.ts';
import { forwardProxy } from '../support/forward-proxy.ts';
import type { ForwardProxy } from '../support/forward-proxy.ts';
import { Cleanup, closedPort, httpServer } from '../../server/hostile/servers.ts';
import { hasOpenssl, makeTestPki, tlsFront } from '../support/tls.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

const KEY = 'proxy-test-key-6b1f0e2d9c8a7f35';
const KEY_HEADER = subscriptionKeyHeader();
const HEADER_VALUE = 'gw-token-4e7a1c90d2b3';
const CREDENTIALS = { user: 'agency-bot', password: 'pr0xy-pa55-7c1d' };
const SPEC: RequestSpec = { method: 'POST', path: '/agent/run', headers: { 'Content-Type': 'application/json' }, body: '{"agencyCode":"128"}' };

const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

async function okServer(answer?: Parameters<typeof httpServer>[0]): ReturnType<typeof httpServer> {
  return cleanup.add(
    await httpServer(
      answer ??
        ((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"runId":"r1"}');
        }),
    ),
  );
}

/** A client of the base URL through the proxy, as the engine makes it from the environment. */
function viaProxy(baseUrl: string, proxyEnv: Record<string, string>, extra: { timeoutMs?: number; maxBodyBytes?: number; unresponsiveAfter?: number } = {}): RunClient {
  const cfg = readConfig({ ISWC_BASE_URL: baseUrl, ISWC_SUBSCRIPTION_KEY: KEY, ISWC_HEADERS: JSON.stringify({ 'X-Gateway-Token': HEADER_VALUE }), ...proxyEnv });
  return cleanup.add(createHttpClient({ baseUrl, key: KEY, timeoutMs: extra.timeoutMs ?? REQUEST_TIMEOUT_MS, headers: cfg.headers, proxy: cfg.network.proxy, ...extra }));
}

function noSecretIn(value: unknown): void {
  const text = JSON.stringify(value);
  for (const secret of [KEY, HEADER_VALUE, CREDENTIALS.password, Buffer.from(`${CREDENTIALS.user}:${CREDENTIALS.password}`).toString('base64')]) expect(text).not.toContain(secret);
}

test('http:// target: absolute-form requests through HTTP_PROXY; the target gets the key and the extra header, the record neither', async () => {
  const target = await okServer();
  const proxy: ForwardProxy = cleanup.add(await forwardProxy({ auth: CREDENTIALS }));
  const c = viaProxy(target.url, { HTTP_PROXY: proxy.uri(CREDENTIALS) });
  const ex = await c.send(SPEC);
  expect(ex.error).toBeUndefined();
  expect(ex.response?.status).toBe(200);
  expect(proxy.log).toEqual([expect.objectContaining({ kind: 'request', method: 'POST', target: `${target.url}/agent/run`, status: 200 })]);
  // An http:// target shows the proxy everything, the key included: only to the base URL's origin.
  expect(proxy.log[0]?.headers[KEY_HEADER.toLowerCase()]).toBe(KEY);
  expect(target.seen[0]?.headers[KEY_HEADER.toLowerCase()]).toBe(KEY);
  expect(target.seen[0]?.headers['x-gateway-token']).toBe(HEADER_VALUE);
  expect(target.seen[0]?.headers['proxy-authorization']).toBeUndefined();
  expect(ex.request.url).toBe(`${target.url}/agent/run`);
  expect(ex.request.headers['X-Gateway-Token']).toBe('$ISWC_HEADER_X_GATEWAY_TOKEN');
  expect(c.curl(SPEC)).toContain(`-H "X-Gateway-Token: $ISWC_HEADER_X_GATEWAY_TOKEN"`);
  noSecretIn(ex);
  noSecretIn(c.curl(SPEC));
});

test('https:// target: a CONNECT tunnel through HTTPS_PROXY; the proxy sees host and port, never the key or a header', async () => {
  test.skip(!hasOpenssl(), 'openssl is not installed: no test CA can be made');
  const pki = makeTestPki();
  cleanup.defer(() => pki.remove());
  const backend = await okServer();
  const front = cleanup.add(await tlsFront(pki, backend.port));
  const proxy = cleanup.add(await forwardProxy({ auth: CREDENTIALS }));
  const c = viaProxy(front.url, { HTTPS_PROXY: proxy.uri(CREDENTIALS) });
  const ex = await c.send(SPEC);
  // This process does not trust the test CA (NODE_EXTRA_CA_CERTS is read at process start: see
  // network-run.spec.ts): the tunnel opens, and the certificate is refused with a code and a hint.
  expect(ex.error?.code).toBe('TLS');
  expect(ex.error?.message).toContain(`the TLS certificate of ${front.url} was not accepted`);
  expect(ex.error?.message).toContain('NODE_EXTRA_CA_CERTS');
  // A certificate refused is tried again twice at once (it will not go away), then the client stops.
  expect(proxy.log).toHaveLength(3);
  expect(ex.attempts).toBe(3);
  expect(proxy.log[0]).toMatchObject({ kind: 'connect', target: `127.0.0.1:${front.port}`, status: 200 });
  expect(Object.keys(proxy.log[0]?.headers ?? {}).sort()).toEqual(['connection', 'host', 'proxy-authorization', 'proxy-connection']);
  expect(JSON.stringify(proxy.log)).not.toContain(KEY);
  expect(JSON.stringify(proxy.log)).not.toContain(HEADER_VALUE);
  expect(backend.seen).toHaveLength(0);
  expect(unusableAnswer(ex, new URL(front.url).origin)).toMatch(/^TLS: /);
  noSecretIn(ex);
});

test('NO_PROXY: a listed target is reached directly, the proxy sees nothing', async () => {
  const target = await okServer();
  const proxy = cleanup.add(await forwardProxy());
  for (const noProxy of ['127.0.0.1', `127.0.0.1:${target.port}`, 'localhost,127.0.0.1', '*']) {
    const cfg = readConfig({ ISWC_BASE_URL: target.url, ISWC_SUBSCRIPTION_KEY: KEY, HTTP_PROXY: proxy.url, NO_PROXY: noProxy });
    expect(cfg.network.proxy).toBeNull();
    expect(cfg.network.bypass).toContain('NO_PROXY entry');
    const c = cleanup.add(createHttpClient({ baseUrl: target.url, key: KEY, proxy: cfg.network.proxy }));
    expect((await c.send(SPEC)).response?.status).toBe(200);
  }
  expect(proxy.log).toHaveLength(0);
  expect(target.seen).toHaveLength(4);
  // Another port of the same host is not covered by a host:port entry.
  const cfg = readConfig({ ISWC_BASE_URL: target.url, ISWC_SUBSCRIPTION_KEY: KEY, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1:1' });
  const c = cleanup.add(createHttpClient({ baseUrl: target.url, key: KEY, proxy: cfg.network.proxy }));
  expect((await c.send(SPEC)).response?.status).toBe(200);
  expect(proxy.log).toHaveLength(1);
});

for (const mode of ['absolute-form', 'connect'] as const) {
  const variable = mode === 'connect' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  const scheme = mode === 'connect' ? 'https' : 'http';

  test(`a proxy that demands credentials: 407 is a PROXY failure that says what to do (${mode})`, async () => {
    const proxy = cleanup.add(await forwardProxy({ auth: CREDENTIALS }));
    // The target is never reached: any port does.
    const baseUrl = `${scheme}://127.0.0.1:${await closedPort()}`;
    const none = await viaProxy(baseUrl, { [variable]: proxy.uri() }).send(SPEC);
    expect(none.error?.code).toBe('PROXY');
    expect(none.error?.message).toBe(
      `the proxy at ${proxy.url} refused the connection to ${new URL(baseUrl).host} (407 Proxy Authentication Required): give its credentials in the proxy URL (HTTPS_PROXY=http://user:password@host:port; percent-encode special characters)`,
    );
    expect(none.response).toBeUndefined();
    const wrong = await viaProxy(baseUrl, { [variable]: proxy.uri({ user: CREDENTIALS.user, password: 'not-the-pa55word' }) }).send(SPEC);
    expect(wrong.error?.code).toBe('PROXY');
    expect(wrong.error?.message).toContain('(407 Proxy Authentication Required): the credentials in the proxy URL were not accepted');
    expect(wrong.error?.message).not.toContain('not-the-pa55word');
    expect(unusableAnswer(wrong, baseUrl)).toMatch(/^PROXY: the proxy at/);
  });

  test(`a proxy that cannot be reached is a PROXY failure naming it, never a crash (${mode})`, async () => {
    const port = await closedPort();
    const baseUrl = `${scheme}://api.example.invalid`;
    const ex = await viaProxy(baseUrl, { [variable]: `http://${CREDENTIALS.user}:${CREDENTIALS.password}@127.0.0.1:${port}` }).send(SPEC);
    expect(ex.error?.code).toBe('PROXY');
    expect(ex.error?.message).toMatch(new RegExp(`^could not connect to the proxy at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED: `));
    expect(ex.error?.message).toContain('list api.example.invalid in NO_PROXY');
    noSecretIn(ex);
  });
}

test('a proxy that refuses the tunnel (502) is a PROXY failure; after two unpaced retries nothing more is sent', async () => {
  const proxy = cleanup.add(await forwardProxy({ refuse: 502 }));
  const baseUrl = `https://127.0.0.1:${await closedPort()}`;
  const c = viaProxy(baseUrl, { HTTPS_PROXY: proxy.url }, { unresponsiveAfter: 5 });
  const first = await c.send(SPEC);
  expect(first.error).toEqual({ code: 'PROXY', message: `the proxy at ${proxy.url} refused the connection to ${new URL(baseUrl).host} (502 Bad Gateway): it could not reach ${new URL(baseUrl).host}` });
  expect(first.attempts).toBe(3);
  expect(c.unusable()).toBe(`the request never reached the target (3 attempts): ${first.error?.message ?? ''}`);
  const after = await c.send(SPEC);
  expect(after.error?.code).toBe('UNRESPONSIVE');
  // Three CONNECTs of the requests, and one the client sent itself to read the proxy's page (it says nothing here).
  expect(proxy.log.filter((e) => e.kind === 'connect')).toHaveLength(4);
});

test('through the proxy, a target that hangs is a TIMEOUT that names the proxy, and a huge body is BODY_TOO_LARGE', async () => {
  const target = await okServer((req, res) => {
    if (req.url === '/hang') return; // never answers
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(Buffer.alloc(256 * 1024, 0x61));
  });
  const proxy = cleanup.add(await forwardProxy());
  const c = viaProxy(target.url, { HTTP_PROXY: proxy.url }, { timeoutMs: 400, maxBodyBytes: 16 * 1024 });
  const hang = await c.send({ method: 'GET', path: '/hang' });
  expect(hang.error?.code).toBe('TIMEOUT');
  expect(hang.error?.message).toBe(`no complete answer within 400 ms (through the proxy at ${proxy.url})`);
  const big = await c.send({ method: 'GET', path: '/big' });
  expect(big.error?.code).toBe('BODY_TOO_LARGE');
  expect(big.response?.status).toBe(200);
  expect(big.response?.bodyBytes).toBeGreaterThan(16 * 1024);
  expect(proxy.log.map((e) => e.target)).toEqual([`${target.url}/hang`, `${target.url}/big`]);
});

test('through the proxy, a redirect to another origin is not followed: the key and the extra header went to the base origin only', async () => {
  const elsewhere = await okServer();
  const target = await okServer((_req, res) => {
    res.writeHead(302, { location: `${elsewhere.url}/collect` });
    res.end();
  });
  const proxy = cleanup.add(await forwardProxy());
  const c = viaProxy(target.url, { HTTP_PROXY: proxy.url });
  const ex = await c.send(SPEC);
  expect(ex.response?.status).toBe(302);
  expect(unusableAnswer(ex, target.url)).toContain(`redirect to ${elsewhere.url}, another origin (never followed)`);
  expect(elsewhere.seen).toHaveLength(0);
  expect(proxy.log).toHaveLength(1);
  for (const entry of proxy.log) {
    if (entry.headers[KEY_HEADER.toLowerCase()] !== undefined || entry.headers['x-gateway-token'] !== undefined) expect(new URL(entry.target).origin).toBe(target.url);
  }
});

/**
 * The checks a review saw fail through a proxy that was not there (status.success, auth.required,
 * auth.key-checked, http.answered): cases that exercise them, sent through a client whose every request
 * ends before the target, and judged as a run judges them.
 */
async function judgedWithoutTarget(client: RunClient): Promise<Array<{ checkId: string; verdict: string; skipReason?: string }>> {
  const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  const wanted = ['run.start-and-end@json', 'run.auth.none@xml', 'delete.success-then-repeat@none'];
  const planned = (await planSuite(profile, { destructive: true, runs: 2 })).filter((p) => wanted.includes(p.key));
  expect(planned.map((p) => p.key).sort()).toEqual([...wanted].sort());
  const judge = createJudge({ strict: true, agency: profile.agency });
  const executions = [];
  for (const p of planned) executions.push(...(await runPlannedCase(p, client, profile, { seed: 1, runs: 2, strict: true }, judge)).executions);
  return executions;
}

test('a proxy that cannot be reached is no conformance finding: every check is skipped with the reason, none fails (strict)', async () => {
  const port = await closedPort();
  const c = viaProxy('http://api.example.invalid', { HTTP_PROXY: `http://${CREDENTIALS.user}:${CREDENTIALS.password}@127.0.0.1:${port}` }, { unresponsiveAfter: 1000 });
  const executions = await judgedWithoutTarget(c);
  expect(executions.length).toBeGreaterThan(0);
  expect(executions.filter((e) => e.verdict !== 'skip')).toEqual([]);
  expect(executions.map((e) => e.checkId)).toEqual(expect.arrayContaining(['status.success', 'auth.required', 'auth.key-checked', 'http.answered']));
  expect(executions[0]?.skipReason).toMatch(/^no answer: the request never reached the target \(could not connect to the proxy at http:\/\/127\.0\.0\.1:\d+ .*; not a conformance finding$/);
  noSecretIn(executions);
});

test('a certificate this machine does not accept is no conformance finding either: skipped with the TLS reason, none fails', async () => {
  test.skip(!hasOpenssl(), 'openssl is not installed: no test CA can be made');
  const pki = makeTestPki();
  cleanup.defer(() => pki.remove());
  const server = cleanup.add(await startReferenceServer({ profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), key: KEY }));
  const front = cleanup.add(await tlsFront(pki, server.port));
  // Without the test CA in NODE_EXTRA_CA_CERTS: the front's certificate is signed by an authority nobody trusts.
  const c = cleanup.add(createHttpClient({ baseUrl: front.url, key: KEY, timeoutMs: REQUEST_TIMEOUT_MS, unresponsiveAfter: 1000 }));
  const executions = await judgedWithoutTarget(c);
  expect(executions.length).toBeGreaterThan(0);
  expect(executions.filter((e) => e.verdict !== 'skip')).toEqual([]);
  expect(executions[0]?.skipReason).toMatch(/^no answer: no TLS connection was made \(the TLS certificate of https:\/\/127\.0\.0\.1:\d+ was not accepted .*; not a conformance finding$/);
});
