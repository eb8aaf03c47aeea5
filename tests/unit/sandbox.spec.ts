import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { clientReportViolations } from '../../lib/report/client/validate.ts';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import type { SandboxOptions } from '../../lib/sandbox/options.ts';
import { startSandbox, summaryLines } from '../../lib/sandbox/run.ts';
import { SandboxSession } from '../../lib/sandbox/session.ts';
import { buildClientReport } from '../../lib/report/client/build.ts';
import { RateWindow, parseInjections, parseRateLimit } from '../../lib/sandbox/trouble.ts';

/** The sandbox as a library: its command line, trouble and rate limit, a session's reports and what they never hold. */

const KEY = 'sandbox-unit-key-a1b2c3d4e5';

function options(argv: string[], env: NodeJS.ProcessEnv = { ISWC_SANDBOX_KEY: KEY }): SandboxOptions {
  const parsed = parseSandboxArgs(argv, env, '/work/here');
  if (parsed.kind !== 'run') throw new Error(`expected options, got ${JSON.stringify(parsed)}`);
  return parsed.options;
}

function usage(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  const parsed = parseSandboxArgs(argv, env);
  if (parsed.kind !== 'usage') throw new Error(`expected a usage error, got ${parsed.kind}`);
  return parsed.message;
}

test('defaults: a free port on 127.0.0.1, the client profile, production choices, all four operations, no end but a signal, a random key when ISWC_SANDBOX_KEY is unset', () => {
  const o = options([], {});
  expect(o).toMatchObject({ port: 0, host: '127.0.0.1', choices: 'production', requests: null, idleSeconds: null, waitFirstSeconds: null, operations: null, formats: null, inject: [], rateLimit: null, strict: false, keyGenerated: true, retryAfterSeconds: 2, slowMs: 15_000 });
  expect(o.targetFile).toBe(fromRoot('fixtures', 'targets', 'sandbox-client.json'));
  expect(o.profile.name).toBe('sandbox-client');
  expect(o.reportDir).toBe('/work/here/reports');
  expect(o.key).toMatch(/^sandbox-[0-9a-f]{32}$/);
  expect(options([], {}).key).not.toBe(o.key);
  expect(options([]).key).toBe(KEY);
  expect(options([], { ISWC_SANDBOX_KEY: KEY, ISWC_STRICT: '1', ISWC_REPORT_DIR: 'out' })).toMatchObject({ strict: true, reportDir: '/work/here/out' });
});

test('every option', () => {
  const o = options(['--port', '8123', '--target', fromRoot('fixtures', 'targets', 'embedded.json'), '--choices', 'reference', '--report-dir', 'r', '--requests', '12', '--idle', '2.5', '--wait-first', '30', '--operations', 'demerge,run', '--formats', 'xml', '--inject', '429@2,503@4x3', '--inject', 'reset@9', '--rate-limit', '10/min', '--strict']);
  expect(o).toMatchObject({
    port: 8123,
    choices: 'reference',
    reportDir: '/work/here/r',
    requests: 12,
    idleSeconds: 2.5,
    waitFirstSeconds: 30,
    operations: ['notifyAgentRun', 'demergeIswcMetadata'],
    formats: ['xml'],
    inject: [
      { kind: '429', at: 2 },
      { kind: '503', at: 4, times: 3 },
      { kind: 'reset', at: 9 },
    ],
    rateLimit: { limit: 10, windowMs: 60_000, text: '10/min' },
    strict: true,
  });
  expect(parseSandboxArgs(['--help'], {})).toEqual({ kind: 'help' });
});

test('bad usage says what is wrong', () => {
  expect(usage(['--key', 'x'])).toMatch(/never taken from a flag: set ISWC_SANDBOX_KEY/);
  expect(usage(['--port', '70000'])).toMatch(/--port must be an integer from 0 to 65535/);
  expect(usage(['--choices', 'cheap'])).toMatch(/--choices must be one of reference, .*production/);
  expect(usage(['--requests', '0'])).toMatch(/--requests must be a positive integer/);
  expect(usage(['--idle', '-1'])).toMatch(/Option '--idle' argument is ambiguous|--idle must be a positive number/);
  expect(usage(['--idle', 'soon'])).toMatch(/--idle must be a positive number of seconds/);
  expect(usage(['--inject', '429'])).toMatch(/"429" is not KIND@N/);
  expect(usage(['--inject', 'teapot@1'])).toMatch(/unknown kind "teapot"/);
  expect(usage(['--inject', '429@0'])).toMatch(/N counts requests from 1/);
  expect(usage(['--inject', '429@3,reset@3'])).toMatch(/request 3 is given two kinds of trouble/);
  expect(usage(['--requests', '3', '--inject', '429@2,503@4'])).toBe('--inject 503@4: the session ends after --requests 3, so request 4 never comes');
  expect(options(['--requests', '3', '--inject', '429@3']).inject).toEqual([{ kind: '429', at: 3 }]);
  expect(usage(['--requests', '5', '--inject', '503@4x3'])).toBe('--inject 503@4x3: the session ends after --requests 5, so request 6 never comes');
  expect(usage(['--inject', '503@4x3,429@6'])).toMatch(/request 6 is given two kinds of trouble \(503@4x3 and 429@6\)/);
  expect(usage(['--inject', '503@4x0'])).toMatch(/the run xM needs M of 1 or more/);
  expect(usage(['--inject', '503@4for60'])).toMatch(/"503@4for60" is not KIND@N, KIND@NxM or KIND@NforDs/);
  expect(usage(['--inject', '503@4for60y'])).toMatch(/unknown unit "y"/);
  expect(usage(['--inject', '503@4for0s'])).toMatch(/an outage lasts more than 0/);
  expect(usage(['--inject', '503@2for10s,429@3for5s'])).toMatch(/one outage per session/);
  expect(usage(['--operations', 'merge,search'])).toMatch(/unknown operation "search"; use run, merge, delete, demerge/);
  expect(usage(['--operations', ','])).toMatch(/--operations needs at least one/);
  expect(usage(['--formats', 'yaml'])).toMatch(/unknown format "yaml"; use json, xml or json,xml/);
  expect(usage(['--wait-first', '0'])).toMatch(/--wait-first must be a positive number of seconds/);
  for (const message of [usage(['--inject', '503@4for60y']), usage(['--operations', 'x'])]) expect(message.split('\n')).toHaveLength(1);
  expect(usage(['--rate-limit', 'fast'])).toMatch(/"fast" is not a rate/);
  expect(usage(['--rate-limit', '10/fortnight'])).toMatch(/unknown unit "fortnight"/);
  expect(usage(['--rate-limit', '5'])).toMatch(/"5" is a number without a unit; write 5\/min/);
  expect(usage(['--target', '/nonexistent/profile.json'])).toMatch(/Cannot read target profile/);
  expect(usage(['--verbose'])).toMatch(/Unknown option '--verbose'/);
  expect(usage([], { ISWC_SANDBOX_KEY: '   ' })).toMatch(/ISWC_SANDBOX_KEY is blank/);
  // A key too short to replace in the client reports without garbling their own words.
  expect(usage([], { ISWC_SANDBOX_KEY: 'test' })).toMatch(/^ISWC_SANDBOX_KEY is 4 characters long: .* at least 8 characters .*: set a longer one, or unset it for a random one\.$/);
  expect(options([], { ISWC_SANDBOX_KEY: 'sandbox-01' }).key).toBe('sandbox-01');
});

test('trouble and rates parse as documented', () => {
  expect(parseInjections(['slow@1', ' 401@3 ,reset@2'])).toEqual([
    { kind: 'slow', at: 1 },
    { kind: 'reset', at: 2 },
    { kind: '401', at: 3 },
  ]);
  expect(parseInjections(['503@4x10', '429@2for1.5s'])).toEqual([
    { kind: '429', at: 2, forSeconds: 1.5 },
    { kind: '503', at: 4, times: 10 },
  ]);
  expect(parseInjections(['503@4for60s', '503@1for2min', '503@9for250ms'].slice(0, 1))).toEqual([{ kind: '503', at: 4, forSeconds: 60 }]);
  expect(parseInjections(['503@1for2min'])).toEqual([{ kind: '503', at: 1, forSeconds: 120 }]);
  expect(parseInjections(['503@9for250ms'])).toEqual([{ kind: '503', at: 9, forSeconds: 0.25 }]);
  expect(parseInjections(['503@4x1'])).toEqual([{ kind: '503', at: 4 }]);
  expect(parseRateLimit('10/min')).toEqual({ limit: 10, windowMs: 60_000, text: '10/min' });
  expect(parseRateLimit('600/h')).toEqual({ limit: 600, windowMs: 3_600_000, text: '600/h' });
  expect(parseRateLimit('5/s')).toEqual({ limit: 5, windowMs: 1000, text: '5/s' });
  // A bare number is refused with the forms to write (the unit decides the limit).
  expect(() => parseRateLimit('5')).toThrow(/"5" is a number without a unit; write 5\/min .* or 5\/s/);
  expect(() => parseRateLimit('0.5')).toThrow(/without a unit/);
  expect(parseRateLimit('0')).toBeNull();
});

test('the rate window lets the limit through, then says how long until the oldest request leaves it (the window less its tolerance)', () => {
  const w = new RateWindow({ limit: 2, windowMs: 1000, text: '2/s' });
  // A tenth of the window, at most a second.
  expect(w.toleranceMs).toBe(100);
  expect(new RateWindow({ limit: 10, windowMs: 60_000, text: '10/min' }).toleranceMs).toBe(1000);
  expect(w.take(0)).toEqual({ inWindow: 1, exceeded: false, retryAfterMs: 0 });
  expect(w.take(100)).toEqual({ inWindow: 2, exceeded: false, retryAfterMs: 0 });
  expect(w.take(400)).toEqual({ inWindow: 3, exceeded: true, retryAfterMs: 500 });
  // A refused request is not counted: at 950 the first is past the window less its tolerance.
  expect(w.take(950)).toEqual({ inWindow: 2, exceeded: false, retryAfterMs: 0 });
  // A stamp that comes out of order (its body finished late) counts what arrived before it, and is counted where it belongs.
  expect(w.take(940)).toEqual({ inWindow: 2, exceeded: false, retryAfterMs: 0 });
  expect(w.take(960)).toEqual({ inWindow: 4, exceeded: true, retryAfterMs: 40 });
});

test('a session: reports valid against their schema, the key in no form in any of them, the request as sent', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-sandbox-'));
  try {
    const running = await startSandbox(options(['--report-dir', dir, '--inject', '503@3']));
    const send = (p: string, init: RequestInit) => fetch(`${running.url}${p}`, init).then(async (r) => ({ status: r.status, text: await r.text() }));
    // The key in the header, in the query (as a gateway's `subscription-key`), in the body: all redacted.
    const start = await send(`/agent/run?subscription-key=${encodeURIComponent(KEY)}`, { method: 'POST', headers: { 'Ocp-Apim-Subscription-Key': KEY, 'Content-Type': 'application/json', 'User-Agent': 'unit/1' }, body: JSON.stringify({ agentVersion: KEY, agencyCode: '1280' }) });
    expect(start.status).toBe(400);
    // A wrong key: a real key of another environment must not be written either.
    const wrong = await send('/iswc/merge?preferredIswc=T3100000004&agency=128', { method: 'POST', headers: { 'Ocp-Apim-Subscription-Key': 'production-key-zzzz-9999', 'Content-Type': 'application/json' }, body: '{"iswcs":["T123"]}' });
    expect(wrong.status).toBe(401);
    const maintenance = await send('/submission', { method: 'DELETE', headers: { 'Ocp-Apim-Subscription-Key': KEY } });
    expect(maintenance.status).toBe(503);
    const result = await running.stop();
    expect(result.exitCode).toBe(1);
    const files = readdirSync(dir).map((f) => path.join(dir, f));
    // The reports, and every exchange of the session recorded beside them: the key in none of them.
    expect(files.map((f) => path.basename(f)).sort()).toEqual(['client-conformance.html', 'client-conformance.json', 'client-junit.xml', 'client-session.jsonl']);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const form of [KEY, encodeURIComponent(KEY), Buffer.from(KEY).toString('base64'), 'production-key-zzzz-9999']) expect(text.includes(form), `${path.basename(file)} holds ${form}`).toBe(false);
    }
    const report = JSON.parse(readFileSync(path.join(dir, 'client-conformance.json'), 'utf8')) as unknown;
    expect(clientReportViolations(report)).toEqual([]);
    const r = result.report;
    expect(r.requests).toBe(3);
    // Most frequent first: fetch's own User-Agent came twice.
    expect(r.client).toEqual({ userAgents: ['node', 'unit/1'], agency: '1280', agencies: { '1280': 1, '128': 1 } });
    const limits = r.violations.find((v) => v.check === 'client.body.limits' && v.operation === 'notifyAgentRun');
    expect(limits).toMatchObject({ level: 'spec', gating: true, format: 'json', sections: ['2.1', '8'], request: { seq: 1, method: 'POST', answer: 400 } });
    // Named after the variable the sandbox reads it from.
    expect(limits?.request.target).toBe('/agent/run?subscription-key=$ISWC_SANDBOX_KEY');
    expect(limits?.request.headers['ocp-apim-subscription-key']).toBe('$ISWC_SANDBOX_KEY');
    for (const file of files) expect(readFileSync(file, 'utf8').includes('$ISWC_SUBSCRIPTION_KEY'), path.basename(file)).toBe(false);
    const key = r.violations.find((v) => v.check === 'client.key');
    expect(key?.request.headers['ocp-apim-subscription-key']).toBe('<redacted>');
    expect(r.trouble).toEqual([{ kind: '503', request: 3, operation: 'deleteSubmission', survived: false }]);
    expect(readFileSync(path.join(dir, 'client-junit.xml'), 'utf8')).toMatch(/<testsuite name="client\.body\.limits" tests="\d+" failures="2"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const DELETE_EXISTING = '/submission?preferredIswc=T3300000000&agency=128&workcode=IM00900100&sourceDb=128&reasonCode=EdiV1';
const DELETE_UNKNOWN = '/submission?preferredIswc=T9999999994&agency=128&workcode=W1&sourceDb=128&reasonCode=EdiV1';

test('after --requests N, later requests get 503 with Retry-After, are recorded and not judged, and the report says the session ended by count', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-sandbox-'));
  try {
    const byCount = await startSandbox(options(['--report-dir', dir, '--requests', '2', '--operations', 'delete']));
    const headers = { 'Ocp-Apim-Subscription-Key': KEY };
    expect((await fetch(`${byCount.url}${DELETE_EXISTING}`, { method: 'DELETE', headers })).status).toBe(204);
    expect((await fetch(`${byCount.url}${DELETE_UNKNOWN}`, { method: 'DELETE', headers })).status).toBe(404);
    // The client goes on: the port is still open, and says the session is over.
    const late = await fetch(`${byCount.url}${DELETE_UNKNOWN}&late=1`, { method: 'DELETE' });
    expect(late.status).toBe(503);
    expect(late.headers.get('retry-after')).toBe('2');
    expect(await late.text()).toContain('session has ended');
    const ended = await byCount.done;
    expect(ended.report).toMatchObject({ endedBy: 'requests', requests: 2, verdict: 'conformant', lateRequests: { count: 1, first: [{ seq: 3, method: 'DELETE' }] } });
    expect(ended.report.lateRequests.first[0]?.target).toContain('late=1');
    expect(ended.report.verdictText).toMatch(/the session ended after its 2 requests \(--requests\), and 1 later request got 503, not judged/);
    // Never judged: the late request carried no key, and no check says so.
    expect(ended.report.violations).toEqual([]);
    expect(clientReportViolations(JSON.parse(readFileSync(path.join(dir, 'client-conformance.json'), 'utf8')))).toEqual([]);
    expect(summaryLines(ended.report, ended.files).join('\n')).toContain('1 request(s) after the session ended (--requests 2): answered 503, not judged');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an operation that never succeeded is shown with what the client checks found in its first refused request; the report files outside the directory are shown whole', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-sandbox-'));
  try {
    const session = await startSandbox(options(['--report-dir', dir, '--requests', '2', '--operations', 'delete,demerge']));
    const headers = { 'Ocp-Apim-Subscription-Key': KEY };
    // A lower-case ISWC, and a delete without its reasonCode: production's habits refuse both.
    expect((await fetch(`${session.url}/iswc/merge?preferredIswc=t3200000002&agency=128&workcode=IM00800100`, { method: 'DELETE', headers })).status).toBe(400);
    expect((await fetch(`${session.url}${DELETE_EXISTING.replace('&reasonCode=EdiV1', '')}`, { method: 'DELETE', headers })).status).toBe(400);
    const ended = await session.done;
    const lines = summaryLines(ended.report, ended.files);
    const after = (label: string): string | undefined => lines[lines.findIndex((l) => l.startsWith(`  ✗ ${label}:`)) + 1];
    expect(after('demerge')).toBe('      request 1 answered 400; the client checks found in it: client.iswc: query preferredIswc "t3200000002" is not T and 10 digits');
    expect(after('submission delete')).toBe('      request 2 answered 400; the client checks found in it: client.query.open: reasonCode left out');
    // The reports are in a temporary directory, not under the working directory: shown as they are, not as ../../tmp/….
    expect(lines.at(-1)).toBe(`  ${[ended.files.json, ended.files.junit, ended.files.html].join(' · ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--idle counts from the first request: a client that takes a while to start is waited for; --wait-first bounds that wait', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-sandbox-'));
  try {
    const byIdle = await startSandbox(options(['--report-dir', dir, '--idle', '0.3', '--operations', 'delete']));
    // Three idle periods before the client's first request: the session is still open.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await fetch(`${byIdle.url}${DELETE_EXISTING}`, { method: 'DELETE', headers: { 'Ocp-Apim-Subscription-Key': KEY } })).status).toBe(204);
    const idle = await byIdle.done;
    expect(idle.report).toMatchObject({ endedBy: 'idle', requests: 1, verdict: 'conformant' });
    const nobody = await startSandbox(options(['--report-dir', dir, '--idle', '0.3', '--wait-first', '0.5']));
    const waited = await nobody.done;
    expect(waited.report).toMatchObject({ endedBy: 'wait-first', requests: 0, verdict: 'incomplete', sandbox: { waitFirstSeconds: 0.5, idleSeconds: 0.3 } });
    expect(waited.exitCode).toBe(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the command refuses a key flag, naming ISWC_SANDBOX_KEY, exit 2', async () => {
  const { cliInProcess } = await import('../support/cli.ts');
  const result = await cliInProcess(['sandbox', '--key', 'x']);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('set ISWC_SANDBOX_KEY in the environment');
});

test('an XML body nested 60,000 levels deep is recorded by client.xml, not judged, and the session goes on', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-sandbox-'));
  try {
    const running = await startSandbox(options(['--report-dir', dir, '--operations', 'delete']));
    const deep = `<AgentRun><agentVersion>${'<a>'.repeat(60_000)}${'</a>'.repeat(60_000)}</agentVersion></AgentRun>`;
    const headers = { 'Ocp-Apim-Subscription-Key': KEY, 'Content-Type': 'application/xml' };
    expect((await fetch(`${running.url}/agent/run`, { method: 'POST', headers, body: deep })).status).toBe(400);
    // The session is alive: the next request is answered and judged.
    expect((await fetch(`${running.url}${DELETE_EXISTING}`, { method: 'DELETE', headers: { 'Ocp-Apim-Subscription-Key': KEY } })).status).toBe(204);
    const result = await running.stop();
    expect(result.exitCode).toBe(0);
    expect(result.report).toMatchObject({ requests: 2, verdict: 'conformant' });
    expect(result.report.violations).toEqual([]);
    const xml = result.report.observations.find((o) => o.check === 'client.xml');
    expect(xml?.received).toContain('elements nested 60002 levels deep, past the 64 the sandbox reads');
    // Well-formedness is judged whatever the depth; the fields are not.
    const judged = new Set(result.report.checks.exercised.map((c) => c.id));
    expect(judged.has('client.body.syntax')).toBe(true);
    expect(judged.has('client.body.fields')).toBe(false);
    expect(clientReportViolations(JSON.parse(readFileSync(path.join(dir, 'client-conformance.json'), 'utf8')))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a judgement that raises is a defect of the sandbox: recorded once, redacted, the session told to end, nothing judged after it', async () => {
  const session = new SandboxSession({ key: KEY, keyHeader: 'ocp-apim-subscription-key', xmlArrays: 'unwrapped', strict: false, inject: [], rateLimit: null, retryAfterSeconds: 2, slowMs: 10 });
  const defects: string[] = [];
  session.onDefect = (d) => defects.push(d);
  // Headers whose Content-Type cannot be read: the judgement raises (the request itself is taken as it came).
  const known: Record<string, string> = { 'ocp-apim-subscription-key': KEY };
  const hostile = new Proxy(known, {
    get(target, name) {
      if (name === 'content-type') throw new Error(`cannot read the header (key ${KEY})`);
      return target[name as string];
    },
  });
  const req = (url: string, headers: Record<string, string>) => ({ method: 'DELETE', url, headers }) as unknown as IncomingMessage;
  // Neither gets trouble: the hook lets the reference server answer (undefined).
  expect(session.before(req('/submission?agency=128', hostile), { kind: 'ok', bytes: Buffer.alloc(0) })).toBeUndefined();
  expect(session.before(req('/submission?agency=128', { 'ocp-apim-subscription-key': KEY }), { kind: 'ok', bytes: Buffer.alloc(0) })).toBeUndefined();
  await new Promise((r) => setImmediate(r));
  expect(defects).toHaveLength(1);
  expect(defects[0]).toMatch(/^judging request 1 \(DELETE \/submission\) raised Error: cannot read the header/);
  expect(defects[0]).not.toContain(KEY);
  const summary = session.conclude();
  expect(summary.defect).toBe(defects[0]);
  const report = buildClientReport({ findings: session.findings, strict: false, startedAt: session.startedAt, finishedAt: Date.now(), endedBy: 'defect', sandbox: { url: 'http://127.0.0.1:1', choices: 'production', profile: 'p', inject: [], rateLimit: null, requestLimit: null, idleSeconds: null, waitFirstSeconds: null }, declared: { operations: null, formats: null }, ...summary });
  expect(report.checks.exercised).toEqual([]);
  expect(report.defect).toBe(defects[0]);
  expect(report.verdictText).toContain('an internal error of the sandbox ended the session');
  expect(clientReportViolations(JSON.parse(JSON.stringify(report)))).toEqual([]);
});

/** Writes raw bytes to the sandbox over one connection: `parts` with a pause between them, then closes it. */
async function rawRequest(url: string, parts: string[], pauseMs: number): Promise<void> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  for (const [i, part] of parts.entries()) {
    if (i > 0) await new Promise((r) => setTimeout(r, pauseMs));
    socket.write(part);
  }
  socket.destroy();
}

test('a client that goes away mid-body is neither judged nor left in flight: --idle still ends the session', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-sandbox-'));
  try {
    const running = await startSandbox(options(['--report-dir', dir, '--idle', '0.5']));
    const head = `POST /agent/run HTTP/1.1\r\nHost: x\r\nOcp-Apim-Subscription-Key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    await rawRequest(running.url, [head, '{"agencyC'], 20);
    const ended = await Promise.race([running.done, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
    expect(ended, 'the session is still running 10 s after the client went away').not.toBeNull();
    // Never judged: a truncated body is not a request without a body.
    expect(ended?.report).toMatchObject({ endedBy: 'idle', requests: 0, verdict: 'incomplete', violations: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--idle does not end a session while a request is uploading: a request in progress is activity', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-sandbox-'));
  try {
    const running = await startSandbox(options(['--report-dir', dir, '--idle', '0.3', '--requests', '1']));
    const body = JSON.stringify({ agentVersion: 'a', agencyCode: '128' });
    const head = `POST /agent/run HTTP/1.1\r\nHost: x\r\nOcp-Apim-Subscription-Key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // The body comes in three parts, 400 ms apart: longer than --idle between the head and the end.
    const { port } = new URL(running.url);
    const socket = connect(Number(port), '127.0.0.1');
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
      socket.on('close', () => resolve(text));
    });
    socket.write(head);
    for (const part of [body.slice(0, 10), body.slice(10, 20), body.slice(20)]) {
      await new Promise((r) => setTimeout(r, 400));
      socket.write(part);
    }
    const ended = await running.done;
    // The session's end closes the connection, after the answer.
    expect(await answer).toMatch(/^HTTP\/1\.1 200/);
    expect(ended.report).toMatchObject({ endedBy: 'requests', requests: 1 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an absolute-form target (as a proxy sends it) is judged by its path; a CORS preflight is counted, never judged', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-sandbox-'));
  try {
    const running = await startSandbox(options(['--report-dir', dir, '--operations', 'delete']));
    const { host, port } = new URL(running.url);
    const socket = connect(Number(port), '127.0.0.1');
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
      socket.on('close', () => resolve(text));
    });
    socket.write(`DELETE ${running.url}${DELETE_EXISTING} HTTP/1.1\r\nHost: ${host}\r\nOcp-Apim-Subscription-Key: ${KEY}\r\nConnection: close\r\n\r\n`);
    expect(await answer).toMatch(/^HTTP\/1\.1 204/);
    // The browser's preflight carries no key (Fetch standard): it is not the client's request to judge.
    const preflight = await fetch(`${running.url}/agent/run`, { method: 'OPTIONS', headers: { Origin: 'https://agency.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, ocp-apim-subscription-key' } });
    await preflight.arrayBuffer();
    const result = await running.stop();
    expect(result.report.violations).toEqual([]);
    expect(result.report).toMatchObject({ requests: 2, verdict: 'conformant', operations: { deleteSubmission: 1, 'cors-preflight': 1 } });
    expect(clientReportViolations(JSON.parse(readFileSync(path.join(dir, 'client-conformance.json'), 'utf8')))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a --report-dir that cannot be written is refused at start, exit 2, in one plain line, before any request', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-sandbox-'));
  try {
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const { cliInProcess } = await import('../support/cli.ts');
    // --requests 1: were the session started, it would wait for a request; it must not start at all.
    const result = await cliInProcess(['sandbox', '--report-dir', path.join(file, 'reports'), '--requests', '1'], { env: { ISWC_SANDBOX_KEY: KEY } });
    expect(result.code).toBe(2);
    expect(result.stdout).not.toContain('listening');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^iswc-conformance sandbox: --report-dir .*a-file\/reports cannot take the reports \(a part of the path is a file, not a directory\): choose a directory you can write to$/m);
    await expect(startSandbox(options(['--report-dir', path.join(file, 'reports')]))).rejects.toThrow(/cannot take the reports/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ISWC_STRICT is read as the run reads it: 1/true/yes, 0/false/no, blank is unset, anything else a usage error', () => {
  for (const on of ['1', 'true', 'YES', ' 1 ']) expect(options([], { ISWC_SANDBOX_KEY: KEY, ISWC_STRICT: on }).strict, on).toBe(true);
  for (const off of ['0', 'false', 'no', '']) expect(options([], { ISWC_SANDBOX_KEY: KEY, ISWC_STRICT: off }).strict, off).toBe(false);
  expect(usage([], { ISWC_STRICT: 'maybe' })).toBe('ISWC_STRICT must be 1 or 0, got "maybe"');
});

test('runs started in a long session: only a bounded number keep their request whole, the ends free them, the report still counts every run', async () => {
  const session = new SandboxSession({ key: KEY, keyHeader: 'ocp-apim-subscription-key', xmlArrays: 'unwrapped', strict: false, inject: [], rateLimit: null, retryAfterSeconds: 2, slowMs: 10 });
  const body = Buffer.from(JSON.stringify({ agentVersion: 'x'.repeat(5000), agencyCode: '128' }));
  const send = async (payload: Buffer, runId: string): Promise<void> => {
    const req = { method: 'POST', url: '/agent/run', headers: { 'ocp-apim-subscription-key': KEY, 'content-type': 'application/json' } } as unknown as IncomingMessage;
    session.received(req);
    expect(session.before(req, { kind: 'ok', bytes: payload })).toBeUndefined();
    await new Promise((r) => setImmediate(r));
    session.after(req, { status: 200, body: { kind: 'json', text: JSON.stringify({ runId }) }, headers: {} });
    session.finished(req);
  };
  const { MAX_OPEN_RUN_REQUESTS } = await import('../../lib/sandbox/session.ts');
  const starts = MAX_OPEN_RUN_REQUESTS + 100;
  for (let i = 0; i < starts; i += 1) await send(body, `run-${i}`);
  expect(session.runRequestsHeld).toBe(MAX_OPEN_RUN_REQUESTS);
  // Ending the first 100 runs frees what they held.
  for (let i = 0; i < 100; i += 1) await send(Buffer.from(JSON.stringify({ agentVersion: 'a', agencyCode: '128', runId: `run-${i}` })), 'ignored');
  expect(session.runRequestsHeld).toBe(MAX_OPEN_RUN_REQUESTS - 100);
  const summary = session.conclude();
  expect(summary.runs).toEqual({ started: starts, ended: 100 });
  const report = buildClientReport({ findings: session.findings, strict: false, startedAt: session.startedAt, finishedAt: Date.now(), endedBy: 'stop', sandbox: { url: 'http://127.0.0.1:1', choices: 'production', profile: 'p', inject: [], rateLimit: null, requestLimit: null, idleSeconds: null, waitFirstSeconds: null }, declared: { operations: null, formats: null }, ...summary });
  const open = report.checks.exercised.find((c) => c.id === 'client.runs-ended');
  expect(open).toMatchObject({ passed: 100, observed: starts - 100 });
  // The runs left open the report shows carry the request as sent.
  const shown = report.observations.filter((o) => o.check === 'client.runs-ended');
  expect(shown.length).toBeGreaterThan(0);
  for (const o of shown) expect(o.request.body.length).toBeGreaterThan(1000);
});

test('client.retries-bounded counts retries in a row within the window: the same request sent anew long after its trouble is no retry', async () => {
  const realNow = Date.now;
  let clock = realNow();
  Date.now = () => clock;
  try {
    const session = new SandboxSession({ key: KEY, keyHeader: 'ocp-apim-subscription-key', xmlArrays: 'unwrapped', strict: true, inject: [], rateLimit: null, retryAfterSeconds: 2, slowMs: 10 });
    const send = async (url: string, status: number): Promise<void> => {
      const req = { method: 'DELETE', url, headers: { 'ocp-apim-subscription-key': KEY } } as unknown as IncomingMessage;
      session.received(req);
      void session.before(req, { kind: 'ok', bytes: Buffer.alloc(0) });
      await new Promise((r) => setImmediate(r));
      session.after(req, { status, body: { kind: 'json', text: '{}' }, headers: {} });
      session.finished(req);
    };
    const failures = (): number => session.findings.violations.filter((v) => v.check === 'client.retries-bounded').length;
    const a = '/submission?preferredIswc=T9999999994&agency=128&workcode=A&sourceDb=128&reasonCode=EdiV1';
    // Six answers of trouble, a minute apart: the sixth retry, within the window, is one too many.
    for (let i = 0; i < 6; i += 1) {
      await send(a, 503);
      clock += 60_000;
    }
    await send(a, 404);
    expect(failures()).toBe(1);
    // The same, but the last attempt comes 16 minutes after the trouble before it: sent anew, not retried.
    const b = a.replace('workcode=A', 'workcode=B');
    for (let i = 0; i < 6; i += 1) {
      await send(b, 503);
      clock += i === 5 ? 16 * 60_000 : 60_000;
    }
    await send(b, 404);
    expect(failures()).toBe(1);
    // The memory of trouble is bounded: past MAX_TROUBLED other requests, the stalest is forgotten.
    const { MAX_TROUBLED } = await import('../../lib/sandbox/session.ts');
    const c = a.replace('workcode=A', 'workcode=C');
    for (let i = 0; i < 6; i += 1) await send(c, 503);
    for (let i = 0; i < MAX_TROUBLED; i += 1) await send(a.replace('workcode=A', `workcode=X${i}`), 503);
    await send(c, 404);
    expect(failures()).toBe(1);
  } finally {
    Date.now = realNow;
  }
});
