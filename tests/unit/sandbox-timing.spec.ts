import { request as httpRequest, Agent } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import type { ClientReport } from '../../lib/report/client/model.ts';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { startSandbox } from '../../lib/sandbox/run.ts';
import { SandboxSession } from '../../lib/sandbox/session.ts';
import type { Reply } from '../../server/index.ts';
import { TroubleSchedule, parseInjections, parseRateLimit } from '../../lib/sandbox/trouble.ts';

/**
 * The timing judgements never raise a false alarm for a client at the edge, and never let a client that
 * ignores Retry-After through. A retry is the same request again (method, target, body): it is judged
 * against the Retry-After of the answer that told that request to wait, whatever connection carries it
 * (a new connection for each request, or any connection of a pool), and a different request never is.
 * A client that waits exactly the delay passes; a client that keeps exactly to a rate limit is not over it
 * when the sandbox stamps its requests late. Each edge comes with the fault just past it, still caught.
 */

const KEY = 'timing-unit-key-5e4d3c2b1a';
const DELETE = '/submission?preferredIswc=T9999999994&agency=128&workcode=W1&sourceDb=128&reasonCode=EdiV1';
const DEMERGE = '/iswc/merge?preferredIswc=T9999999994&agency=128&workcode=W1';
const MERGE = '/iswc/merge?preferredIswc=T9999999994&agency=128';

interface Sent {
  method?: 'DELETE' | 'POST';
  path?: string;
  body?: string;
}

/** One request over `agent` (false: a connection of its own); resolves with the status once the answer is read. */
function send(url: string, agent: Agent | false, { method = 'DELETE', path: target = DELETE, body }: Sent = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'Ocp-Apim-Subscription-Key': KEY, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) };
    const req = httpRequest(`${url}${target}`, { method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const del = (url: string, agent: Agent | false): Promise<number> => send(url, agent);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function session(args: string[], drive: (url: string) => Promise<void>, operations = 'delete'): Promise<ClientReport> {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-timing-'));
  try {
    const parsed = parseSandboxArgs(['--port', '0', '--report-dir', dir, '--operations', operations, ...args], { ISWC_SANDBOX_KEY: KEY });
    if (parsed.kind !== 'run') throw new Error(`bad arguments: ${JSON.stringify(parsed)}`);
    const running = await startSandbox(parsed.options);
    await drive(running.url);
    return (await running.stop()).report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const retryAfter = (report: ClientReport) => report.checks.exercised.find((c) => c.id === 'client.retry-after');
const early = (report: ClientReport) => report.violations.filter((v) => v.check === 'client.retry-after').map((v) => v.received);

test('requests of their own sent together with the one that gets a 429 are never judged against its Retry-After', async () => {
  const report = await session(['--inject', '429@1', '--strict'], async (url) => {
    // Three different requests at once, each on a connection of its own, as a client with a pool sends them.
    const statuses = await Promise.all(['A', 'B', 'C'].map((w) => send(url, false, { path: DELETE.replace('W1', w) })));
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
  });
  expect(retryAfter(report)).toBeUndefined();
  expect(early(report)).toEqual([]);
});

test('a new connection for each request (curl, urllib, requests without a session): a retry at once, or after 0.5 s, of a request told to wait 2 s is caught; after 2 s it passes', async () => {
  for (const waitMs of [0, 500]) {
    const report = await session(['--inject', '429@1', '--strict'], async (url) => {
      expect(await del(url, false)).toBe(429);
      await sleep(waitMs);
      expect(await del(url, false)).toBe(404);
    });
    expect(retryAfter(report), `retry after ${waitMs} ms`).toMatchObject({ failed: 1 });
    expect(early(report)[0]).toMatch(/^request 2 \(request 1 again\) came [0-9.]+ s early$/);
    expect(report.violations.filter((v) => v.gating).map((v) => v.check)).toEqual(['client.retry-after']);
  }
  const patient = await session(['--inject', '429@1', '--strict'], async (url) => {
    expect(await del(url, false)).toBe(429);
    await sleep(2000);
    expect(await del(url, false)).toBe(404);
  });
  expect(retryAfter(patient)).toMatchObject({ passed: 1, failed: 0 });
  expect(patient.checks.gatingFailures).toBe(0);
});

test('with fetch (its pool takes another connection for the next request): four requests at once are not judged; the same request 1.2 s after the 429 is caught', async () => {
  const headers = { 'Ocp-Apim-Subscription-Key': KEY };
  const together = await session(['--inject', '429@1', '--strict'], async (url) => {
    const statuses = await Promise.all(['A', 'B', 'C', 'D'].map(async (w) => (await fetch(`${url}${DELETE.replace('W1', w)}`, { method: 'DELETE', headers })).status));
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
  });
  expect(retryAfter(together)).toBeUndefined();
  const soon = await session(['--inject', '429@1', '--strict'], async (url) => {
    expect((await fetch(`${url}${DELETE}`, { method: 'DELETE', headers })).status).toBe(429);
    await sleep(1200);
    expect((await fetch(`${url}${DELETE}`, { method: 'DELETE', headers })).status).toBe(404);
  });
  expect(retryAfter(soon)).toMatchObject({ failed: 1 });
  expect(early(soon)[0]).toMatch(/^request 2 \(request 1 again\) came 0\.[0-9]+ s early$/);
});

test('concurrent operations on one pool, each waiting its own Retry-After, are never judged against another\'s, whichever connection carries the retry', async () => {
  // Merge, demerge and delete at once over a pool of two connections, each answered 503 with Retry-After: 2;
  // each retries 2 s after its own answer, on whichever connection is free (one that just carried another's 503).
  const merge: Sent = { method: 'POST', path: MERGE, body: JSON.stringify({ iswcs: ['T0345246801'] }) };
  const demerge: Sent = { path: DEMERGE };
  const remove: Sent = { path: DELETE };
  const together = await session(
    ['--inject', '503@1x3', '--strict'],
    async (url) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 2 });
      try {
        await Promise.all(
          [merge, demerge, remove].map(async (r) => {
            expect(await send(url, agent, r)).toBe(503);
            await sleep(2000);
            expect(await send(url, agent, r)).not.toBe(503);
          }),
        );
      } finally {
        agent.destroy();
      }
    },
    'merge,demerge,delete',
  );
  expect(retryAfter(together)).toMatchObject({ passed: 3, failed: 0 });
  expect(early(together)).toEqual([]);

  // One connection: the delete's retry comes on the connection that carried the demerge's 503 a second
  // before it (a Retry-After with a second still to run); the delete waited its own, and passes.
  const staggered = await session(
    ['--inject', '503@1,503@2', '--strict'],
    async (url) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const deleting = (async () => {
          expect(await send(url, agent, remove)).toBe(503);
          await sleep(2000);
          expect(await send(url, agent, remove)).toBe(404);
        })();
        await sleep(1000);
        expect(await send(url, agent, demerge)).toBe(503);
        await deleting;
        await sleep(1100);
        expect(await send(url, agent, demerge)).not.toBe(503);
      } finally {
        agent.destroy();
      }
    },
    'delete,demerge',
  );
  expect(retryAfter(staggered)).toMatchObject({ passed: 2, failed: 0 });
});

test('a mistake on a pooled connection is caught, on the answer\'s own connection or on another already open; waiting exactly the Retry-After passes, on either', async () => {
  const same = await session(['--inject', '429@1', '--strict'], async (url) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await del(url, agent)).toBe(429);
      // Sent as soon as the answer is read, on the connection that carried it.
      expect(await del(url, agent)).toBe(404);
    } finally {
      agent.destroy();
    }
  });
  expect(retryAfter(same)).toMatchObject({ failed: 1 });
  expect(early(same)[0]).toMatch(/^request 2 \(request 1 again\) came [0-9.]+ s early$/);
  expect(same.checks.gatingFailures).toBe(1);

  const other = await session(['--inject', '429@2', '--strict'], async (url) => {
    const a = new Agent({ keepAlive: true, maxSockets: 1 });
    const b = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // B's connection is open (it carried another request) before the 429 is written on A's.
      expect(await send(url, b, { path: DELETE.replace('W1', 'W9') })).toBe(404);
      expect(await del(url, a)).toBe(429);
      expect(await del(url, b)).toBe(404);
    } finally {
      a.destroy();
      b.destroy();
    }
  });
  expect(retryAfter(other)).toMatchObject({ failed: 1 });
  expect(early(other)[0]).toMatch(/^request 3 \(request 2 again\) came [0-9.]+ s early$/);

  const patient = await session(['--inject', '429@1,429@2', '--strict'], async (url) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await del(url, agent)).toBe(429);
      // Retry-After: 2, waited to the millisecond by the client's own timer.
      await sleep(2000);
      expect(await del(url, agent)).toBe(429);
      await sleep(2000);
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
