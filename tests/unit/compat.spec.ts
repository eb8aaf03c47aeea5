import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import type { CompatReport } from '../../lib/report/compat/model.ts';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { startSandbox } from '../../lib/sandbox/run.ts';
import { startReferenceServer } from '../../server/index.ts';
import type { RunningServer } from '../../server/index.ts';
import { jsonLines, recordAgencyDay, sessionAsHar, THREE_AGENCIES } from '../support/agency-sessions.ts';
import { cliInProcess } from '../support/cli.ts';
import { forwardProxy } from '../support/forward-proxy.ts';

/**
 * Will this build break an agency? Three agencies' sessions recorded from the example client through the
 * sandbox (IMRO 128 and BMI 021 in JSON, SACEM 058 in XML), replayed against stand-in builds: the
 * reference server as it is, with a legitimate choice where the document leaves a point open, and with a
 * fault. Each test reads the matrix compat writes.
 */

test.describe.configure({ mode: 'serial', timeout: 180_000 });

const SANDBOX_KEY = 'agency-sandbox-key-3e1f';
const BUILD_KEY = 'build-key-of-the-api-team-9c4d';
const PROFILE = fromRoot('fixtures/targets/sandbox-client.json');
let dir = '';
let sessions = '';

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-compat-'));
  sessions = path.join(dir, 'sessions');
  for (const [agency, standIn] of Object.entries(THREE_AGENCIES)) await recordAgencyDay(path.join(sessions, agency), standIn, SANDBOX_KEY);
});

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A stand-in build: the reference server with the sandbox's data, a key of its own, and what it is asked to play. */
async function build(options: { faults?: string[]; choices?: string[] | 'production' } = {}): Promise<RunningServer & { arrivals: number[] }> {
  const arrivals: number[] = [];
  const server = await startReferenceServer({
    profile: loadProfile(PROFILE),
    key: BUILD_KEY,
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.choices ? { choices: options.choices } : {}),
    hook: { received: () => void arrivals.push(Date.now()) },
  });
  return { ...server, arrivals };
}

async function compat(url: string, name: string, args: readonly string[] = [], from = sessions): Promise<{ code: number; out: string; report: CompatReport; dir: string }> {
  const out = path.join(dir, 'reports', name);
  const result = await cliInProcess(['compat', '--sessions', from, '--base-url', url, '--target', PROFILE, '--report-dir', out, ...args], { env: { ISWC_SUBSCRIPTION_KEY: BUILD_KEY }, cwd: dir });
  return { code: result.code, out: result.out, report: JSON.parse(readFileSync(path.join(out, 'compat.json'), 'utf8')) as CompatReport, dir: out };
}

/** agency → its verdict; and agency → "operation format" → the cell's verdict. */
function matrix(report: CompatReport): { agencies: Record<string, string>; cells: Record<string, Record<string, string>> } {
  const cells: Record<string, Record<string, string>> = {};
  for (const c of report.cells) (cells[c.agency] ??= {})[`${c.operation} ${c.format}`] = c.verdict;
  return { agencies: Object.fromEntries(report.agencies.map((a) => [a.agency, a.verdict])), cells };
}

test('the build the sessions were met by, replayed twice: every agency compatible both times, the values that differ on every call learned as noise', async () => {
  // Two instances of the same build, each with its disposable entries fresh (a replay consumes them, as a run does).
  for (const name of ['same-1', 'same-2']) {
    const b = await build();
    try {
      const { code, out, report } = await compat(b.url, name);
      expect(code, out).toBe(0);
      expect(matrix(report).agencies).toEqual({ '021': 'compatible', '058': 'compatible', '128': 'compatible' });
      expect(report.exchanges.every((e) => e.verdict === 'compatible'), out).toBe(true);
      // The runIds differ from the recorded ones on every call: left out, never listed by hand.
      const starts = report.exchanges.filter((e) => e.judgedBy === e.id && e.operation === 'notifyAgentRun' && !/runId/.test(e.recorded.request?.body ?? ''));
      expect(starts.length).toBe(3);
      for (const s of starts) expect(s.noise?.join(' '), s.id).toMatch(/text at (\$\.runId|\/CsnNotification\/runId)/);
      expect(report.outcome).toMatchObject({ verdict: 'compatible', exitCode: 0 });
    } finally {
      await b.close();
    }
  }
});

test('noise in error bodies is learned too: a 404 problem+json with a traceId, recorded in the sandbox, against a build with the same choices', async () => {
  const where = path.join(dir, 'sessions-404');
  const parsed = parseSandboxArgs(['--port', '0', '--report-dir', where], { ISWC_SANDBOX_KEY: SANDBOX_KEY });
  if (parsed.kind !== 'run') throw new Error('bad arguments');
  const running = await startSandbox(parsed.options);
  const answer = await fetch(`${running.url}/iswc/merge?preferredIswc=T9999999994&agency=128`, { method: 'POST', headers: { 'Ocp-Apim-Subscription-Key': SANDBOX_KEY, 'Content-Type': 'application/json' }, body: '{"iswcs":["T0345246801"]}' });
  expect(answer.status).toBe(404);
  expect(await answer.text()).toContain('traceId');
  await running.stop();
  const b = await build({ choices: 'production' });
  try {
    const { code, out, report } = await compat(b.url, 'noise-404', [], where);
    expect(code, out).toBe(0);
    const [merge] = report.exchanges;
    expect(merge?.verdict, out).toBe('compatible');
    expect(merge?.noise?.join(' ')).toContain('text at $.traceId');
    expect(merge?.mapping).toMatch(/^identifiers mapped onto merges\[\d\] of the target profile/);
  } finally {
    await b.close();
  }
  // The same session as a HAR file, which does not say which server the client met: the trace id is learned all the same.
  const har = path.join(dir, 'sessions-404-har');
  mkdirSync(har, { recursive: true });
  writeFileSync(path.join(har, 'staging.har'), sessionAsHar(path.join(where, 'client-session.jsonl')));
  const again = await build({ choices: 'production' });
  try {
    const { code, out, report } = await compat(again.url, 'noise-404-har', [], har);
    expect(code, out).toBe(0);
    const [merge] = report.exchanges;
    expect(merge?.verdict, out).toBe('compatible');
    expect(merge?.noise?.join(' ')).toContain('text at $.traceId');
  } finally {
    await again.close();
  }
});

test('a build with a choice that changes only what the document leaves open: changed, never broken, for the agencies that meet it', async () => {
  for (const [choice, changed] of [['json-text-json', ['021', '128']]] as const) {
    const b = await build({ choices: [choice] });
    try {
      const { code, out, report } = await compat(b.url, `choice-${choice}`);
      expect(code, `${choice}: ${out}`).toBe(0);
      expect(report.exchanges.filter((e) => e.verdict === 'broken'), choice).toEqual([]);
      const { agencies } = matrix(report);
      for (const agency of ['021', '058', '128']) expect(agencies[agency], `${choice}, agency ${agency}`).toBe((changed as readonly string[]).includes(agency) ? 'changed' : 'compatible');
      expect(report.outcome.verdict).toBe('changed');
    } finally {
      await b.close();
    }
  }
});

test('a build with a choice the document allows that gives the XML client another thing to read: broken for that agency only (JSON to its Accept: application/xml; its elements in a namespace)', async () => {
  for (const [choice, reason] of [
    ['answer-json-always', /^an answer in a format the client did not ask for: JSON to a request with Accept: application\/xml/],
    ['xml-answer-datacontract', /^an element is named otherwise: \/CsnNotification was CsnNotification \(no prefix, no namespace\), now CsnNotification \{http:\/\/schemas\.datacontract\.org/],
  ] as const) {
    const b = await build({ choices: [choice] });
    try {
      const { code, out, report } = await compat(b.url, `choice-${choice}`);
      expect(code, `${choice}: ${out}`).toBe(1);
      expect(matrix(report).agencies, choice).toEqual({ '021': 'compatible', '058': 'broken', '128': 'compatible' });
      const broken = report.exchanges.filter((e) => e.verdict === 'broken' && e.judgedBy === e.id);
      expect(broken.length, choice).toBeGreaterThan(0);
      for (const e of broken) expect(e.reasons[0], `${choice} ${e.id}`).toMatch(reason);
    } finally {
      await b.close();
    }
  }
});

test('a build with a fault: broken for exactly the agencies whose traffic reaches it, in the cells it reaches; exit 1', async () => {
  const xml = await build({ faults: ['xml-bodies-415'] });
  try {
    const { code, out, report } = await compat(xml.url, 'fault-xml');
    expect(code, out).toBe(1);
    const m = matrix(report);
    expect(m.agencies).toEqual({ '021': 'compatible', '058': 'broken', '128': 'compatible' });
    expect(m.cells['058']).toEqual({ 'notifyAgentRun xml': 'broken', 'mergeIswcMetadata xml': 'broken', 'deleteSubmission none': 'compatible', 'demergeIswcMetadata none': 'compatible' });
    const broken = report.exchanges.find((e) => e.agency === '058' && e.operation === 'mergeIswcMetadata');
    expect(broken?.reasons.join('\n')).toContain('violates the document: status.documented [spec, 4.2, 7]');
    expect(broken?.reasons.join('\n')).toContain('a success became a refusal: 204 → 415');
    // The side-by-side view of the cell: what the client met, what the build answered.
    expect(broken?.recorded.answer.status).toBe(204);
    expect(broken?.replayed?.answer.status).toBe(415);
    expect(out).toContain('compat: 1 of 3 agencies broken (058)');
  } finally {
    await xml.close();
  }
  const ends = await build({ faults: ['run-end-refused'] });
  try {
    const { code, report } = await compat(ends.url, 'fault-run-end');
    expect(code).toBe(1);
    const m = matrix(report);
    expect(m.agencies).toEqual({ '021': 'broken', '058': 'broken', '128': 'broken' });
    // Only the run's end is refused: the cells of the other operations stay compatible.
    for (const agency of ['021', '058', '128']) {
      const cells = m.cells[agency] ?? {};
      expect(Object.entries(cells).filter(([, v]) => v === 'broken').map(([k]) => k), agency).toEqual([agency === '058' ? 'notifyAgentRun xml' : 'notifyAgentRun json']);
      const end = report.exchanges.find((e) => e.agency === agency && e.verdict === 'broken');
      expect(end?.reasons[0], agency).toBe('a success became a refusal: 200 → 400');
    }
  } finally {
    await ends.close();
  }
});

test('the four reports: the matrix in HTML (self-contained, each cell linking to its exchanges side by side), JSON, JUnit per agency and operation, Markdown for a pull request', async () => {
  const b = await build({ faults: ['xml-bodies-415'] });
  try {
    const { dir: out, report } = await compat(b.url, 'reports');
    const html = readFileSync(path.join(out, 'compat.html'), 'utf8');
    expect(html).toContain('<table class="matrix">');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const link = /<td class="cell c-broken"[^>]*><a href="#([^"]+)">/.exec(html)?.[1];
    expect(link).toBe('cell-058-notifyAgentRun-xml');
    expect(html).toContain(`<h3 id="${link ?? ''}">`);
    expect(html).toContain('What the client met (recorded)');
    expect(html).toContain('What the build answered (replayed)');
    const junit = readFileSync(path.join(out, 'compat-junit.xml'), 'utf8');
    // One test case per agency and operation: 3 agencies × 4 operations.
    expect(junit.match(/<testcase /g)).toHaveLength(12);
    expect(junit).toMatch(/<testsuites name="iswc-conformance compat" tests="12" failures="2" errors="0" skipped="0">/);
    expect(junit).toContain('<testcase classname="compat.agency-058" name="merge (1 broken)"><failure message="broken: violates the document: status.documented');
    const md = readFileSync(path.join(out, 'compat.md'), 'utf8');
    expect(md).toContain('## Will this build break an agency?');
    expect(md).toContain('| 058 | · | ❌ 1 broken · 1 not replayed | · | ❌ 1 broken | ✅ 1 compatible | ✅ 1 compatible | ❌ broken |');
    expect(md).toContain('### Broken (2 requests replayed)');
    expect(report.figures).toMatchObject({ sessions: 3, agencies: 3, exchanges: 15 });
  } finally {
    await b.close();
  }
});

test('a HAR file and a gateway log replay like the sandbox session they hold: the same verdicts, cell by cell', async () => {
  const har = path.join(dir, 'as-har');
  const log = path.join(dir, 'as-log');
  mkdirSync(har, { recursive: true });
  mkdirSync(log, { recursive: true });
  const gateway: string[] = [];
  for (const agency of ['058', '128']) {
    const lines = jsonLines(path.join(sessions, agency, 'client-session.jsonl')).slice(1);
    const headers = (h: unknown) => Object.entries(h as Record<string, string>).map(([name, value]) => ({ name, value: /subscription-key/i.test(name) ? '<redacted>' : value }));
    writeFileSync(path.join(har, `${agency}.har`), sessionAsHar(path.join(sessions, agency, 'client-session.jsonl')));
    for (const l of lines) gateway.push(JSON.stringify({ time: l.time, agency, method: l.method, url: `https://staging.example.org${String(l.url)}`, requestHeaders: Object.fromEntries(headers(l.requestHeaders).map((h) => [h.name, h.value])), ...(l.requestBody !== undefined ? { requestBody: l.requestBody } : {}), status: l.status, responseHeaders: l.responseHeaders, ...(l.responseBody !== undefined ? { responseBody: l.responseBody } : {}) }));
  }
  writeFileSync(path.join(log, 'apim.jsonl'), `${gateway.join('\n')}\n`);
  // Each replay against a fresh instance of the build: its disposable entries are the profile's again.
  const replayOn = async (name: string, from: string) => {
    const b = await build({ faults: ['xml-bodies-415'] });
    try {
      return await compat(b.url, name, [], from);
    } finally {
      await b.close();
    }
  };
  const fromSandbox = matrix((await replayOn('like-sandbox', sessions)).report).cells;
  for (const [name, from] of [['har', har], ['log', log]] as const) {
    const { code, out, report } = await replayOn(`like-${name}`, from);
    expect(code, out).toBe(1);
    const cells = matrix(report).cells;
    expect(cells['058'], name).toEqual(fromSandbox['058']);
    expect(cells['128'], name).toEqual(fromSandbox['128']);
    expect(report.figures.exchanges, name).toBe(10);
  }
  // Noise learned for traffic that does not say which server it met never hides a change: an XML namespace
  // on the answers where the client met none (a shape every documented choice set answers alike on every call) is broken, as from the sandbox.
  const datacontract = await build({ choices: ['xml-answer-datacontract'] });
  try {
    const { code, out, report } = await compat(datacontract.url, 'har-datacontract', [], har);
    expect(code, out).toBe(1);
    expect(matrix(report).agencies).toEqual({ '058': 'broken', '128': 'compatible' });
    const reasons = report.exchanges.find((e) => e.agency === '058' && e.verdict === 'broken')?.reasons.join('\n');
    expect(reasons).toContain('an element is named otherwise: /CsnNotification was CsnNotification (no prefix, no namespace)');
    expect(reasons).toContain('shape at /CsnNotification@xmlns');
  } finally {
    await datacontract.close();
  }
});

test('the budget is a cap on what reaches the build; requests that change data are replayed only when allowed, with the reason otherwise', async () => {
  const b = await build();
  try {
    const { code, out, report } = await compat(b.url, 'budget', ['--budget', '4']);
    // What the budget left out is not judged: no agency passes on exchanges never replayed (exit 3).
    expect(code, out).toBe(3);
    expect(report.outcome.verdict).toBe('not judged');
    expect(b.arrivals.length).toBeLessThanOrEqual(4);
    expect(report.figures.requests.sent).toBe(b.arrivals.length);
    expect(report.outcome.halt?.kind).toBe('budget');
    expect(report.exchanges.filter((e) => e.verdict === 'skipped').map((e) => e.reasons[0])).toContain('not sent: the request budget is used up: 4 of 4 requests sent, resends included (--budget); the shapes left were not sent');
  } finally {
    await b.close();
  }
  const safe = await build();
  try {
    const out = path.join(dir, 'reports', 'safe');
    const result = await cliInProcess(['compat', '--sessions', sessions, '--base-url', safe.url, '--target', PROFILE, '--report-dir', out], { env: { ISWC_SUBSCRIPTION_KEY: BUILD_KEY, ISWC_DESTRUCTIVE: '0' }, cwd: dir });
    // The agencies whose merges were not replayed are not judged (exit 3), with the reason on each exchange.
    expect(result.code, result.out).toBe(3);
    const report = JSON.parse(readFileSync(path.join(out, 'compat.json'), 'utf8')) as CompatReport;
    expect(report.agencies.map((a) => a.verdict)).toEqual(['skipped', 'skipped', 'skipped']);
    const skipped = report.exchanges.filter((e) => e.verdict === 'skipped');
    expect(new Set(skipped.map((e) => e.operation))).toEqual(new Set(['mergeIswcMetadata', 'demergeIswcMetadata', 'deleteSubmission']));
    expect(skipped[0]?.reasons[0]).toBe("changes data, and requests that change data are off (ISWC_DESTRUCTIVE=0): pass --destructive to replay it on the target profile's disposable entries");
    // Only the run notifications reached the build.
    expect(safe.arrivals.length).toBe(report.figures.requests.sent);
    expect(report.exchanges.filter((e) => e.replayed).every((e) => e.operation === 'notifyAgentRun')).toBe(true);
  } finally {
    await safe.close();
  }
});

test('requests go as a run sends them: through the proxy of HTTP_PROXY, with the extra headers, the values written nowhere', async () => {
  const proxy = await forwardProxy({ auth: { user: 'gate', password: 'proxy-secret-81f2' } });
  const b = await build();
  try {
    const out = path.join(dir, 'reports', 'proxied');
    const result = await cliInProcess(['compat', '--sessions', path.join(sessions, '058'), '--base-url', b.url, '--target', PROFILE, '--report-dir', out, '--header', 'X-Gateway-Token: header-secret-5e7a'], {
      env: { ISWC_SUBSCRIPTION_KEY: BUILD_KEY, HTTP_PROXY: proxy.uri({ user: 'gate', password: 'proxy-secret-81f2' }) },
      cwd: dir,
    });
    expect(result.code, result.out).toBe(0);
    const report = JSON.parse(readFileSync(path.join(out, 'compat.json'), 'utf8')) as CompatReport;
    // Every request the report counts went through the proxy, with the gateway's header.
    expect(proxy.log.length).toBe(report.figures.requests.sent);
    expect(proxy.log.every((l) => l.kind === 'request' && l.target.startsWith(b.url) && l.headers['x-gateway-token'] === 'header-secret-5e7a')).toBe(true);
    for (const f of readdirSync(out)) {
      const text = readFileSync(path.join(out, f), 'utf8');
      for (const secret of ['proxy-secret-81f2', 'header-secret-5e7a', BUILD_KEY]) expect(text.includes(secret), `${f}: ${secret}`).toBe(false);
    }
    expect(result.out).not.toMatch(/proxy-secret-81f2|header-secret-5e7a/);
  } finally {
    await b.close();
    await proxy.close();
  }
});

test('--plan says what would be sent and sends nothing', async () => {
  const b = await build();
  try {
    const result = await cliInProcess(['compat', '--sessions', sessions, '--base-url', b.url, '--target', PROFILE, '--rate', '10/min', '--plan'], { env: { ISWC_SUBSCRIPTION_KEY: BUILD_KEY }, cwd: dir });
    expect(result.code, result.out).toBe(0);
    expect(result.stdout).toContain('compat: 3 session(s) of 3 agencies (021, 058, 128), 15 exchanges in 15 shapes');
    expect(result.stdout).toMatch(/15 shapes to replay against http:\/\/127\.0\.0\.1:\d+: 15 request\(s\), about 2 min at 0\.167 requests\/s/);
    expect(b.arrivals).toEqual([]);
  } finally {
    await b.close();
  }
});

test('a client certificate binds its recorded session: verify --session checks it, compat says it', async () => {
  const where = path.join(sessions, '128');
  const issued = await cliInProcess(['certify', '--client', path.join(where, 'client-conformance.json')], { cwd: dir });
  expect(issued.code, issued.out).toBe(0);
  expect(issued.stdout).toMatch(/bound to the recorded session sessions\/128\/client-session\.jsonl: 5 exchanges, sha256 [0-9a-f]{64}/);
  const cert = JSON.parse(readFileSync(path.join(where, 'client-certificate.json'), 'utf8')) as { session: { recording?: { file: string; exchanges: number } } };
  expect(cert.session.recording).toMatchObject({ file: 'client-session.jsonl', exchanges: 5 });
  const ok = await cliInProcess(['verify', path.join(where, 'client-certificate.json'), '--allow-unsigned', '--session', path.join(where, 'client-session.jsonl')], { cwd: dir });
  expect(ok.code, ok.out).toBe(0);
  expect(ok.stdout).toContain('is the one certified (5 exchanges');
  const b = await build();
  try {
    const { report } = await compat(b.url, 'certified');
    expect(Object.values(report.agencies.find((a) => a.agency === '128')?.certified ?? {})[0]).toMatch(/^the session its client certificate binds: conformant/);
  } finally {
    await b.close();
  }
  // An edited session is not the one certified.
  const edited = path.join(dir, 'edited.jsonl');
  writeFileSync(edited, readFileSync(path.join(where, 'client-session.jsonl'), 'utf8').replace('"status":204', '"status":200'));
  const bad = await cliInProcess(['verify', path.join(where, 'client-certificate.json'), '--allow-unsigned', '--session', edited], { cwd: dir });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/--session: .*edited\.jsonl is not the session certified/);
});

test('no key appears in any session, replay or report: neither the agencies\' sandbox key nor the build\'s', () => {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.push(full);
    }
  };
  walk(dir);
  expect(files.filter((f) => f.endsWith('compat.json')).length).toBeGreaterThan(5);
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    expect(text.includes(SANDBOX_KEY), f).toBe(false);
    expect(text.includes(BUILD_KEY), f).toBe(false);
  }
});
