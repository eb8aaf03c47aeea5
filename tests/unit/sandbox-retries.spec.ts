import type { IncomingMessage } from 'node:http';
import { expect, _baseTest as test } from '@playwright/test';
import { SandboxSession } from '../../lib/sandbox/session.ts';
import { parseInjections } from '../../lib/sandbox/trouble.ts';
import type { Reply } from '../../server/index.ts';

/**
 * A request is a retry only if it was sent after the answer that told it to wait: two identical requests
 * sent at once on two connections are read one after the other within one turn of the sandbox's event
 * loop, the second stamped after the first's 429 was written when the loop is busy. Neither is judged
 * against the other's Retry-After; a retry sent once the client could read the 429 still is.
 */

const KEY = 'retries-unit-key-7f6e5d4c';
const RUN = JSON.stringify({ agentVersion: '1.0', agencyCode: '128', runId: '' });

function clockedSession(inject: string) {
  const realNow = Date.now;
  let clock = realNow();
  Date.now = () => clock;
  const session = new SandboxSession({ key: KEY, keyHeader: 'ocp-apim-subscription-key', xmlArrays: 'unwrapped', strict: true, inject: parseInjections([inject]), rateLimit: null, retryAfterSeconds: 2, slowMs: 10 });
  const request = () => ({ method: 'POST', url: '/agent/run', headers: { 'ocp-apim-subscription-key': KEY, 'content-type': 'application/json' }, socket: {} }) as unknown as IncomingMessage;
  const arrive = (req: IncomingMessage, at: number): Reply | null | undefined => {
    clock = at;
    session.received(req);
    return session.before(req, { kind: 'ok', bytes: Buffer.from(RUN) }) as Reply | null | undefined;
  };
  const answer = (req: IncomingMessage, reply: Reply | undefined | null, at: number): void => {
    clock = at;
    session.after(req, reply ?? { status: 200, body: { kind: 'json', text: '{"runId":"r1"}' }, headers: { 'Content-Type': 'application/json' } });
    session.finished(req);
  };
  const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
  const early = () => session.findings.violations.filter((v) => v.check === 'client.retry-after');
  return { session, request, arrive, answer, turn, early, start: clock, restore: () => (Date.now = realNow) };
}

test('two identical run starts sent at once: the one read after the other\'s 429, in the same turn and stamped later, is not judged a retry', async () => {
  const s = clockedSession('429@1');
  try {
    const [first, second] = [s.request(), s.request()];
    // The loop reads the second connection first: answered 429 at once.
    const trouble = s.arrive(second, s.start);
    expect(trouble?.status).toBe(429);
    s.answer(second, trouble, s.start + 1);
    // Then the first, read in the same turn but stamped 5 ms after the 429 was written (a busy loop).
    expect(s.arrive(first, s.start + 6)).toBeUndefined();
    s.answer(first, undefined, s.start + 20);
    await s.turn();
    expect(s.early()).toEqual([]);
  } finally {
    s.restore();
  }
});

test('the same request sent once the client could read the 429 is a retry: too early is still caught, after the delay it passes', async () => {
  const s = clockedSession('429@1');
  try {
    const told = s.request();
    const trouble = s.arrive(told, s.start);
    s.answer(told, trouble, s.start + 1);
    await s.turn();
    // A later turn: sent after the answer; 0.5 s into a 2 s Retry-After.
    const retry = s.request();
    expect(s.arrive(retry, s.start + 500)).toBeUndefined();
    s.answer(retry, undefined, s.start + 510);
    await s.turn();
    expect(s.early().map((v) => v.received)).toEqual([expect.stringMatching(/^request 2 \(request 1 again\) came 1\.[0-9]+ s early$/)]);
  } finally {
    s.restore();
  }
  const patient = clockedSession('429@1');
  try {
    const told = patient.request();
    patient.answer(told, patient.arrive(told, patient.start), patient.start + 1);
    await patient.turn();
    const retry = patient.request();
    expect(patient.arrive(retry, patient.start + 2100)).toBeUndefined();
    patient.answer(retry, undefined, patient.start + 2110);
    await patient.turn();
    expect(patient.early()).toEqual([]);
  } finally {
    patient.restore();
  }
});
