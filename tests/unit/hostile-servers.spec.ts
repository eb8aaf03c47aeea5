/**
 * The HTTP client against servers that misbehave on purpose. Every case: `send` resolves (never
 * rejects), with a clear transport error code (or the 3xx answer), within a bounded time; servers and
 * clients are closed after each test.
 */
import { _baseTest as test, expect } from '@playwright/test';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { MAX_NESTING_DEPTH } from '../../lib/config/limits.ts';
import { TOO_DEEP_KEPT_CHARS, createHttpClient, unusableAnswer } from '../../lib/run/http/client.ts';
import type { Exchange, HttpClient, HttpClientOptions, RequestSpec } from '../../lib/contract/exchange.ts';
import { decodeJson } from '../../lib/contract/codec/json.ts';
import { decodeXml } from '../../lib/contract/codec/xml.ts';
import { Cleanup, closedPort, httpServer, rawServer } from '../../server/hostile/servers.ts';

const KEY = 'hostile-test-key-5f1c2a9e';
const TIMEOUT_MS = 1500;
const MIB = 1024 * 1024;
const SLACK_MS = 1000;

const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

function client(baseUrl: string, extra: Partial<HttpClientOptions> = {}): HttpClient {
  return cleanup.add(createHttpClient({ baseUrl, key: KEY, timeoutMs: TIMEOUT_MS, maxBodyBytes: MIB, ...extra }));
}

const GET: RequestSpec = { method: 'GET', path: '/agent/run' };

/** Sends, asserting that the promise resolves; returns the exchange and the elapsed time. */
async function timedSend(c: HttpClient, spec: RequestSpec = GET): Promise<{ ex: Exchange; ms: number }> {
  const started = performance.now();
  const pending = c.send(spec);
  await expect(pending).resolves.toBeDefined();
  const ex = await pending;
  const ms = performance.now() - started;
  test.info().annotations.push({ type: 'elapsed', description: `${Math.round(ms)} ms` });
  expect(JSON.stringify(ex)).not.toContain(KEY);
  return { ex, ms };
}

test('a server that never answers gives TIMEOUT within the timeout', async () => {
  const server = cleanup.add(await rawServer(() => undefined));
  const { ex, ms } = await timedSend(client(server.url));
  expect(ex.error?.code).toBe('TIMEOUT');
  expect(ex.response).toBeUndefined();
  expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
});

test('a server that closes the connection at once gives CONNECTION_RESET', async () => {
  const server = cleanup.add(await rawServer((socket) => socket.destroy()));
  const { ex, ms } = await timedSend(client(server.url));
  expect(ex.error?.code).toBe('CONNECTION_RESET');
  expect(ms).toBeLessThan(SLACK_MS);
});

test('a reset in the middle of the headers gives CONNECTION_RESET', async () => {
  const server = cleanup.add(
    await rawServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: appl', () => socket.resetAndDestroy());
      });
    }),
  );
  const { ex, ms } = await timedSend(client(server.url));
  expect(ex.error?.code).toBe('CONNECTION_RESET');
  expect(ms).toBeLessThan(SLACK_MS);
});

test('bytes that are not HTTP give PROTOCOL', async () => {
  const server = cleanup.add(
    await rawServer((socket) => {
      socket.once('data', () => socket.end('SSH-2.0-OpenSSH_9.6 not http at all\r\n\r\n'));
    }),
  );
  const { ex, ms } = await timedSend(client(server.url));
  expect(ex.error?.code).toBe('PROTOCOL');
  expect(ms).toBeLessThan(SLACK_MS);
});

test('a body shorter than its Content-Length gives PROTOCOL', async () => {
  const server = cleanup.add(
    await rawServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"runId":'));
    }),
  );
  const { ex, ms } = await timedSend(client(server.url));
  expect(ex.error?.code).toBe('PROTOCOL');
  // The head that did arrive is kept (status and headers), marked truncated, with no body text.
  expect(ex.response).toMatchObject({ status: 200, body: '', truncated: true });
  expect(ms).toBeLessThan(SLACK_MS);
});

test('a body of 300 MiB gives BODY_TOO_LARGE quickly, in bounded memory', async () => {
  const total = 300 * MIB;
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let written = 0;
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(total) });
      const body = new Readable({
        read() {
          if (written >= total) {
            this.push(null);
            return;
          }
          written += chunk.length;
          this.push(chunk);
        },
      });
      res.on('close', () => body.destroy());
      body.pipe(res);
    }),
  );
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 10);
  cleanup.defer(() => clearInterval(sampler));
  const { ex, ms } = await timedSend(client(server.url));
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  expect(ex.error?.code).toBe('BODY_TOO_LARGE');
  expect(ex.error?.message).toContain(String(total));
  expect(ex.response?.truncated).toBe(true);
  expect(ex.response?.body.length).toBe(MIB);
  expect(ex.response?.bodyBytes).toBeGreaterThan(MIB);
  expect(ex.response?.bodyBytes).toBeLessThan(2 * MIB);
  expect(ms).toBeLessThan(SLACK_MS);
  expect(rssPeak - rssBefore).toBeLessThan(100 * MIB);
  // The server stopped long before the end: the client dropped the connection.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(written).toBeLessThan(32 * MIB);
  test.info().annotations.push({ type: 'rss growth', description: `${((rssPeak - rssBefore) / MIB).toFixed(1)} MiB; server wrote ${(written / MIB).toFixed(1)} MiB` });
});

/** A server answering every request with `body` as `type`. */
async function answering(body: string, type: string) {
  return cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    }),
  );
}

for (const [format, type, open, close] of [
  ['JSON', 'application/json', '[', ']'],
  ['XML', 'application/xml', '<a>', '</a>'],
] as const) {
  test(`${format} nested 100,000 levels deep gives TOO_DEEP with its depth and the limit, and only its start is kept`, async () => {
    const depth = 100_000;
    const body = open.repeat(depth) + close.repeat(depth);
    const server = await answering(body, type);
    const { ex, ms } = await timedSend(client(server.url));
    expect(ex.error?.code).toBe('TOO_DEEP');
    expect(ex.error?.message).toBe(`${format} nested 100000 levels deep, over the limit of ${MAX_NESTING_DEPTH} levels: not decoded (its first ${TOO_DEEP_KEPT_CHARS} characters are kept)`);
    expect(ex.response?.status).toBe(200);
    expect(ex.response?.bodyBytes).toBe(body.length);
    expect(ex.response?.truncated).toBe(true);
    expect(ex.response?.body).toBe(body.slice(0, TOO_DEEP_KEPT_CHARS));
    expect(ms).toBeLessThan(SLACK_MS);
    expect(unusableAnswer(ex, server.url)).toContain('TOO_DEEP');
    // Whatever still reads the kept start gets an error value, never a throw.
    expect(decodeJson(ex.response?.body ?? '').ok).toBe(false);
    expect(decodeXml('CsnNotification', ex.response?.body ?? '').ok).toBe(false);
  });
}

test(`an answer ${MAX_NESTING_DEPTH} levels deep is an answer like any other`, async () => {
  const json = `${'['.repeat(MAX_NESTING_DEPTH)}${']'.repeat(MAX_NESTING_DEPTH)}`;
  const { ex } = await timedSend(client((await answering(json, 'application/json')).url));
  expect(ex.error).toBeUndefined();
  expect(ex.response?.body).toBe(json);
  const xml = `<CsnNotification>${'<a>'.repeat(MAX_NESTING_DEPTH - 1)}${'</a>'.repeat(MAX_NESTING_DEPTH - 1)}</CsnNotification>`;
  const { ex: xmlEx } = await timedSend(client((await answering(xml, 'text/xml')).url));
  expect(xmlEx.error).toBeUndefined();
  expect(xmlEx.response?.truncated).toBe(false);
});

test('a million levels: over the size limit first (BODY_TOO_LARGE), over the depth limit when the size limit is raised (TOO_DEEP)', async () => {
  const depth = 1_000_000;
  const server = await answering('['.repeat(depth) + ']'.repeat(depth), 'application/json');
  const { ex: large } = await timedSend(client(server.url));
  expect(large.error?.code).toBe('BODY_TOO_LARGE');
  const { ex: deep } = await timedSend(client(server.url, { maxBodyBytes: 4 * MIB }));
  expect(deep.error?.code).toBe('TOO_DEEP');
  expect(deep.error?.message).toContain('JSON nested 1000000 levels deep');
  expect(deep.response?.bodyBytes).toBe(2 * depth);
});

test('a deep answer is redacted before its start is kept: a key across the cut leaves no part behind', async () => {
  const prefix = '['.repeat(TOO_DEEP_KEPT_CHARS - 10);
  const body = `${prefix}"${KEY}"${'['.repeat(10_000)}${']'.repeat(10_000 + prefix.length)}`;
  const { ex } = await timedSend(client((await answering(body, 'application/json')).url));
  expect(ex.error?.code).toBe('TOO_DEEP');
  expect(ex.response?.body.startsWith(`${prefix}"$ISWC_`)).toBe(true);
  expect(ex.response?.body).not.toContain(KEY.slice(0, 9));
});

test('an XML entity bomb is returned and decodeXml refuses it as a doctype', async () => {
  const entities = ['<!ENTITY lol "lol">'];
  for (let i = 1; i <= 9; i += 1) entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
  const bomb = `<?xml version="1.0"?>\n<!DOCTYPE CsnNotification [\n${entities.join('\n')}\n]>\n<CsnNotification><runId>&lol9;</runId></CsnNotification>`;
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(bomb);
    }),
  );
  const { ex, ms } = await timedSend(client(server.url));
  expect(ex.error).toBeUndefined();
  expect(ex.response?.body).toBe(bomb);
  expect(ms).toBeLessThan(SLACK_MS);
  const started = performance.now();
  const decoded = decodeXml('CsnNotification', ex.response?.body ?? '');
  expect(performance.now() - started).toBeLessThan(100);
  expect(decoded.ok).toBe(false);
  if (!decoded.ok) expect(decoded.code).toBe('doctype');
});

/** Gzip members of 16 MiB of zeros each, concatenated: a valid gzip stream that inflates to `members` x 16 MiB. */
function gzipBomb(members: number): Buffer {
  const member = gzipSync(Buffer.alloc(16 * MIB), { level: 9 });
  return Buffer.concat(Array.from({ length: members }, () => member));
}

test('a gzip bomb under the cap is kept raw, never inflated', async () => {
  const bomb = gzipBomb(256); // ~4 MiB on the wire, 4 GiB inflated
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
    }),
  );
  const rssBefore = process.memoryUsage().rss;
  const { ex, ms } = await timedSend(client(server.url, { maxBodyBytes: 8 * MIB }));
  const growth = process.memoryUsage().rss - rssBefore;
  expect(ex.error).toBeUndefined();
  expect(ex.response?.headers['content-encoding']).toBe('gzip');
  expect(ex.response?.bodyBytes).toBe(bomb.length);
  // The body text is the raw bytes as latin1.
  expect(Buffer.from(ex.response?.body ?? '', 'latin1').equals(bomb)).toBe(true);
  expect(ms).toBeLessThan(SLACK_MS);
  expect(growth).toBeLessThan(100 * MIB);
  test.info().annotations.push({ type: 'gzip', description: `${(bomb.length / MIB).toFixed(1)} MiB on the wire; rss growth ${(growth / MIB).toFixed(1)} MiB` });
});

test('a gzip bomb over the cap gives BODY_TOO_LARGE on the raw bytes', async () => {
  const bomb = gzipBomb(256);
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    }),
  );
  const { ex, ms } = await timedSend(client(server.url));
  expect(ex.error?.code).toBe('BODY_TOO_LARGE');
  expect(ex.response?.bodyBytes).toBeLessThanOrEqual(bomb.length);
  expect(ex.response?.body.length).toBe(MIB);
  expect(ms).toBeLessThan(SLACK_MS);
});

test('a body dripping one byte per second gives TIMEOUT', async () => {
  const timers = new Set<NodeJS.Timeout>();
  cleanup.defer(() => timers.forEach((t) => clearInterval(t)));
  const server = cleanup.add(
    await rawServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n{');
        let sent = 0;
        const t = setInterval(() => {
          sent += 1;
          if (sent > 60 || socket.destroyed) {
            clearInterval(t);
            return;
          }
          socket.write(' ');
        }, 1000);
        timers.add(t);
        socket.on('close', () => clearInterval(t));
      });
    }),
  );
  const { ex, ms } = await timedSend(client(server.url));
  expect(ex.error?.code).toBe('TIMEOUT');
  expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
});

test('a 302 to another origin is returned as the answer and the other server sees nothing', async () => {
  const other = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(200);
      res.end('stolen');
    }),
  );
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(302, { location: `${other.url}/steal?from=redirect` });
      res.end();
    }),
  );
  expect(other.url).not.toBe(server.url);
  const { ex, ms } = await timedSend(client(server.url), { method: 'POST', path: '/agent/run', body: '{}', headers: { 'Content-Type': 'application/json' } });
  expect(ex.error).toBeUndefined();
  expect(ex.response?.status).toBe(302);
  expect(ex.response?.headers.location).toBe(`${other.url}/steal?from=redirect`);
  expect(ex.attempts).toBe(1);
  expect(ms).toBeLessThan(SLACK_MS);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(other.seen).toHaveLength(0);
  expect(server.seen).toHaveLength(1);
});

test('429 with Retry-After: 1, then 200: two attempts, about a second waited', async () => {
  const server = cleanup.add(
    await httpServer((_req, res) => {
      if (server.seen.length === 1) {
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
        res.end('{"statusCode":429,"message":"Rate limit is exceeded. Try again in 1 seconds."}');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"runId":"r"}');
      }
    }),
  );
  const { ex, ms } = await timedSend(client(server.url));
  expect(ex.error).toBeUndefined();
  expect(ex.response?.status).toBe(200);
  expect(ex.attempts).toBe(2);
  expect(ex.waitedMs).toBeGreaterThanOrEqual(990);
  expect(ms).toBeLessThan(1000 + SLACK_MS);
  expect(server.seen).toHaveLength(2);
});

test('429 forever gives THROTTLED after maxRetries, keeping the last answer', async () => {
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.writeHead(429, { 'retry-after': '120' });
      res.end('{"statusCode":429}');
    }),
  );
  const { ex, ms } = await timedSend(client(server.url, { maxRetries: 2, maxRetryWaitMs: 50 }));
  expect(ex.error?.code).toBe('THROTTLED');
  expect(ex.error?.message).toContain('429');
  expect(ex.response?.status).toBe(429);
  expect(ex.attempts).toBe(3);
  expect(server.seen).toHaveLength(3);
  expect(ex.waitedMs).toBeGreaterThanOrEqual(95);
  expect(ms).toBeLessThan(SLACK_MS);
});

test('a refused connection gives CONNECTION_REFUSED', async () => {
  const port = await closedPort();
  // One attempt (the unpaced retries that follow it are tests/unit/staging-client.spec.ts's).
  const { ex, ms } = await timedSend(client(`http://127.0.0.1:${port}`, { quickRetryDelaysMs: [] }));
  expect(ex.error?.code).toBe('CONNECTION_REFUSED');
  expect(ms).toBeLessThan(SLACK_MS);
});

// A whole target that never answers (and nine other broken targets): tests/unit/hostile-targets.spec.ts.
