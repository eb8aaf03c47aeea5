import { request as httpRequest, Agent } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { ClientReport } from '../../lib/report/client/model.ts';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { startSandbox } from '../../lib/sandbox/run.ts';
import { SandboxSession } from '../../lib/sandbox/session.ts';
import type { Reply } from '../../server/index.ts';
import { TroubleSchedule, parseInjections, parseRateLimit } from '../../lib/sandbox/trouble.ts';

/**
 * The timing judgements never raise a false alarm for a client at the edge: a request in flight before
 * an answer with Retry-After was written is not judged against it, a client that waits exactly the delay
 * passes, and a client that keeps exactly to a rate limit is not over it when the sandbox stamps its
 * requests late. Each edge comes with the fault just past it, still caught.
 */

const KEY = 'timing-unit-key-5e4d3c2b1a';
const DELETE = '/submission?preferredIswc=T9999999994&agency=128&workcode=W1&sourceDb=128&reasonCode=EdiV1';

/** One DELETE over `agent` (undefined: a connection of its own); resolves with the status once the answer is read. */
function del(url: string, agent: Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${DELETE}`, { method: 'DELETE', agent, headers: { 'Ocp-Apim-Subscription-Key': KEY } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function session(args: string[], drive: (url: string) => Promise<void>): Promise<ClientReport> {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-timing-'));
  try {
    const parsed = parseSandboxArgs(['--port', '0', '--report-dir', dir, '--operations', 'delete', ...args], { ISWC_SANDBOX_KEY: KEY });
    if (parsed.kind !== 'run') throw new Error(`bad arguments: ${JSON.stringify(parsed)}`);
    const running = await startSandbox(parsed.options);
    await drive(running.url);
    return (await running.stop()).report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const retryAfter = (report: ClientReport) => report.checks.exercised.find((c) => c.id === 'client.retry-after');

test('requests sent together with the one that gets a 429 were in flight: never judged against its Retry-After', async () => {
  const report = await session(['--inject', '429@1', '--strict'], async (url) => {
    // Three at once, each on a connection of its own, as a client with a pool sends them.
    const statuses = await Promise.all([del(url, false), del(url, false), del(url, false)]);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
  });
  expect(retryAfter(report)?.failed ?? 0).toBe(0);
  expect(report.violations.filter((v) => v.check === 'client.retry-after')).toEqual([]);
});

test('with fetch (its pool takes another connection for the next request): four requests at once are not judged; a retry 1.2 s after the 429 is', async () => {
  const headers = { 'Ocp-Apim-Subscription-Key': KEY };
  const together = await session(['--inject', '429@1', '--strict'], async (url) => {
    const statuses = await Promise.all(['A', 'B', 'C', 'D'].map(async (w) => (await fetch(`${url}${DELETE.replace('W1', w)}`, { method: 'DELETE', headers })).status));
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
  });
  expect(retryAfter(together)?.failed ?? 0).toBe(0);
  const soon = await session(['--inject', '429@1', '--strict'], async (url) => {
    expect((await fetch(`${url}${DELETE}`, { method: 'DELETE', headers })).status).toBe(429);
    await new Promise((r) => setTimeout(r, 1200));
    expect((await fetch(`${url}${DELETE}`, { method: 'DELETE', headers })).status).toBe(404);
  });
  expect(retryAfter(soon)).toMatchObject({ failed: 1 });
  expect(soon.violations.find((v) => v.check === 'client.retry-after')?.received).toMatch(/^request 2 came 0\.[0-9]+ s early$/);
});

test('the same connection at once after a 429 is caught; waiting exactly the Retry-After passes, on the same connection or another', async () => {
  const early = await session(['--inject', '429@1', '--strict'], async (url) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await del(url, agent)).toBe(429);
      // Sent as soon as the answer is read, on the connection that carried it: the client had seen it.
      expect(await del(url, agent)).toBe(404);
    } finally {
      agent.destroy();
    }
  });
  expect(retryAfter(early)).toMatchObject({ failed: 1 });
  expect(early.violations.find((v) => v.check === 'client.retry-after')?.received).toMatch(/^request 2 came [0-9.]+ s early$/);
  expect(early.verdict).toBe('not conformant');

  const patient = await session(['--inject', '429@1,429@2', '--strict'], async (url) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await del(url, agent)).toBe(429);
      // Retry-After: 2, waited to the millisecond by the client's own timer.
      await new Promise((r) => setTimeout(r, 2000));
      expect(await del(url, agent)).toBe(429);
      await new Promise((r) => setTimeout(r, 2000));
      expect(await del(url, false)).toBe(404);
    } finally {
      agent.destroy();
    }
  });
  expect(retryAfter(patient)).toMatchObject({ passed: 2, failed: 0 });
});

/** A session driven by hand with a clock of its own: arrival stamps are what the test says. */
function clockedSession(rate: string, inject: string[] = []) {
  const realNow = Date.now;
  let clock = realNow();
  Date.now = () => clock;
  const session = new SandboxSession({ key: KEY, keyHeader: 'ocp-apim-subscription-key', xmlArrays: 'unwrapped', strict: true, inject: parseInjections(inject), rateLimit: parseRateLimit(rate), retryAfterSeconds: 2, slowMs: 10 });
  const socket = {};
  const send = async (at: number): Promise<number> => {
    clock = at;
    const req = { method: 'DELETE', url: DELETE, headers: { 'ocp-apim-subscription-key': KEY }, socket } as unknown as IncomingMessage;
    session.received(req);
    const trouble = await session.before(req, { kind: 'ok', bytes: Buffer.alloc(0) });
    await new Promise((r) => setImmediate(r));
    const reply: Reply = trouble ?? { status: 404, body: { kind: 'json', text: '{}' }, headers: {} };
    session.after(req, reply);
    session.finished(req);
    return reply.status;
  };
  return { session, send, start: clock, restore: () => (Date.now = realNow) };
}

test('a client that keeps exactly to 10/min is never over it, however late the sandbox stamps its requests; one past the limit is', async () => {
  const edge = clockedSession('10/min');
  try {
    // One request every 6.0 s; the sandbox stamps them 145 to 560 ms late (the first the latest, the 11th the least).
    const lateness = [560, 300, 145, 420, 200, 510, 160, 330, 250, 480, 145, 300];
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) statuses.push(await edge.send(edge.start + i * 6000 + (lateness[i] ?? 0)));
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    expect(edge.session.findings.violations.filter((v) => v.check === 'client.rate-limit')).toEqual([]);
  } finally {
    edge.restore();
  }
  const over = clockedSession('10/min');
  try {
    // Eleven requests in 55 s: the 11th is over the limit whatever the tolerance.
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push(await over.send(over.start + i * 5500));
    expect(statuses[10]).toBe(429);
    const found = over.session.findings.violations.filter((v) => v.check === 'client.rate-limit');
    expect(found.map((v) => v.received)).toEqual(['request 11 is request 11 within 59.0 s']);
    expect(found[0]?.expected).toBe('at most 10/min (RFC 6585 §4; tolerance 1.0 s)');
  } finally {
    over.restore();
  }
});

test('an outage: every request within its duration from the N-th gets the trouble, a numbered one in it keeps its own; a run of M takes M requests', () => {
  const outage = new TroubleSchedule(parseInjections(['503@2for60s', '429@4']));
  const t0 = 1_000_000;
  expect([1, 2, 3, 4, 5].map((n) => outage.troubleOf(n, t0 + (n - 1) * 10_000))).toEqual([undefined, '503', '503', '429', '503']);
  // 60 s after request 2 arrived, the outage is over.
  expect(outage.troubleOf(6, t0 + 10_000 + 60_000)).toBeUndefined();
  const run = new TroubleSchedule(parseInjections(['503@4x10']));
  expect(Array.from({ length: 15 }, (_, i) => run.troubleOf(i + 1, t0))).toEqual([undefined, undefined, undefined, ...Array<string>(10).fill('503'), undefined, undefined]);
});
