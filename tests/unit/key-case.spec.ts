import { _baseTest as test, expect } from '@playwright/test';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { KEY_CASE_PLACEHOLDER, KEY_NEAR_MISS_PLACEHOLDER, KEY_NEAR_MISSES, WRONG_KEY } from '../../lib/contract/exchange.ts';
import { subscriptionKeyHeader } from '../../lib/contract/openapi.ts';
import { createRedactor, keyNearMiss, keyWithCaseChanged, runSecrets } from '../../lib/foundation/redact.ts';
import { execFileSync } from 'node:child_process';
import { Cleanup, httpServer } from '../../server/hostile/servers.ts';
import { OPERATION_IDS } from '../../lib/contract/operations.ts';
import type { RequestSpec } from '../../lib/contract/exchange.ts';
import type { CaseContext, Step } from '../../lib/generate/case.ts';
import { keyProofs, nearMissParts, RUN_WRONG_KEY, WRONG_KEY_NEAR_MISS } from '../../lib/generate/cases/key-proofs.ts';

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

test('near misses of the key (issue 28): one character more, its last left out, its last changed, a hyphen inside, one before it', () => {
  expect(keyNearMiss(KEY, 'key-longer')).toBe(`${KEY}0`);
  expect(keyNearMiss(KEY, 'key-shorter')).toBe(KEY.slice(0, -1));
  expect(keyNearMiss(KEY, 'key-last-char')).toBe(`${KEY.slice(0, -1)}0`);
  expect(keyNearMiss('abc0', 'key-last-char')).toBe('abc1');
  expect(keyNearMiss(KEY, 'key-separator')).toBe(`${KEY.slice(0, 15)}-${KEY.slice(15)}`);
  expect(keyNearMiss(KEY, 'key-prefixed')).toBe(`--${KEY}`);
  expect(keyNearMiss('k', 'key-shorter')).toBeUndefined();
});

for (const miss of KEY_NEAR_MISSES) {
  test(`auth ${miss} sends the near miss, records it as its placeholder, and its curl line rebuilds it from the variable`, async () => {
    const value = keyNearMiss(KEY, miss) as string;
    const server = cleanup.add(
      await httpServer((_req, res) => {
        res.writeHead(401, { 'content-type': 'text/plain' });
        res.end(`not this key: ${value}`);
      }),
    );
    const client = cleanup.add(createHttpClient({ baseUrl: server.url, key: KEY, timeoutMs: 3000 }));
    const spec = { method: 'DELETE', path: '/submission', auth: miss };
    const exchange = await client.send(spec);
    expect(server.seen[0]?.headers[KEY_HEADER.toLowerCase()]).toBe(value);
    expect(exchange.request.headers[KEY_HEADER]).toBe(KEY_NEAR_MISS_PLACEHOLDER[miss]);
    expect(JSON.stringify(exchange)).not.toContain(value);
    expect(exchange.response?.body).toContain(KEY_NEAR_MISS_PLACEHOLDER[miss]);
    const curl = client.curl(spec);
    expect(curl).not.toContain(value);
    expect(curl).not.toContain(KEY.slice(0, 8));
    // The printed line, run by a POSIX shell with the key in the variable (curl standing in to print its
    // arguments), sends the near miss.
    const args = execFileSync('sh', ['-c', `curl() { for a in "$@"; do printf '%s\\n' "$a"; done; }; ${curl}`], { env: { ...process.env, ISWC_SUBSCRIPTION_KEY: KEY }, encoding: 'utf8' }).split('\n');
    expect(args).toContain(`${KEY_HEADER}: ${value}`);
  });
}

test("the run's secrets and every redactor of a key cover its near misses", () => {
  const placeholders = runSecrets({ ISWC_SUBSCRIPTION_KEY: KEY }).map((s) => s.placeholder);
  for (const miss of KEY_NEAR_MISSES) expect(placeholders).toContain(KEY_NEAR_MISS_PLACEHOLDER[miss]);
  const redact = createRedactor([KEY]);
  for (const miss of KEY_NEAR_MISSES) expect(redact.text(`a ${keyNearMiss(KEY, miss) as string} b`)).toBe(`a ${KEY_NEAR_MISS_PLACEHOLDER[miss]} b`);
  expect(redact.text(`a ${KEY} b`)).toBe('a $ISWC_SUBSCRIPTION_KEY b');
});

test("issue 37: every wrong key proven on data that exists is a near miss; the run's wrong-key case, its parts and the other operations' proofs send each", async () => {
  const dataOps = OPERATION_IDS.filter((op) => op !== 'notifyAgentRun');
  const misses = dataOps.map((op) => WRONG_KEY_NEAR_MISS[op]);
  // The run's wrong key, the end of a run's and one near miss on each operation that changes data: all five
  // loose comparisons, in any budget that proves the key on every operation.
  expect(new Set(misses).size).toBe(dataOps.length);
  expect([RUN_WRONG_KEY, WRONG_KEY_NEAR_MISS.notifyAgentRun, ...misses].sort()).toEqual([...KEY_NEAR_MISSES].sort());
  // The wrong-key case's parts send the rest; where no data changes, the end of a run another one.
  expect([RUN_WRONG_KEY, ...nearMissParts().map((p) => p.id)].sort()).toEqual([...KEY_NEAR_MISSES].sort());
  expect(WRONG_KEY_NEAR_MISS.notifyAgentRun).not.toBe(RUN_WRONG_KEY);

  const sent: Step[] = [];
  const ctx = { send: (step: Step) => Promise.resolve(sent.push(step)) } as unknown as CaseContext;
  const request: RequestSpec = { method: 'DELETE', path: '/submission' };
  await keyProofs(ctx, 'deleteSubmission', request, 'delete', 'this delete succeeds');
  expect(sent.map((s) => s.request.auth)).toEqual(['none', 'empty', WRONG_KEY_NEAR_MISS.deleteSubmission, 'key-case']);
  expect(sent[2]?.label).toBe('delete with a wrong key (the key with its last character changed)');
  expect(sent.every((s) => s.expect.map((e) => e.checkId).join() === 'auth.key-checked')).toBe(true);
});
