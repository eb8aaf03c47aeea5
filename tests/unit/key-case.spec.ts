import { test, expect } from '@playwright/test';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { KEY_CASE_PLACEHOLDER, WRONG_KEY } from '../../lib/contract/exchange.ts';
import { subscriptionKeyHeader } from '../../lib/contract/openapi.ts';
import { createRedactor, keyWithCaseChanged, runSecrets } from '../../lib/foundation/redact.ts';
import { Cleanup, httpServer } from '../../server/hostile/servers.ts';

const KEY = 'Unit-Test-Key-0f9e8d7c6b5a4321';
const TWIN = 'uNIT-tEST-kEY-0F9E8D7C6B5A4321';
const KEY_HEADER = subscriptionKeyHeader();

const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

test('the key with the case of its letters changed: every ASCII letter swapped; a key without letters has none', () => {
  expect(keyWithCaseChanged(KEY)).toBe(TWIN);
  expect(keyWithCaseChanged('0123-4567-89')).toBeUndefined();
});

test("auth key-case sends the key's case-changed twin, and records, replays and writes it nowhere but as a placeholder", async () => {
  const server = cleanup.add(
    await httpServer((_req, res) => {
      // A server that echoes what it got: the twin must still leave no trace.
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end(`not this key: ${TWIN}`);
    }),
  );
  const client = cleanup.add(createHttpClient({ baseUrl: server.url, key: KEY, timeoutMs: 3000 }));
  const spec = { method: 'DELETE', path: '/submission', auth: 'key-case' as const };
  const exchange = await client.send(spec);
  expect(server.seen[0]?.headers[KEY_HEADER.toLowerCase()]).toBe(TWIN);
  expect(exchange.request.headers[KEY_HEADER]).toBe(KEY_CASE_PLACEHOLDER);
  expect(JSON.stringify(exchange)).not.toContain(TWIN);
  expect(exchange.response?.body).toContain(KEY_CASE_PLACEHOLDER);
  const curl = client.curl(spec);
  expect(curl).not.toContain(TWIN);
  expect(curl).toContain('tr a-zA-Z A-Za-z');
});

test('a key without letters sends the wrong key instead, recorded as it is', async () => {
  const server = cleanup.add(await httpServer((_req, res) => res.writeHead(401).end()));
  const client = cleanup.add(createHttpClient({ baseUrl: server.url, key: '0123-4567-8901', timeoutMs: 3000 }));
  const exchange = await client.send({ method: 'DELETE', path: '/submission', auth: 'key-case' });
  expect(server.seen[0]?.headers[KEY_HEADER.toLowerCase()]).toBe(WRONG_KEY);
  expect(exchange.request.headers[KEY_HEADER]).toBe(WRONG_KEY);
});

test("the run's secrets and every redactor of a key cover its case-changed twin", () => {
  expect(runSecrets({ ISWC_SUBSCRIPTION_KEY: KEY }).map((s) => s.placeholder)).toContain(KEY_CASE_PLACEHOLDER);
  expect(createRedactor([KEY]).text(`a ${TWIN} b`)).toBe(`a ${KEY_CASE_PLACEHOLDER} b`);
});
