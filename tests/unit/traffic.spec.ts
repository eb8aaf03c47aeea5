import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { isPlaceholder } from '../../lib/traffic/credentials.ts';
import { readHar } from '../../lib/traffic/har.ts';
import { readTrafficLog, trafficLineProblems } from '../../lib/traffic/jsonl.ts';
import { keyModeOf } from '../../lib/traffic/key.ts';
import { loadSessions } from '../../lib/traffic/load.ts';
import { TrafficError } from '../../lib/traffic/model.ts';
import { jsonLines, recordAgencyDay, THREE_AGENCIES } from '../support/agency-sessions.ts';
import { cliInProcess } from '../support/cli.ts';

/**
 * Recorded traffic: the sandbox writes every exchange of a session (the key never in clear), and compat
 * reads that format, HAR files and gateway logs, refusing any input that holds a credential in clear with
 * the file, where in it, and what to do.
 */

const KEY = 'traffic-key-5b2e9a71';
let dir = '';

test.beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-traffic-'));
});
test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const line = (o: unknown): string => `${JSON.stringify(o)}\n`;

test('the sandbox records every exchange of a session, its key as $ISWC_SANDBOX_KEY, and the file follows schemas/traffic-log.schema.json', async () => {
  const file = await recordAgencyDay(path.join(dir, 'sandbox'), THREE_AGENCIES['058'] ?? { profile: '', format: 'xml' }, KEY);
  const text = readFileSync(file, 'utf8');
  expect(text).not.toContain(KEY);
  const lines = jsonLines(file);
  expect(lines[0]).toMatchObject({ session: { format: 'iswc-traffic-log', version: 1, agency: '058', choices: 'production', keyPlaceholder: '$ISWC_SANDBOX_KEY' } });
  expect(lines.slice(1).map((l) => `${String(l.method)} ${String(l.url).split('?')[0]} ${String(l.status)}`)).toEqual(['POST /agent/run 200', 'POST /iswc/merge 204', 'DELETE /iswc/merge 204', 'DELETE /submission 204', 'POST /agent/run 200']);
  for (const l of lines) expect(trafficLineProblems(l)).toEqual([]);
  expect(lines[1]).toMatchObject({ requestHeaders: { 'ocp-apim-subscription-key': '$ISWC_SANDBOX_KEY', 'content-type': 'application/xml' }, responseHeaders: { 'content-type': 'application/xml; charset=utf-8' } });
  expect(String(lines[1]?.responseBody)).toMatch(/^<\?xml[^>]*\?><CsnNotification><runId>[0-9a-f-]{36}<\/runId><\/CsnNotification>$/);
  // Read back as one session of agency 058, every request keyed with the right key.
  const [session] = readTrafficLog('s.jsonl', text);
  expect(session?.source).toBe('sandbox');
  expect(session?.agency).toBe('058');
  expect(session?.exchanges.map((x) => keyModeOf(x, session))).toEqual(['key', 'key', 'key', 'key', 'key']);
});

test('a wrong, an empty and a missing key are recorded as such, never in clear', async () => {
  const { parseSandboxArgs } = await import('../../lib/sandbox/options.ts');
  const { startSandbox } = await import('../../lib/sandbox/run.ts');
  const out = path.join(dir, 'keys');
  const parsed = parseSandboxArgs(['--port', '0', '--report-dir', out], { ISWC_SANDBOX_KEY: KEY });
  if (parsed.kind !== 'run') throw new Error('bad arguments');
  const running = await startSandbox(parsed.options);
  const wrong = 'another-key-of-the-agency-77';
  const keyings: Array<Record<string, string>> = [{ 'Ocp-Apim-Subscription-Key': wrong }, { 'Ocp-Apim-Subscription-Key': '' }, {}, { 'Ocp-Apim-Subscription-Key': KEY, Authorization: `Bearer ${wrong}`, Cookie: `session=${wrong}` }];
  for (const headers of keyings) {
    await fetch(`${running.url}/agent/run?subscription-key=${wrong}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ agencyCode: '128', note: KEY }) });
  }
  await running.stop();
  const file = path.join(out, 'client-session.jsonl');
  const text = readFileSync(file, 'utf8');
  for (const secret of [KEY, wrong]) expect(text).not.toContain(secret);
  const [session] = readTrafficLog('k.jsonl', text);
  expect(session?.exchanges.map((x) => keyModeOf(x, session))).toEqual(['wrong', 'empty', 'none', 'key']);
  expect(session?.exchanges[3]?.request.headers).toMatchObject({ authorization: '<redacted>', cookie: '<redacted>' });
  expect(session?.exchanges[0]?.request.target).toContain('subscription-key=<redacted>');
});

test('a gateway log in JSON lines: sessions split by agency, the base path taken off, bodies in base64 read', () => {
  const text = [
    line({ time: '2026-01-05T10:00:00Z', agency: '021', method: 'POST', url: 'https://api.example.org/agency/v1/agent/run', requestHeaders: { 'Content-Type': 'application/json', 'Ocp-Apim-Subscription-Key': '<redacted>' }, requestBody: '{"agencyCode":"021"}', status: 200, responseHeaders: { 'Content-Type': 'application/json' }, responseBody: '{"runId":"r1"}' }),
    line({ time: '2026-01-05T10:00:01Z', agency: '058', method: 'DELETE', url: 'https://api.example.org/agency/v1/submission?preferredIswc=T1&agency=058', requestHeaders: { 'ocp-apim-subscription-key': '{{key}}' }, status: 404, responseHeaders: { 'content-type': 'text/plain' }, responseBody: Buffer.from('Not Found').toString('base64'), responseBodyEncoding: 'base64' }),
    line({ time: '2026-01-05T10:00:02Z', agency: '021', method: 'POST', url: '/agency/v1/agent/run', requestBody: '{"agencyCode":"021","runId":"r1"}', status: 200, responseBody: '{"runId":"r1"}' }),
    line({ method: 'POST', url: '/agent/run', error: 'reset' }),
  ].join('');
  const sessions = readTrafficLog('gateway.jsonl', text);
  expect(sessions.map((s) => [s.id, s.agency, s.source, s.exchanges.length])).toEqual([
    ['gateway.jsonl · 021', '021', 'gateway-log', 2],
    ['gateway.jsonl · 058', '058', 'gateway-log', 1],
    ['gateway.jsonl · no agency', 'unknown', 'gateway-log', 1],
  ]);
  expect(sessions[0]?.exchanges.map((x) => x.request.target)).toEqual(['/agent/run', '/agent/run']);
  expect(sessions[0]?.meta.basePath).toBe('/agency/v1');
  expect(sessions[1]?.exchanges[0]?.response?.body.toString('utf8')).toBe('Not Found');
  expect(sessions[2]?.exchanges[0]).toMatchObject({ response: null, error: 'reset' });
});

function har(entries: unknown[]): string {
  return JSON.stringify({ log: { version: '1.2', creator: { name: 'Playwright', version: '1.65.1' }, entries } });
}

const entry = (url: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  startedDateTime: '2026-01-05T10:00:00.000Z',
  request: { method: 'POST', url, headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'Ocp-Apim-Subscription-Key', value: '<redacted>' }, { name: ':authority', value: 'api' }], cookies: [], queryString: [], postData: { mimeType: 'application/json', text: '{"agencyCode":"128"}' } },
  response: { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }], cookies: [], content: { mimeType: 'application/json', text: '{"runId":"x"}' } },
  ...extra,
});

test('a HAR file as a browser writes it: the API host only, pseudo-headers left out, a body in a file beside it (Playwright)', () => {
  writeFileSync(path.join(dir, 'body.json'), '{"runId":"from-a-file"}');
  const text = har([
    entry('https://cdn.example.org/app.js'),
    entry('https://api.example.org/agent/run'),
    { ...entry('https://api.example.org/agent/run'), response: { status: 200, headers: [], cookies: [], content: { mimeType: 'application/json', _file: 'body.json' } } },
    { ...entry('https://api.example.org/agent/run'), response: { status: 0, headers: [], cookies: [], content: {}, _error: 'net::ERR_CONNECTION_RESET' } },
  ]);
  // The first entry on a documented path names the API's host; the page's own script is left out.
  const [session] = readHar('calls.har', text, dir);
  expect(session?.exchanges.length).toBe(3);
  expect(session?.agency).toBe('128');
  expect(session?.meta.recordedBy).toBe('Playwright 1.65.1');
  expect(session?.exchanges[0]?.request.headers).toEqual({ 'content-type': 'application/json', 'ocp-apim-subscription-key': '<redacted>' });
  expect(session?.exchanges[1]?.response?.body.toString('utf8')).toBe('{"runId":"from-a-file"}');
  expect(session?.exchanges[2]).toMatchObject({ response: null, error: 'net::ERR_CONNECTION_RESET' });
});

test('a key or a credential in clear is refused: the file, where, and what to do', () => {
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['HAR key header', () => readHar('a.har', har([entry('https://api/agent/run', { request: { method: 'POST', url: 'https://api/agent/run', headers: [{ name: 'Ocp-Apim-Subscription-Key', value: '0123456789abcdef0123456789abcdef' }] } })]), dir), /^a\.har \(log\.entries\[0\]\): a credential in clear: request header Ocp-Apim-Subscription-Key; nothing was read or sent: replace each such value with <redacted>.*jq/],
    ['HAR cookie list', () => readHar('b.har', har([{ ...entry('https://api/agent/run'), response: { status: 200, headers: [], cookies: [{ name: 'ARRAffinity', value: 'a1b2c3d4e5' }], content: {} } }]), dir), /^b\.har \(log\.entries\[0\]\): a credential in clear: response cookie ARRAffinity/],
    ['HAR Authorization', () => readHar('c.har', har([entry('https://api/agent/run', { request: { method: 'POST', url: 'https://api/agent/run', headers: [{ name: 'Authorization', value: 'Bearer eyJhbGciOi.x.y' }] } })]), dir), /request header Authorization/],
    ['HAR query key', () => readHar('d.har', har([entry('https://api/agent/run?subscription-key=0123456789abcdef')]), dir), /query parameter subscription-key/],
    ['log Set-Cookie', () => readTrafficLog('e.jsonl', line({ method: 'GET', url: '/agent/run', status: 405, responseHeaders: { 'Set-Cookie': 'ARRAffinity=abc123; Path=/; HttpOnly' } })), /^e\.jsonl \(line 1\): a credential in clear: response cookie ARRAffinity \(Set-Cookie header\); nothing was read or sent: export the log with each such value written as <redacted>/],
    ['log x-api-key', () => readTrafficLog('f.jsonl', line({ method: 'POST', url: '/agent/run', requestHeaders: { 'X-Api-Key': 'k-0123456789' }, status: 200 })), /^f\.jsonl \(line 1\): a credential in clear: request header X-Api-Key/],
    ['log cookie', () => readTrafficLog('g.jsonl', `\n${line({ method: 'POST', url: '/agent/run', requestHeaders: { Cookie: 'a=<redacted>; session=s3cr3t' }, status: 200 })}`), /^g\.jsonl \(line 2\): a credential in clear: request cookie session/],
  ];
  for (const [name, read, message] of cases) {
    let error: unknown;
    try {
      read();
    } catch (e) {
      error = e;
    }
    expect(error, name).toBeInstanceOf(TrafficError);
    expect((error as Error).message, name).toMatch(message);
  }
  // Placeholders of every usual form are no credential.
  for (const v of ['<redacted>', '$ISWC_SANDBOX_KEY', '${KEY}', '{{subscriptionKey}}', '***', 'xxxxxxxx', 'REDACTED', '[hidden]', '', 'Bearer <redacted>']) expect(isPlaceholder(v), v).toBe(true);
  for (const v of ['0123456789abcdef', 'Bearer eyJh.x.y', 'hunter2']) expect(isPlaceholder(v), v).toBe(false);
});

test('a line that is not JSON or breaks the format says where and points to the schema', () => {
  expect(() => readTrafficLog('h.jsonl', '{"method":"POST","url":"/agent/run","status":200}\nnot json\n')).toThrow(/^h\.jsonl \(line 2\): not JSON .*schemas\/traffic-log\.schema\.json/);
  expect(() => readTrafficLog('i.jsonl', line({ method: 'POST', url: '/agent/run', statuz: 200 }))).toThrow(/^i\.jsonl \(line 1\): not an exchange line: .*statuz/);
});

test('compat refuses a folder with a credential in clear before anything is sent, and one without sessions, in one line each (exit 2)', async () => {
  const bad = path.join(dir, 'bad');
  mkdirSync(bad, { recursive: true });
  writeFileSync(path.join(bad, 'calls.har'), har([entry('https://api/agent/run', { request: { method: 'POST', url: 'https://api/agent/run', headers: [{ name: 'ocp-apim-subscription-key', value: '0123456789abcdef0123456789abcdef' }] } })]));
  const refused = await cliInProcess(['compat', '--sessions', bad], { cwd: dir });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/^iswc-conformance compat: bad\/calls\.har \(log\.entries\[0\]\): a credential in clear: request header ocp-apim-subscription-key; nothing was read or sent: .*; see npx iswc-conformance compat --help\n$/);
  expect(refused.out).not.toContain('0123456789abcdef0123456789abcdef');
  const empty = path.join(dir, 'empty');
  mkdirSync(empty, { recursive: true });
  writeFileSync(path.join(empty, 'notes.txt'), 'nothing');
  const none = await cliInProcess(['compat', '--sessions', empty], { cwd: dir });
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('empty: holds no session: no .jsonl, .ndjson or .har file; record sessions with the sandbox');
  const missing = await cliInProcess(['compat'], { cwd: dir });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('--sessions DIR is required');
  expect(() => loadSessions(path.join(dir, 'nowhere'), dir)).toThrow(/^nowhere: no such file or folder; give the folder of the agencies' sessions/);
});
