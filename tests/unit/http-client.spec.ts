import { _baseTest as test, expect } from '@playwright/test';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BREAKER_READ_INTERVAL_MS, createHttpClient, retryAfterMs, unusableAnswer } from '../../lib/run/http/client.ts';
import { KEY_PLACEHOLDER, WRONG_KEY } from '../../lib/contract/exchange.ts';
import type { HttpClient, HttpClientOptions, RequestSpec } from '../../lib/contract/exchange.ts';
import { subscriptionKeyHeader } from '../../lib/contract/openapi.ts';
import { Cleanup, httpServer } from '../../server/hostile/servers.ts';
import type { SeenRequest, TestServer } from '../../server/hostile/servers.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

const KEY = 'unit-test-key-0f9e8d7c6b5a4321';
const KEY_HEADER = subscriptionKeyHeader();
const KEY_HEADER_LOWER = KEY_HEADER.toLowerCase();

const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

type EchoServer = TestServer & { seen: SeenRequest[] };

/** Answers 200 with a small JSON body (or what `answer` writes). */
async function echoServer(answer?: Parameters<typeof httpServer>[0]): Promise<EchoServer> {
  return cleanup.add(
    await httpServer(
      answer ??
        ((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        }),
    ),
  );
}

function client(baseUrl: string, extra: Partial<HttpClientOptions> = {}): HttpClient {
  return cleanup.add(createHttpClient({ baseUrl, key: KEY, timeoutMs: REQUEST_TIMEOUT_MS, ...extra }));
}

test('auth key: the server gets the key, the record holds the placeholder', async () => {
  const server = await echoServer();
  const c = client(server.url);
  const ex = await c.send({ method: 'POST', path: '/agent/run', body: '{"agencyCode":"128"}', headers: { 'Content-Type': 'application/json' } });
  expect(ex.error).toBeUndefined();
  expect(ex.response).toEqual({ status: 200, headers: expect.objectContaining({ 'content-type': 'application/json' }) as unknown, body: '{"ok":true}', bodyBytes: 11, truncated: false });
  expect(ex.attempts).toBe(1);
  expect(ex.request).toEqual({
    method: 'POST',
    url: `${server.url}/agent/run`,
    headers: { 'User-Agent': 'iswc-conformance', 'Accept-Encoding': 'identity', 'Content-Type': 'application/json', [KEY_HEADER]: KEY_PLACEHOLDER },
    body: '{"agencyCode":"128"}',
    bodyBytes: 20,
    bodyTruncated: false,
    auth: 'key',
  });
  const seen = server.seen[0];
  expect(seen?.headers[KEY_HEADER_LOWER]).toBe(KEY);
  expect(seen?.headers['user-agent']).toBe('iswc-conformance');
  expect(seen?.headers['accept-encoding']).toBe('identity');
  expect(seen?.body.toString()).toBe('{"agencyCode":"128"}');
  expect(JSON.stringify(ex)).not.toContain(KEY);
});

test('auth wrong sends WRONG_KEY and records it; auth none sends no key header', async () => {
  const server = await echoServer();
  const c = client(server.url, { userAgent: 'iswc-conformance/test' });
  const wrong = await c.send({ method: 'GET', path: '/x', auth: 'wrong' });
  const none = await c.send({ method: 'GET', path: '/x', auth: 'none' });
  expect(server.seen[0]?.headers[KEY_HEADER_LOWER]).toBe(WRONG_KEY);
  expect(wrong.request.headers[KEY_HEADER]).toBe(WRONG_KEY);
  expect(wrong.request.auth).toBe('wrong');
  expect(server.seen[1]?.headers[KEY_HEADER_LOWER]).toBeUndefined();
  expect(Object.keys(none.request.headers).map((h) => h.toLowerCase())).not.toContain(KEY_HEADER_LOWER);
  expect(server.seen[1]?.headers['user-agent']).toBe('iswc-conformance/test');
});

test('a key header passed in spec.headers is ignored: the client owns it', async () => {
  const server = await echoServer();
  const c = client(server.url);
  const ex = await c.send({ method: 'GET', path: '/x', headers: { [KEY_HEADER_LOWER]: 'injected', 'X-Trace': 'abc' }, auth: 'none' });
  expect(server.seen[0]?.headers[KEY_HEADER_LOWER]).toBeUndefined();
  expect(server.seen[0]?.headers['x-trace']).toBe('abc');
  expect(ex.request.headers).toEqual({ 'User-Agent': 'iswc-conformance', 'Accept-Encoding': 'identity', 'X-Trace': 'abc' });
  await c.send({ method: 'GET', path: '/x', headers: { [KEY_HEADER.toUpperCase()]: 'injected' } });
  expect(server.seen[1]?.headers[KEY_HEADER_LOWER]).toBe(KEY);
});

test('base URL validation', () => {
  const bad = ['ftp://127.0.0.1/', 'http://user:pass@127.0.0.1/', 'https://user@127.0.0.1/', 'http://127.0.0.1/?a=1', 'http://127.0.0.1/#x', 'http://127.0.0.1/?', 'not a url', 'file:///etc/passwd', ''];
  for (const baseUrl of bad) {
    let thrown: unknown;
    try {
      createHttpClient({ baseUrl, key: KEY });
    } catch (e) {
      thrown = e;
    }
    expect(thrown, baseUrl).toBeInstanceOf(Error);
    expect((thrown as { code?: string }).code, baseUrl).toBe('ISWC_BAD_BASE_URL');
    expect((thrown as Error).message).toContain('Invalid base URL');
  }
  for (const baseUrl of ['http://127.0.0.1:1', 'https://example.org/api/', 'http://[::1]:8080/prefix']) {
    const c = createHttpClient({ baseUrl, key: KEY });
    void c.close();
  }
});

test('a base URL with a path prefix: spec.path is appended', async () => {
  const server = await echoServer();
  for (const prefix of ['/api', '/api/', '/api//']) {
    const c = client(`${server.url}${prefix}`);
    const ex = await c.send({ method: 'GET', path: '/agent/run' });
    expect(ex.request.url).toBe(`${server.url}/api/agent/run`);
  }
  expect(server.seen.map((s) => s.url)).toEqual(['/api/agent/run', '/api/agent/run', '/api/agent/run']);
});

test('paths that leave the base URL are INVALID_URL and nothing is sent', async () => {
  const server = await echoServer();
  const c = client(server.url);
  for (const path of ['agent/run', '//evil.example/x', 'http://evil.example/x', '/a?b=1', '/a#frag', '/a b', '/caf\u00e9']) {
    const pending = c.send({ method: 'GET', path });
    await expect(pending).resolves.toBeDefined();
    const ex = await pending;
    expect(ex.error?.code, path).toBe('INVALID_URL');
    expect(ex.attempts).toBe(0);
    expect(c.curl({ method: 'GET', path })).toMatch(/^# not replayable/);
  }
  const lone = await c.send({ method: 'GET', path: '/x', query: [['a', '\ud800']] });
  expect(lone.error?.code).toBe('INVALID_URL');
  expect(server.seen).toHaveLength(0);
});

test('query parameters keep their order and are encoded with encodeURIComponent; rawQuery goes verbatim', async () => {
  const server = await echoServer();
  const c = client(server.url);
  const query = [
    ['b', '1 2'],
    ['a', 'ä&=+/'],
    ['b', 'x'],
    ['', ''],
  ] as const;
  const ex = await c.send({ method: 'GET', path: '/search', query });
  expect(server.seen[0]?.url).toBe('/search?b=1%202&a=%C3%A4%26%3D%2B%2F&b=x&=');
  expect(ex.request.url).toBe(`${server.url}/search?b=1%202&a=%C3%A4%26%3D%2B%2F&b=x&=`);
  const raw = await c.send({ method: 'GET', path: '/search', rawQuery: 'a=%2f%2F&b=+&c=%zz&&d', query });
  expect(server.seen[1]?.url).toBe('/search?a=%2f%2F&b=+&c=%zz&&d');
  expect(raw.request.url).toBe(`${server.url}/search?a=%2f%2F&b=+&c=%zz&&d`);
  await c.send({ method: 'GET', path: '/search', rawQuery: '' });
  expect(server.seen[2]?.url).toBe('/search?');
});

test('the recorded request body is cut at 64 KiB on a character boundary; the server gets it all', async () => {
  const server = await echoServer();
  const c = client(server.url);
  const body = 'a'.repeat(65535) + '\u00e9' + 'b'.repeat(40_000); // é straddles the 64 KiB boundary
  const ex = await c.send({ method: 'POST', path: '/x', body });
  const bytes = Buffer.byteLength(body);
  expect(ex.request.bodyBytes).toBe(bytes);
  expect(ex.request.bodyTruncated).toBe(true);
  expect(ex.request.body).toBe('a'.repeat(65535));
  expect(server.seen[0]?.body.length).toBe(bytes);
  const small = await c.send({ method: 'POST', path: '/x', body: new Uint8Array([0x68, 0x69]) });
  expect(small.request).toMatchObject({ body: 'hi', bodyBytes: 2, bodyTruncated: false });
});

test('response headers are lower-cased and repeated headers joined', async () => {
  const server = await echoServer((_req, res) => {
    res.setHeader('X-Multi', ['one', 'two']);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.writeHead(404);
    res.end('Iswc not found \u2713');
  });
  const ex = await client(server.url).send({ method: 'GET', path: '/x' });
  expect(ex.response?.status).toBe(404);
  expect(ex.response?.headers['x-multi']).toBe('one, two');
  expect(ex.response?.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(ex.response?.body).toBe('Iswc not found \u2713');
  expect(ex.response?.bodyBytes).toBe(Buffer.byteLength('Iswc not found \u2713'));
});

test('a server that echoes the key never gets it into the record', async () => {
  const server = await echoServer((req, res) => {
    const key = String(req.headers[KEY_HEADER_LOWER]);
    res.writeHead(401, { 'content-type': 'application/json', 'x-echo': key });
    res.end(JSON.stringify({ statusCode: 401, message: `key ${key} / ${encodeURIComponent(key)} / ${Buffer.from(key).toString('base64')}` }));
  });
  const ex = await client(server.url).send({ method: 'POST', path: '/x', body: `{"k":"${KEY}"}`, rawQuery: `subscription-key=${KEY}` });
  const json = JSON.stringify(ex);
  expect(json).not.toContain(KEY);
  expect(json).not.toContain(Buffer.from(KEY).toString('base64'));
  expect(ex.response?.headers['x-echo']).toBe(KEY_PLACEHOLDER);
  expect(ex.request.url).toContain(`subscription-key=${KEY_PLACEHOLDER}`);
});

test('503 with Retry-After is retried; 503 without it (maintenance waits aside: tests/unit/staging-client.spec.ts) and other statuses are answers', async () => {
  let calls = 0;
  const server = await echoServer((req, res) => {
    calls += 1;
    if (req.url === '/retry' && calls === 1) {
      res.writeHead(503, { 'retry-after': '0' });
      res.end('maintenance');
      return;
    }
    res.writeHead(req.url === '/plain503' ? 503 : 204);
    res.end();
  });
  let gates = 0;
  const c = client(server.url, {
    beforeSend: async () => {
      gates += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
    unavailableRetries: 0,
  });
  const retried = await c.send({ method: 'DELETE', path: '/retry' });
  expect(retried.response?.status).toBe(204);
  expect(retried.attempts).toBe(2);
  expect(gates).toBe(2);
  expect(retried.waitedMs).toBeGreaterThanOrEqual(38);
  const plain = await c.send({ method: 'DELETE', path: '/plain503' });
  expect(plain.response?.status).toBe(503);
  expect(plain.attempts).toBe(1);
  expect(plain.error).toBeUndefined();
});

test('429 without Retry-After backs off from 1 s, capped by maxRetryWaitMs', async () => {
  const server = await echoServer((_req, res) => {
    res.writeHead(server.seen.length < 3 ? 429 : 200);
    res.end();
  });
  const ex = await client(server.url, { maxRetryWaitMs: 100 }).send({ method: 'GET', path: '/x' });
  expect(ex.response?.status).toBe(200);
  expect(ex.attempts).toBe(3);
  expect(ex.waitedMs).toBeGreaterThanOrEqual(195);
  expect(ex.waitedMs).toBeLessThan(1000);
});

test('an API Management quota 403 is throttling: not retried, and no later request is sent', async () => {
  const server = await echoServer((_req, res) => {
    res.writeHead(403, { 'content-type': 'application/json' });
    res.end('{ "statusCode": 403, "message": "Out of call volume quota. Quota will be replenished in 07:12:44." }');
  });
  const c = client(server.url);
  const first = await c.send({ method: 'GET', path: '/x' });
  expect(first.error?.code).toBe('THROTTLED');
  expect(first.error?.message).toContain('quota is used up');
  expect(first.response?.status).toBe(403);
  const second = await c.send({ method: 'GET', path: '/y' });
  expect(second.error?.code).toBe('THROTTLED');
  expect(second.error?.message).toMatch(/^not sent: /);
  expect(server.seen.length).toBe(1);
  // Without throttling (local runs), a 403 is an answer like any other.
  const local = await client(server.url, { throttling: false }).send({ method: 'GET', path: '/z' });
  expect(local.error).toBeUndefined();
  expect(local.response?.status).toBe(403);
});

test('Retry-After parsing: seconds and HTTP-date', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
  expect(retryAfterMs('1', now)).toBe(1000);
  expect(retryAfterMs(' 120 ', now)).toBe(120_000);
  expect(retryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30_000);
  expect(retryAfterMs('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
  expect(retryAfterMs('soon', now)).toBeUndefined();
  expect(retryAfterMs('-1', now)).toBeUndefined();
  expect(retryAfterMs(undefined, now)).toBeUndefined();
});

test('close is idempotent and a send after close resolves with an error', async () => {
  const server = await echoServer();
  const c = createHttpClient({ baseUrl: server.url, key: KEY });
  await c.close();
  await c.close();
  const ex = await c.send({ method: 'GET', path: '/x' });
  expect(ex.error?.code).toBe('CONNECTION_RESET');
});

test('keep-alive: thousands of small requests are fast', async () => {
  const server = await echoServer();
  const c = client(server.url);
  const n = 2000;
  const concurrency = 16;
  let next = 0;
  const started = performance.now();
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next += 1;
        const ex = await c.send({ method: 'POST', path: '/agent/run', body: '{"agencyCode":"128"}', headers: { 'Content-Type': 'application/json' } });
        statuses.push(ex.response?.status ?? 0);
      }
    }),
  );
  const ms = performance.now() - started;
  expect(statuses.filter((s) => s === 200)).toHaveLength(n);
  test.info().annotations.push({ type: 'throughput', description: `${n} requests in ${Math.round(ms)} ms (${Math.round((n / ms) * 1000)}/s)` });
  expect(ms).toBeLessThan(10_000);
});

const SPEC: RequestSpec = {
  method: 'POST',
  path: '/agent/run',
  query: [['x', '1']],
  headers: { 'Content-Type': 'application/json' },
  body: `{"agentVersion":"it's 1.0"}`,
};

test('the curl line: shape, quoting, and never the key', () => {
  const c = createHttpClient({ baseUrl: 'https://iswc.example/api', key: KEY });
  cleanup.add(c);
  expect(c.curl(SPEC)).toBe(
    `curl -sS -i -X POST 'https://iswc.example/api/agent/run?x=1' -H "${KEY_HEADER}: $ISWC_SUBSCRIPTION_KEY" -H 'User-Agent: iswc-conformance' -H 'Accept-Encoding: identity' -H 'Content-Type: application/json' -H 'Accept:' --data-binary '{"agentVersion":"it'\\''s 1.0"}'`,
  );
  expect(c.curl({ method: 'GET', path: '/x', auth: 'none' })).toBe(`curl -sS -i -X GET 'https://iswc.example/api/x' -H 'User-Agent: iswc-conformance' -H 'Accept-Encoding: identity' -H 'Accept:'`);
  expect(c.curl({ method: 'GET', path: '/x', auth: 'wrong' })).toContain(`-H '${KEY_HEADER}: ${WRONG_KEY}'`);
  const sneaky = c.curl({ method: 'POST', path: '/x', rawQuery: `k=${KEY}`, headers: { [KEY_HEADER]: KEY, 'X-K': KEY }, body: `${KEY}\u0000` });
  expect(sneaky).not.toContain(KEY);
  expect(sneaky.split('\n')).toHaveLength(1);
  expect(c.curl({ method: 'POST', path: '/x', body: 'a\u0000b\n' })).toMatch(/^printf 'a\\000b\\012' \| curl .* --data-binary @-$/);
});

const hasCurl = spawnSync('curl', ['--version']).status === 0;

test('the curl line replays the request exactly', async () => {
  test.skip(!hasCurl, 'curl is not installed');
  const server = await echoServer();
  const c = client(server.url);
  const cases: RequestSpec[] = [
    SPEC,
    { method: 'POST', path: '/bin', body: new Uint8Array([0x00, 0x0a, 0x25, 0x5c, 0x27, 0x22, 0x24, 0xff, 0x41, 0x0a, 0x0a]) },
    { method: 'POST', path: '/at', body: '@/etc/passwd', headers: { 'Content-Type': 'text/plain' } },
    { method: 'PUT', path: '/empty', body: '', auth: 'wrong' },
    { method: 'DELETE', path: '/agent/run/[1]/{x}', rawQuery: 'iswc=T0345246801&sp=%20a+b', auth: 'none' },
    { method: 'GET', path: '/a/../b', headers: { 'X-Empty': '', 'X-Q': `"quoted" $HOME \`x\`` } },
  ];
  for (const spec of cases) {
    const before = server.seen.length;
    await c.send(spec);
    const line = c.curl(spec);
    expect(line).not.toContain(KEY);
    // Asynchronously: the server runs in this process.
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile('sh', ['-c', line], { env: { PATH: process.env.PATH ?? '', ISWC_SUBSCRIPTION_KEY: KEY, HOME: '/nonexistent' }, timeout: 5000, encoding: 'utf8' }, (err, stdout, stderr) => {
        resolve({ status: err ? ((err as { code?: unknown }).code as number | null) : 0, stdout, stderr });
      });
    });
    expect(run.status, `${line}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^HTTP\/1\.1 200/);
    const viaClient = server.seen[before];
    const viaCurl = server.seen[before + 1];
    expect(viaCurl?.method).toBe(viaClient?.method);
    expect(viaCurl?.url, line).toBe(viaClient?.url);
    expect(viaCurl?.body.equals(viaClient?.body ?? Buffer.alloc(0)), line).toBe(true);
    for (const name of [KEY_HEADER_LOWER, 'content-type', 'user-agent', 'x-empty', 'x-q', 'accept', 'content-length']) {
      expect(viaCurl?.headers[name], `${name} in ${line}`).toBe(viaClient?.headers[name]);
    }
  }
  // Four cases use the real key, each sent twice (client, curl).
  expect(server.seen.filter((s) => s.headers[KEY_HEADER_LOWER] === KEY).length).toBe(8);
});

test('the circuit breaker: unusable answers in a row stop the client; a usable answer in between resets the count', async () => {
  // Answers in turn: a redirect to another origin, a same-origin redirect (usable), a gzip body that was not
  // asked for, a plain 200, then only redirects elsewhere.
  let n = 0;
  const server = await echoServer((_req, res) => {
    n += 1;
    if (n === 2) {
      res.writeHead(301, { location: '/agent/run' });
      res.end();
    } else if (n === 3) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(Buffer.from([0x1f, 0x8b]));
    } else if (n === 4) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    } else {
      res.writeHead(302, { location: 'https://login.example.invalid/' });
      res.end();
    }
  });
  const c = createHttpClient({ baseUrl: server.url, key: KEY, timeoutMs: REQUEST_TIMEOUT_MS, unresponsiveAfter: 3 });
  cleanup.add(c);
  const spec: RequestSpec = { method: 'GET', path: '/agent/run' };
  for (let i = 0; i < 4; i += 1) await c.send(spec);
  expect(c.unusable()).toBeUndefined();
  // Three redirects elsewhere in a row: the third trips the breaker.
  for (let i = 0; i < 3; i += 1) expect((await c.send(spec)).response?.status).toBe(302);
  expect(c.unusable()).toContain('no usable answer to 3 requests in a row');
  expect(c.unusable()).toContain('redirect to https://login.example.invalid, another origin');
  const after = await c.send(spec);
  expect(after.error?.code).toBe('UNRESPONSIVE');
  expect(after.attempts).toBe(0);
  expect(server.seen).toHaveLength(7);
  expect(JSON.stringify(after)).not.toContain(KEY);
});

test("the run's shared breaker file: another client's trip stops this one within BREAKER_READ_INTERVAL_MS, without reading the file on every request", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-breaker-'));
  try {
    const file = path.join(dir, 'unresponsive');
    const server = await echoServer();
    const c = client(server.url, { unresponsiveFile: file });
    const spec: RequestSpec = { method: 'GET', path: '/agent/run' };
    expect((await c.send(spec)).response?.status).toBe(200);
    // Another client of the run trips the breaker.
    writeFileSync(file, 'the target gave no usable answer to 5 requests in a row (last: test)');
    await new Promise((resolve) => setTimeout(resolve, BREAKER_READ_INTERVAL_MS + 50));
    const after = await c.send(spec);
    expect(after.error?.code).toBe('UNRESPONSIVE');
    expect(after.error?.message).toBe('not sent: the target gave no usable answer to 5 requests in a row (last: test)');
    expect(server.seen).toHaveLength(1);
    expect((c as ReturnType<typeof createHttpClient>).unusable()).toContain('(last: test)');
    // A client that starts after the trip sends nothing at all.
    const late = client(server.url, { unresponsiveFile: file });
    expect((await late.send(spec)).error?.code).toBe('UNRESPONSIVE');
    expect(server.seen).toHaveLength(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('answers nested too deep count like any unusable answer: five in a row trip the breaker; a usable one in between resets the count', async () => {
  // Answers in turn: deep JSON four times, a usable answer, then deep XML and deep JSON, alternately.
  let n = 0;
  const server = await echoServer((_req, res) => {
    n += 1;
    const xml = n > 5 && n % 2 === 0;
    res.writeHead(200, { 'content-type': xml ? 'application/xml' : 'application/json' });
    res.end(n === 5 ? '{"runId":"r"}' : xml ? `${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}` : `${'['.repeat(5000)}${']'.repeat(5000)}`);
  });
  const c = createHttpClient({ baseUrl: server.url, key: KEY, timeoutMs: REQUEST_TIMEOUT_MS });
  cleanup.add(c);
  const spec: RequestSpec = { method: 'GET', path: '/agent/run' };
  const codes: Array<string | undefined> = [];
  for (let i = 0; i < 5; i += 1) codes.push((await c.send(spec)).error?.code);
  expect(codes).toEqual(['TOO_DEEP', 'TOO_DEEP', 'TOO_DEEP', 'TOO_DEEP', undefined]);
  expect(c.unusable()).toBeUndefined();
  for (let i = 0; i < 5; i += 1) expect((await c.send(spec)).error?.code).toBe('TOO_DEEP');
  expect(c.unusable()).toBe('the target gave no usable answer to 5 requests in a row (last: TOO_DEEP: XML nested 5000 levels deep, over the limit of 64 levels: not decoded (its first 1024 characters are kept)); the rest of the run is not sent');
  expect((await c.send(spec)).error?.code).toBe('UNRESPONSIVE');
  expect(server.seen).toHaveLength(10);
});

test('unusableAnswer: transport failures, redirects to another origin and unasked codings; judged answers are usable', () => {
  const origin = 'http://127.0.0.1:8080';
  const answer = (status: number, headers: Record<string, string> = {}) => ({ response: { status, headers, body: '', bodyBytes: 0, truncated: false } });
  expect(unusableAnswer({ error: { code: 'CONNECTION_RESET', message: 'reset' } }, origin)).toContain('CONNECTION_RESET');
  expect(unusableAnswer({ error: { code: 'TOO_DEEP', message: 'JSON nested 9000 levels deep' }, ...answer(200) }, origin)).toBe('TOO_DEEP: JSON nested 9000 levels deep');
  expect(unusableAnswer({ error: { code: 'THROTTLED', message: 'still 429' } }, origin)).toBeUndefined();
  expect(unusableAnswer({ error: { code: 'INVALID_URL', message: 'bad path' } }, origin)).toBeUndefined();
  expect(unusableAnswer(answer(500), origin)).toBeUndefined();
  expect(unusableAnswer(answer(302, { location: '/elsewhere' }), origin)).toBeUndefined();
  expect(unusableAnswer(answer(302, { location: 'http://127.0.0.1:8080/x' }), origin)).toBeUndefined();
  expect(unusableAnswer(answer(307, { location: 'http://127.0.0.1:9090/x' }), origin)).toContain('another origin');
  expect(unusableAnswer(answer(200, { 'content-encoding': 'identity' }), origin)).toBeUndefined();
  expect(unusableAnswer(answer(200, { 'content-encoding': 'br' }), origin)).toContain('"br"');
});

test('a target not on this machine is waited for three times the timeout: a late answer is an answer, recorded late unless it is the first; later still is no answer', async () => {
  const delayMs = 600;
  let answered = 0;
  let delays: number[] = [delayMs, 0, delayMs, 2_000];
  const server = await echoServer((_req, res) => {
    // The first request comes while the service wakes up, the third in a pause, the fourth never in time.
    const late = delays[answered] ?? 0;
    answered += 1;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }, late);
  });
  // Three times a timeout of 400 ms: an answer 600 ms late arrives.
  const c = client(server.url, { timeoutMs: 400, lateAnswerFactor: 3 });
  const first = await c.send({ method: 'GET', path: '/agent/run' });
  expect(first.response?.status).toBe(200);
  // A cold start's first answer is not late: the service was waking up.
  expect(first.lateAfterMs).toBeUndefined();
  const inTime = await c.send({ method: 'GET', path: '/agent/run' });
  expect(inTime.lateAfterMs).toBeUndefined();
  // Once the target has answered, an answer past the timeout is still an answer, recorded late.
  const late = await c.send({ method: 'GET', path: '/agent/run' });
  expect(late.response?.status).toBe(200);
  expect(late.lateAfterMs).toBe(400);
  // Past three timeouts it is no answer.
  const gone = await c.send({ method: 'GET', path: '/agent/run' });
  expect(gone.error?.code).toBe('TIMEOUT');
  expect(gone.error?.message).toContain('within 1200 ms');
  // A client against this machine waits no longer by default: its first request times out at the timeout.
  answered = 0;
  delays = [delayMs];
  const local = client(server.url, { timeoutMs: 400 });
  expect((await local.send({ method: 'GET', path: '/agent/run' })).error?.code).toBe('TIMEOUT');
});
