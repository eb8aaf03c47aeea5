import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { compareAnswers, learnNoise } from '../../lib/check/compat/compare.ts';
import { answerFacts } from '../../lib/check/compat/facts.ts';
import { parseAgencyKeys } from '../../lib/compat/keys.ts';
import { planReplay } from '../../lib/compat/plan.ts';
import type { UnitResult } from '../../lib/compat/replay.ts';
import { buildCompatReport } from '../../lib/compat/report.ts';
import type { Halt } from '../../lib/compat/replay.ts';
import { clientWaitOf, clientWaits } from '../../lib/compat/waits.ts';
import type { Exchange } from '../../lib/contract/exchange.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { CompatReport } from '../../lib/report/compat/model.ts';
import { readHar } from '../../lib/traffic/har.ts';
import { readTrafficLog } from '../../lib/traffic/jsonl.ts';
import type { TrafficExchange, TrafficSession } from '../../lib/traffic/model.ts';
import { TrafficError } from '../../lib/traffic/model.ts';
import { cliInProcess } from '../support/cli.ts';

/**
 * What the agencies' clients meet, judged as they meet it (issue 39): how long they wait, the names they
 * read, the label they dispatch on, the format they asked for, a byte order mark, the key each agency
 * acts with, and inputs that cannot be judged. In process: the comparison and the report without a
 * server, one replay against a stand-in build whose key acts for one agency each.
 */

const PROFILE = fromRoot('fixtures/targets/sandbox-client.json');
const profile = loadProfile(PROFILE);
const RECORDED_RUN = '8fe38974-1c2d-4e5f-9a0b-1234567890ab';

function start(agency: string, durationMs: number | undefined): TrafficExchange {
  return {
    seq: 1,
    at: null,
    agency,
    request: { method: 'POST', target: '/agent/run', headers: { 'content-type': 'application/json', 'ocp-apim-subscription-key': '<redacted>' }, body: Buffer.from(`{"agentVersion":"a 1.0","agencyCode":"${agency}","overallSent":0}`) },
    response: { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from(`{"runId":"${RECORDED_RUN}"}`) },
    error: null,
    trouble: null,
    where: 'log:1',
    ...(durationMs !== undefined ? { durationMs } : {}),
  };
}

const sessionOf = (agency: string, exchanges: TrafficExchange[]): TrafficSession => ({ file: `${agency}.jsonl`, id: `${agency}.jsonl`, source: 'gateway-log', agency, meta: {}, exchanges });

/** The build's answer to the replayed run start, after `durationMs`. */
function answered(durationMs: number): Exchange {
  return {
    request: { method: 'POST', url: 'http://build/agent/run', headers: {}, body: '', bodyBytes: 0, bodyTruncated: false, auth: 'key' },
    response: { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"runId":"0b1c2d3e-4f50-4a6b-8c7d-e9f0a1b2c3d4"}', bodyBytes: 49, truncated: false },
    durationMs,
    attempts: 1,
    waitedMs: 0,
  };
}

function reportOf(session: TrafficSession, durationMs: number, halt?: Halt): CompatReport {
  const plan = planReplay([session], { profile, destructive: false });
  const unit = plan.units[0];
  if (!unit) throw new Error('no unit planned');
  const sent = answered(durationMs);
  const recorded = answerFacts({ status: 200, headers: session.exchanges[0]?.response?.headers ?? {}, body: session.exchanges[0]?.response?.body ?? Buffer.alloc(0) });
  const replayed = answerFacts({ status: 200, headers: sent.response?.headers ?? {}, body: sent.response?.body ?? '' });
  const noise = learnNoise(answerFacts({ status: 200, headers: {}, body: `{"runId":"${randomUUID()}"}` }), answerFacts({ status: 200, headers: {}, body: `{"runId":"${randomUUID()}"}` })).noise;
  const result: UnitResult = { unit, recorded, replayed, sent, comparison: compareAnswers({ recorded, replayed, noise, documentFailures: [], actsForOther: undefined }), documentFailures: [], noise: [], unstable: [] };
  return buildCompatReport({
    plan,
    run: { results: [result], figures: { planned: 1, sent: 1, retried: 0, answered: 1, waitedMs: 0 }, baseUrl: 'http://build', ...(halt ? { halt } : {}) },
    profile,
    embedded: false,
    startedAt: new Date(),
    finishedAt: new Date(),
    settings: { destructive: false, strict: false, rate: null, budget: null, maxDuration: null },
    waits: clientWaits([session], { ms: 30_000, source: '--client-timeout 30s' }),
  });
}

test('waits: an answer later than recorded but within the client\'s wait is compatible with a finding; past the wait, broken; the wait read from a client that gave up', () => {
  const session = sessionOf('128', [start('128', 200)]);
  const late = reportOf(session, 11_000);
  const e = late.exchanges[0];
  expect(e?.verdict).toBe('compatible');
  expect(e?.findings).toEqual([expect.stringMatching(/^slower: answered after 11 s where the client met its answer after 0\.2 s; within the 30 s its client waits \(--client-timeout 30s\)$/)]);
  expect(late.outcome).toMatchObject({ verdict: 'compatible', exitCode: 0 });
  // Answered as fast as recorded: nothing to say.
  expect(reportOf(session, 250).exchanges[0]?.findings).toBeUndefined();
  // Past the client's wait, the client meets no answer.
  const past = reportOf(session, 31_000);
  expect(past.exchanges[0]?.verdict).toBe('broken');
  expect(past.exchanges[0]?.reasons[0]).toMatch(/^answered after 31 s, past the 30 s its client waits \(--client-timeout 30s\): the client meets no answer$/);
  expect(past.outcome.exitCode).toBe(1);
  // A client recorded giving up after 20 s waits 20 s, whatever clients wait by default; one that met a 40 s answer waits at least that.
  const gaveUp: TrafficExchange = { ...start('128', 20_000), seq: 2, response: null, error: 'timeout' };
  expect(clientWaitOf(sessionOf('128', [start('128', 200), gaveUp]), { ms: 30_000, source: 'default' })).toEqual({ ms: 20_000, source: 'the recording: the client gave up after 20 s' });
  expect(clientWaitOf(sessionOf('128', [start('128', 40_000)]), { ms: 30_000, source: 'default' }).ms).toBe(40_000);
  const impatient = reportOf(sessionOf('128', [start('128', 200), gaveUp]), 21_000);
  expect(impatient.exchanges.find((x) => x.judgedBy === x.id && x.replayed)?.verdict).toBe('broken');
});

const xml = (body: string) => answerFacts({ status: 200, headers: { 'content-type': 'application/xml; charset=utf-8' }, body });
const json = (body: unknown, type = 'application/json; charset=utf-8') => answerFacts({ status: 200, headers: { 'content-type': type }, body: JSON.stringify(body) });
const none = { documentFailures: [], actsForOther: undefined };

test('names, labels, formats: a namespaced runId, JSON labelled text/plain and JSON to an Accept: application/xml client are broken; a prefix of the same namespace is a change', () => {
  const recorded = xml('<CsnNotification><runId>r-1</runId></CsnNotification>');
  const noise = learnNoise(xml('<CsnNotification><runId>b-1</runId></CsnNotification>'), xml('<CsnNotification><runId>b-2</runId></CsnNotification>')).noise;
  const prefixed = compareAnswers({ recorded, replayed: xml('<CsnNotification xmlns:a="urn:iswc"><a:runId>r-2</a:runId></CsnNotification>'), noise, ...none });
  expect(prefixed.verdict).toBe('broken');
  expect(prefixed.reasons[0]).toBe('an element is named otherwise: /CsnNotification/runId was runId (no prefix, no namespace), now a:runId {urn:iswc}: a client that reads it by name finds another element');
  // A default namespace on the root puts every element in it.
  expect(compareAnswers({ recorded, replayed: xml('<CsnNotification xmlns="urn:iswc"><runId>r-3</runId></CsnNotification>'), noise, ...none }).verdict).toBe('broken');
  // The same namespace under another prefix: a namespace-aware client reads the same element: changed, not broken.
  const before = xml('<x:CsnNotification xmlns:x="urn:iswc"><x:runId>r-1</x:runId></x:CsnNotification>');
  expect(compareAnswers({ recorded: before, replayed: xml('<y:CsnNotification xmlns:y="urn:iswc"><y:runId>r-4</y:runId></y:CsnNotification>'), noise: new Map([['text /CsnNotification/runId', 'value']]), ...none }).verdict).toBe('changed');
  // The label: JSON that stops being labelled JSON.
  const run = json({ runId: 'r-1' });
  const jsonNoise = learnNoise(json({ runId: 'b-1' }), json({ runId: 'b-2' })).noise;
  const plain = compareAnswers({ recorded: run, replayed: json({ runId: 'r-5' }, 'text/plain; charset=utf-8'), noise: jsonNoise, ...none });
  expect(plain.verdict).toBe('broken');
  expect(plain.reasons[0]).toMatch(/^the Content-Type no longer names the body's format: JSON labelled text\/plain where the client met application\/json/);
  expect(compareAnswers({ recorded: run, replayed: json({ runId: 'r-6' }, 'text/json'), noise: jsonNoise, ...none }).verdict).toBe('changed');
  // The format: a client that asked for XML and gets JSON.
  const asked = compareAnswers({ recorded, replayed: json({ runId: 'r-7' }), noise, ...none, accept: 'application/xml' });
  expect(asked.verdict).toBe('broken');
  expect(asked.reasons[0]).toBe('an answer in a format the client did not ask for: JSON to a request with Accept: application/xml');
  // Without Accept, or accepting either, another format is a change.
  expect(compareAnswers({ recorded, replayed: json({ runId: 'r-8' }), noise, ...none }).verdict).toBe('changed');
  expect(compareAnswers({ recorded, replayed: json({ runId: 'r-9' }), noise, ...none, accept: 'application/xml, application/json;q=0.5' }).verdict).toBe('changed');
  expect(compareAnswers({ recorded, replayed: json({ runId: 'r-10' }), noise, ...none, accept: '*/*' }).verdict).toBe('changed');
});

test('bad inputs: a gateway log naming its session on each line is read; a HAR of another API is refused; a build found unusable judges nothing', () => {
  const line = (session: string, agency: string) => JSON.stringify({ session, agency, method: 'POST', url: '/agent/run', requestBody: `{"agencyCode":"${agency}"}`, status: 200, responseBody: '{"runId":"x"}', durationMs: 12 });
  const sessions = readTrafficLog('apim.jsonl', [line('day-1', '128'), line('day-2', '058'), line('day-1', '128')].join('\n'));
  expect(sessions.map((s) => [s.id, s.agency, s.exchanges.length, s.exchanges[0]?.durationMs])).toEqual([
    ['apim.jsonl · day-1 · 128', '128', 2, 12],
    ['apim.jsonl · day-2 · 058', '058', 1, 12],
  ]);
  const github = JSON.stringify({ log: { entries: [{ startedDateTime: '2026-01-01T00:00:00Z', time: 80, request: { method: 'GET', url: 'https://api.github.com/repos/a/b', headers: [] }, response: { status: 200, headers: [], content: { text: '{}' } } }] } });
  expect(() => readHar('portal.har', github, '.')).toThrow(TrafficError);
  expect(() => readHar('portal.har', github, '.')).toThrow(/no entry on a documented path of the ISWC API .*\(api\.github\.com\); record the HAR while the client talks to the ISWC Agency API/);
  // A stop as unusable (a wrong key): what was answered before the stop is shown, not judged.
  const stopped = reportOf(sessionOf('128', [start('128', 200)]), 31_000, { kind: 'target-unusable', reason: 'the target refused the key on every request' });
  expect(stopped.outcome).toMatchObject({ verdict: 'unusable', exitCode: 3 });
  expect(stopped.exchanges.map((x) => x.verdict)).toEqual(['skipped']);
  expect(stopped.exchanges[0]?.reasons).toEqual(['not judged: the build was found unusable (the target refused the key on every request): nothing is judged', 'as answered before the stop: broken']);
  expect(stopped.agencies.map((a) => a.verdict)).toEqual(['skipped']);
});

test('per-agency keys: a file of keys reads JSON or lines, never says a key in its messages', () => {
  expect([...parseAgencyKeys('{"058": "key-of-sacem-0001"}', 'keys.json')]).toEqual([['058', 'key-of-sacem-0001']]);
  expect([...parseAgencyKeys('# keys\n058=key-of-sacem-0001\n021: "key-of-bmi-00002"\n', 'keys.env')]).toEqual([
    ['058', 'key-of-sacem-0001'],
    ['021', 'key-of-bmi-00002'],
  ]);
  expect(() => parseAgencyKeys('058=short', 'keys.env')).toThrow(/keys\.env \(line 1\): the key of agency 058 has fewer than 8 characters/);
  expect(() => parseAgencyKeys('sacem=key-of-sacem-0001', 'keys.env')).toThrow(/"sacem" is not an agency code/);
  try {
    parseAgencyKeys('058=key-of-sacem-0001\n058=key-of-sacem-0002', 'keys.env');
  } catch (e) {
    expect((e as Error).message).not.toContain('key-of-sacem');
  }
});

test('per-agency keys: against a build whose keys act for one agency each, an agency without its key is not judged (exit 3); with it, judged, its key written nowhere', async () => {
  const KEY_128 = 'build-key-of-agency-128-a1';
  const KEY_058 = 'build-key-of-agency-058-b2';
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const agency = /"agencyCode":"(\w+)"/.exec(body)?.[1];
      const key = req.headers['ocp-apim-subscription-key'];
      const ok = req.method === 'POST' && req.url === '/agent/run' && ((agency === '128' && key === KEY_128) || (agency === '058' && key === KEY_058));
      if (!ok) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ runId: randomUUID() }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-compat-keys-'));
  try {
    mkdirSync(path.join(dir, 'sessions'));
    const line = (agency: string) => JSON.stringify({ session: `day-${agency}`, agency, method: 'POST', url: 'https://api.example/agent/run', requestHeaders: { 'Content-Type': 'application/json', 'Ocp-Apim-Subscription-Key': '<redacted>' }, requestBody: `{"agentVersion":"a 1.0","agencyCode":"${agency}","overallSent":0}`, status: 200, responseHeaders: { 'Content-Type': 'application/json; charset=utf-8' }, responseBody: `{"runId":"${RECORDED_RUN}"}`, durationMs: 30 });
    writeFileSync(path.join(dir, 'sessions', 'apim.jsonl'), `${line('128')}\n${line('058')}\n`);
    const replay = async (name: string, env: NodeJS.ProcessEnv) => {
      const out = path.join(dir, name);
      const r = await cliInProcess(['compat', '--sessions', 'sessions', '--base-url', url, '--target', PROFILE, '--report-dir', out], { env: { ISWC_SUBSCRIPTION_KEY: KEY_128, ...env }, cwd: dir });
      const files = readdirSync(out).map((f) => readFileSync(path.join(out, f), 'utf8'));
      return { ...r, files, report: JSON.parse(readFileSync(path.join(out, 'compat.json'), 'utf8')) as CompatReport };
    };
    const without = await replay('without', {});
    expect(Object.fromEntries(without.report.agencies.map((a) => [a.agency, a.verdict])), without.out).toEqual({ '058': 'skipped', '128': 'compatible' });
    expect(without.code, without.out).toBe(3);
    expect(without.out).toContain('agency 058: not judged');
    expect(without.report.outcome.text).toMatch(/^no agency broken, but 1 of 2 agencies not judged \(058\)/);
    const withKey = await replay('with', { ISWC_SUBSCRIPTION_KEY_058: KEY_058 });
    expect(Object.fromEntries(withKey.report.agencies.map((a) => [a.agency, a.verdict])), withKey.out).toEqual({ '058': 'compatible', '128': 'compatible' });
    expect(withKey.code, withKey.out).toBe(0);
    expect(withKey.out).toContain('keys of their own for agencies 058 (ISWC_SUBSCRIPTION_KEY_058; never shown)');
    for (const text of [withKey.out, ...withKey.files]) expect(text).not.toContain(KEY_058);
    // A keys file under --sessions is refused before anything is sent.
    writeFileSync(path.join(dir, 'sessions', 'keys.env'), `058=${KEY_058}\n`);
    const inside = await cliInProcess(['compat', '--sessions', 'sessions', '--base-url', url, '--target', PROFILE, '--agency-keys', 'sessions/keys.env', '--plan'], { env: { ISWC_SUBSCRIPTION_KEY: KEY_128 }, cwd: dir });
    expect(inside.code).toBe(2);
    expect(inside.out).toMatch(/the keys file is under --sessions/);
    expect(inside.out).not.toContain(KEY_058);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
});
