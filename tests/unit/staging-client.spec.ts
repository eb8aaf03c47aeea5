/**
 * The run's HTTP client on a shared staging: a budget that is a cap (resends included), waits counted as
 * wall time, a target in maintenance (502, 503 without Retry-After, 504) waited out while a 5xx that
 * answers one kind of request is judged as it came, and a target that cannot be reached stopped after a
 * short unpaced retry. Back-offs are shortened here; the defaults are in lib/run/http/availability.ts.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { createHttpClient, QUICK_RETRY_DELAYS_MS } from '../../lib/run/http/client.ts';
import type { RunClient } from '../../lib/run/http/client.ts';
import type { HttpClientOptions } from '../../lib/contract/exchange.ts';
import { Availability, firstBackoffFor, isUnavailableAnswer, UNAVAILABLE_FIRST_BACKOFF_MS, UNAVAILABLE_RETRIES, UNAVAILABLE_WAIT_MS } from '../../lib/run/http/availability.ts';
import { targetClientOptions } from '../../lib/run/http/target-client.ts';
import { readConfig } from '../../lib/config/config.ts';
import { WaitClock } from '../../lib/run/http/wait-clock.ts';
import { proxyVerdict } from '../../lib/run/http/network-errors.ts';
import { Cleanup, closedPort, httpServer } from '../../server/hostile/servers.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

const KEY = 'staging-client-key-5d2c';
const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

function client(baseUrl: string, extra: Partial<HttpClientOptions> = {}): RunClient {
  return cleanup.add(createHttpClient({ baseUrl, key: KEY, timeoutMs: REQUEST_TIMEOUT_MS, throttling: true, ...extra }));
}

test('the defaults: six resends with a back-off from 1 s (63 s in all), and two unpaced retries of a connection that failed', () => {
  expect(UNAVAILABLE_RETRIES).toBe(6);
  expect(UNAVAILABLE_FIRST_BACKOFF_MS).toBe(1000);
  expect(UNAVAILABLE_WAIT_MS).toBe(63_000);
  expect(QUICK_RETRY_DELAYS_MS).toEqual([250, 1000]);
  expect([502, 503, 504].map((s) => isUnavailableAnswer(s, undefined))).toEqual([true, true, true]);
  // 503 with Retry-After is throttling; 500 is an answer like any other.
  expect(isUnavailableAnswer(503, '5')).toBe(false);
  expect(isUnavailableAnswer(500, undefined)).toBe(false);
});

test('ISWC_MAINTENANCE_WAIT sets the whole wait of the six resends; unset, the client keeps its default', () => {
  expect(firstBackoffFor(UNAVAILABLE_WAIT_MS)).toBe(UNAVAILABLE_FIRST_BACKOFF_MS);
  const env = { ISWC_BASE_URL: 'http://127.0.0.1:9', ISWC_SUBSCRIPTION_KEY: KEY };
  const unset = readConfig(env);
  expect(unset.maintenanceWaitMs).toBeUndefined();
  expect(targetClientOptions('http://127.0.0.1:9', unset, '128').unavailableBackoffMs).toBeUndefined();
  const tenMinutes = readConfig({ ...env, ISWC_MAINTENANCE_WAIT: '10m' });
  const first = targetClientOptions('http://127.0.0.1:9', tenMinutes, '128').unavailableBackoffMs ?? 0;
  expect(first * (2 ** UNAVAILABLE_RETRIES - 1)).toBeCloseTo(600_000);
  expect(() => readConfig({ ...env, ISWC_MAINTENANCE_WAIT: '90' })).toThrow(/ISWC_MAINTENANCE_WAIT "90" is a number without a unit/);
});

test('a budget caps what is sent, resends included; past it nothing is sent and the client says why', async () => {
  const server = cleanup.add(
    await httpServer((_req, res) => {
      // Every other request throttled once.
      const throttle = server.seen.length % 2 === 1;
      res.writeHead(throttle ? 429 : 204, throttle ? { 'retry-after': '0' } : {});
      res.end();
    }),
  );
  const c = client(server.url, { budget: 5 });
  const answers = [];
  for (let i = 0; i < 5; i += 1) answers.push(await c.send({ method: 'DELETE', path: `/x${i}` }));
  expect(server.seen).toHaveLength(5);
  expect(answers.map((a) => a.error?.code ?? a.response?.status)).toEqual([204, 204, 'NOT_SENT', 'NOT_SENT', 'NOT_SENT']);
  expect(answers[2]?.error?.message).toBe('not sent: the request budget is used up: 5 requests sent, resends included (ISWC_BUDGET)');
  expect(c.budgetSpent()).toContain('5 requests sent');
  expect(c.progress()).toMatchObject({ sent: 5, retried: 2, answered: 5 });
});

test('time waited is wall time: two requests waiting the same second count one second', async () => {
  let now = 0;
  const clock = new WaitClock(() => now);
  const a = clock.begin();
  const b = clock.begin();
  now = 1000;
  a();
  b();
  b();
  expect(clock.ms()).toBe(1000);
  const c = clock.begin();
  now = 1500;
  expect(clock.ms()).toBe(1500);
  c();
  // Against a server: two 429s with Retry-After: 1 at the same time.
  const server = cleanup.add(
    await httpServer((req, res) => {
      const first = server.seen.filter((s) => s.url === req.url).length === 1;
      res.writeHead(first ? 429 : 204, first ? { 'retry-after': '1' } : {});
      res.end();
    }),
  );
  const http = client(server.url);
  await Promise.all([http.send({ method: 'DELETE', path: '/a' }), http.send({ method: 'DELETE', path: '/b' })]);
  const waited = http.progress().waitedMs;
  expect(waited).toBeGreaterThanOrEqual(950);
  expect(waited).toBeLessThan(1900);
});

test('maintenance: a target that answers 503 without Retry-After to every request is waited out, then the run goes on', async () => {
  let away = true;
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(away ? 503 : 204, { 'content-type': 'application/json' });
      res.end(away ? '{"code":"503","message":"maintenance"}' : '');
    }),
  );
  const c = client(server.url, { unavailableBackoffMs: 50 });
  setTimeout(() => (away = false), 400);
  const answers = await Promise.all(['/a', '/b', '/c'].map((p) => c.send({ method: 'DELETE', path: p })));
  expect(answers.map((a) => a.response?.status)).toEqual([204, 204, 204]);
  expect(c.unusable()).toBeUndefined();
  expect(c.progress().retried).toBeGreaterThan(0);
  expect(c.progress().waitedMs).toBeGreaterThan(300);
  // A request that comes while the target is back goes at once.
  expect((await c.send({ method: 'DELETE', path: '/d' })).attempts).toBe(1);
});

for (const status of [502, 503, 504]) {
  test(`maintenance for good (${status} to every request): the run stops, "target unavailable", and the answers are not judged`, async () => {
    const server = cleanup.add(
      await httpServer((_req, res) => {
        res.writeHead(status);
        res.end();
      }),
    );
    const c = client(server.url, { unavailableBackoffMs: 20, unavailableRetries: 3 });
    const answers = await Promise.all(['/a', '/b'].map((p) => c.send({ method: 'POST', path: p, body: '{}' })));
    expect(answers.every((a) => a.error?.code === 'UNRESPONSIVE' || a.error?.code === 'NOT_SENT')).toBe(true);
    expect(c.unusable()).toMatch(new RegExp(`^the target is unavailable: every request was answered ${status}`));
    const later = await c.send({ method: 'POST', path: '/c', body: '{}' });
    expect(later.error?.code).toBe('UNRESPONSIVE');
    expect(later.attempts).toBe(0);
  });
}

test('maintenance for good, the requests in flight all on one path (different bodies): the run stops, "target unavailable", nothing judged', async () => {
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(503);
      res.end();
    }),
  );
  const c = client(server.url, { unavailableBackoffMs: 20, unavailableRetries: 3 });
  const answers = await Promise.all(['{"a":1}', '{"a":2}', '{"a":3}'].map((body) => c.send({ method: 'POST', path: '/agent/run', body })));
  expect(answers.every((a) => a.error?.code === 'UNRESPONSIVE' || a.error?.code === 'NOT_SENT')).toBe(true);
  expect(c.unusable()).toMatch(/^the target is unavailable: every request was answered 503/);
});

test('a 503 that answers one kind of request while the target answers the others is that request\'s own: judged as it came, the run goes on', async () => {
  const server = cleanup.add(
    await httpServer((req, res) => {
      res.writeHead(req.url === '/crash' ? 503 : 204);
      res.end();
    }),
  );
  const c = client(server.url, { unavailableBackoffMs: 100 });
  const crash = c.send({ method: 'POST', path: '/crash', body: '{' });
  // Other traffic goes on meanwhile, as the run's other cases do.
  for (let i = 0; i < 3; i += 1) expect((await c.send({ method: 'DELETE', path: `/ok${i}` })).response?.status).toBe(204);
  const answer = await crash;
  expect(answer.response?.status).toBe(503);
  expect(answer.error).toBeUndefined();
  expect(answer.attempts).toBeLessThanOrEqual(2);
  expect(c.unusable()).toBeUndefined();
});

test('a 503 to the only request in flight, its resends spent, is judged as it came: one request says nothing of the rest', async () => {
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(503);
      res.end();
    }),
  );
  const c = client(server.url, { unavailableBackoffMs: 10, unavailableRetries: 2 });
  const answer = await c.send({ method: 'POST', path: '/crash', body: '{' });
  expect(answer.response?.status).toBe(503);
  expect(answer.error).toBeUndefined();
  expect(answer.attempts).toBe(3);
  expect(c.unusable()).toBeUndefined();
});

test('a 500 is judged as it came, never retried', async () => {
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(500);
      res.end();
    }),
  );
  const c = client(server.url);
  const answer = await c.send({ method: 'POST', path: '/x', body: '{' });
  expect(answer.attempts).toBe(1);
  expect(answer.response?.status).toBe(500);
});

test('a closed port: two unpaced retries, then nothing more is sent, said as it is', async () => {
  const port = await closedPort();
  let paced = 0;
  const c = client(`http://127.0.0.1:${port}`, {
    beforeSend: () => {
      paced += 1;
      return Promise.resolve();
    },
  });
  const started = performance.now();
  const first = await c.send({ method: 'DELETE', path: '/x' });
  expect(performance.now() - started).toBeLessThan(5_000);
  expect(first.error?.code).toBe('CONNECTION_REFUSED');
  expect(first.attempts).toBe(3);
  // The retries did not wait their turn at the pace: nothing reached the target.
  expect(paced).toBe(1);
  expect(c.unusable()).toMatch(/^the target could not be reached \(3 attempts\): the connection to 127\.0\.0\.1:\d+ was refused \(ECONNREFUSED\): nothing listens there; check the base URL's host and port/);
  expect((await c.send({ method: 'DELETE', path: '/y' })).attempts).toBe(0);
  expect(c.progress()).toMatchObject({ sent: 3, retried: 2, answered: 0 });
});

test('a proxy\'s own error answer is read for what it says: Proxy-Status (RFC 9209), squid\'s X-Squid-Error, its page', () => {
  expect(proxyVerdict({ 'proxy-status': 'proxy.example; error=dns_error; rcode=NXDOMAIN' })).toEqual({ kind: 'dns', evidence: 'Proxy-Status: proxy.example; error=dns_error; rcode=NXDOMAIN' });
  expect(proxyVerdict({ 'x-squid-error': 'ERR_DNS_FAIL 0' })?.kind).toBe('dns');
  expect(proxyVerdict({ 'x-squid-error': 'ERR_CONNECT_FAIL 111' })?.kind).toBe('refused');
  expect(proxyVerdict({}, '<p>Unable to determine IP address from host name</p>')?.kind).toBe('dns');
  expect(proxyVerdict({ 'content-type': 'application/json' }, '{"code":"503"}')).toBeUndefined();
});

test('Availability: the evidence of the run\'s own traffic', () => {
  const a = new Availability();
  a.unavailableTo('POST /iswc/merge', 10);
  expect(a.unavailableToAll()).toBe(false);
  a.unavailableTo('POST /iswc/merge', 11);
  expect(a.unavailableToAll()).toBe(false);
  a.unavailableTo('DELETE /submission', 12);
  expect(a.unavailableToAll()).toBe(true);
  expect(a.since()).toBe(10);
  expect(a.answeredSince(10)).toBe(false);
  a.answered(20);
  expect(a.answeredSince(10)).toBe(true);
  expect(a.unavailableToAll()).toBe(false);
});

test('replay lines go the way the run went: -x with the proxy variable (its credentials stay in it), --cacert with the CA file', () => {
  const uri = 'http://agency-bot:pr0xy-pa55@proxy.corp.example:3128';
  const c = client('https://staging.example', { proxy: { uri, shown: 'http://proxy.corp.example:3128', mode: 'connect', variable: 'HTTPS_PROXY' }, caFile: '/etc/company/ca.pem' });
  const line = c.curl({ method: 'DELETE', path: '/submission', query: [['agency', '128']] });
  expect(line).toContain(`curl -sS -i -X DELETE 'https://staging.example/submission?agency=128' -x "$HTTPS_PROXY" --cacert '/etc/company/ca.pem' -H "Ocp-Apim-Subscription-Key: $ISWC_SUBSCRIPTION_KEY"`);
  expect(line).not.toContain('pr0xy-pa55');
  expect(line).not.toContain('agency-bot');
  // A direct run over http has neither.
  const plain = client('http://127.0.0.1:9', { caFile: '/etc/company/ca.pem' }).curl({ method: 'DELETE', path: '/submission' });
  expect(plain).not.toContain('-x ');
  expect(plain).not.toContain('--cacert');
});
