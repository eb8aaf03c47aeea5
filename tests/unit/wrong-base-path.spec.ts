/**
 * A base URL under which the API's operations are not (a prefix missing, or one too many) is said for
 * what it is, in seconds, with exit 3: every request to a documented operation answered 404 (a plain 404,
 * or the gateway's "Resource not found"), a run start among them, which the document never answers 404.
 * A conforming server's own 404s (an unknown ISWC, a run it never issued) never stop a run. The
 * run's pipeline in process against servers on loopback; the real command once, paced as against a remote
 * staging (10 requests a minute).
 */
import { createServer, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { EXIT } from '../../lib/cli/command.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { routeEvidence, WRONG_BASE_AFTER, wrongBasePathReason } from '../../lib/contract/routes.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { readReport } from '../../lib/report/validate.ts';
import { runSuiteWithOutcome } from '../../lib/engine/pipeline.ts';
import { startReferenceServer } from '../../server/index.ts';
import { Cleanup } from '../../server/hostile/servers.ts';
import { runCliAsync } from '../support/cli.ts';
import { childEnv } from '../support/run-playwright.ts';

// Each case starts the command line (a loaded machine takes a minute or more to start it): room for that.
test.describe.configure({ mode: 'parallel', timeout: 300_000 });

const KEY = 'wrong-base-key-5b7d9f1e';
const PROFILE = fromRoot('fixtures', 'targets', 'staging-example.json');

const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

/** The API under `prefix` of a front that answers anything else 404 (a gateway with the API mounted there). */
async function mountedUnder(prefix: string, upstream: string): Promise<string> {
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (!url.startsWith(`${prefix}/`)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: 404, message: 'Resource not found' }));
      return;
    }
    const forward = httpRequest(`${upstream}${url.slice(prefix.length)}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

interface Wrong {
  name: string;
  baseUrl: () => Promise<string>;
  says: RegExp;
}

const CASES: Wrong[] = [
  {
    name: 'a prefix too many (--base-url …/api/v1)',
    baseUrl: async () => `${cleanup.add(await startReferenceServer({ profile: loadProfile(PROFILE), key: KEY })).url}/api/v1`,
    says: /✗ TARGET UNUSABLE: the base URL's path \/api\/v1 is likely wrong: a prefix missing, or one too many\. The run's first \d+ requests to the API's operations were all answered 404 \(to (POST \/api\/v1\/agent\/run and .*|.* and POST \/api\/v1\/agent\/run)\), a run start among them, which the document never answers 404\. The base URL is what comes before \/agent\/run, \/iswc\/merge and \/submission/,
  },
  {
    name: 'a prefix too many behind the gateway ("Resource not found")',
    baseUrl: async () => `${cleanup.add(await startReferenceServer({ profile: loadProfile(PROFILE), key: KEY, choices: 'production' })).url}/iswc/v1`,
    says: /✗ TARGET UNUSABLE: the base URL's path \/iswc\/v1 is likely wrong: a prefix missing, or one too many\. The run's first \d+ requests to the API's operations were all answered 404 "Resource not found" \(a gateway with no operation there\)/,
  },
  {
    name: 'a prefix missing (the API is mounted under /agency)',
    baseUrl: async () => mountedUnder('/agency', cleanup.add(await startReferenceServer({ profile: loadProfile(PROFILE), key: KEY })).url),
    says: /✗ TARGET UNUSABLE: the base URL http:\/\/127\.0\.0\.1:\d+ has no path: a prefix is likely missing \(the API's own path under its host or gateway\)\. The run's first \d+ requests to the API's operations were all answered 404 "Resource not found"/,
  },
];

/**
 * Each topology through the run's own pipeline in this process (the client a run makes, and the run's
 * outcome): what stops the run and how it is said. The real command proves the way from that reason to its
 * headline, reports and exit code once, paced as against a remote staging.
 */
for (const c of CASES) {
  test(`${c.name}: the run stops as target unusable (exit 3), naming the likely cause`, async () => {
    const run = await runSuiteWithOutcome({ baseUrl: await c.baseUrl(), key: KEY, profile: loadProfile(PROFILE), destructive: false, concurrency: 1, settings: { seed: 1, runs: 5 } });
    expect(run.outcome).toMatchObject({ status: 'target-unusable', exitCode: EXIT.TARGET_UNUSABLE });
    expect(`✗ TARGET UNUSABLE: ${run.halt?.reason ?? ''}`).toMatch(c.says);
  });
}

test('the real command: exit 3 in seconds at 10 requests a minute, naming the likely cause', { tag: '@e2e' }, async () => {
  const [c] = CASES;
  if (!c) throw new Error('no case');
  const baseUrl = await c.baseUrl();
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-wrong-base-'));
  cleanup.defer(() => rmSync(dir, { recursive: true, force: true }));
  const started = Date.now();
  const run = await runCliAsync(['run', '--base-url', baseUrl, '--target', PROFILE, '--smoke', '--seed', '1'], { env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_REPORT_DIR: dir, ISWC_RATE: '10/min' }) });
  const wall = Date.now() - started;
  expect(run.code, run.out).toBe(EXIT.TARGET_UNUSABLE);
  expect(run.out).toMatch(c.says);
  expect(run.out).toContain('exit code: 3 (target unusable)');
  const report = readReport(path.join(dir, 'conformance.json'));
  const ran = Date.parse(report.meta.finishedAt) - Date.parse(report.meta.startedAt);
  // In seconds, said by what was sent, never by the clock (a shared machine's load is no finding): a
  // handful of requests at 10 a minute, where the plan has over a hundred.
  console.log(`${c.name}: the run took ${ran} ms, the whole command ${wall} ms, ${report.meta.requests} requests`);
  expect(report.summary.outcome).toMatchObject({ status: 'target-unusable', exitCode: 3 });
  expect(report.summary.verdictText).toMatch(/^target unusable: the base URL/);
  // It stopped after its first answers (those in flight at the trip come back too), not at the end of the plan.
  expect(report.meta.requests).toBeLessThan(10);
  expect(report.meta.planned ?? 0).toBeGreaterThan(100);
});

/** A stub target: `answer(method, path, body)` gives each status. */
async function stub(answer: (method: string, path: string, body: string) => number): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const status = answer(req.method ?? '', (req.url ?? '/').split('?')[0] ?? '/', body);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? '{"runId":"r1"}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

async function watched(baseUrl: string, requests: Array<{ method: string; path: string; body?: string }>): Promise<string | undefined> {
  const client = createHttpClient({ baseUrl, key: KEY, routeWatch: { after: WRONG_BASE_AFTER, evidence: routeEvidence, reason: (seen) => wrongBasePathReason(baseUrl, seen) } });
  try {
    for (const r of requests) await client.send({ method: r.method, path: r.path, ...(r.body !== undefined ? { body: r.body, headers: { 'content-type': 'application/json' } } : {}) });
    return client.unusable();
  } finally {
    await client.close();
  }
}

const start = { method: 'POST', path: '/agent/run', body: '{"agentVersion":"1","agencyCode":"128"}' };
const end = { method: 'POST', path: '/agent/run', body: '{"agentVersion":"1","agencyCode":"128","runId":"unknown"}' };
const merge = { method: 'POST', path: '/iswc/merge', body: '{"iswcs":["T9999999994"]}' };
const remove = { method: 'DELETE', path: '/submission' };

test('the route watch never stops a conforming server: 404s for data it does not have, or for a run it never issued, are its own', async () => {
  // A server that has none of the data and issued no run: every merge, delete and end of run is 404; a start is not.
  const conforming = await stub((_method, p, body) => (p === '/agent/run' && !body.includes('runId') ? 200 : 404));
  expect(await watched(conforming, [merge, remove, end, merge, start, remove, merge])).toBeUndefined();
  // Without a run start among them, 404s alone prove nothing: the watch waits.
  const unknowable = await stub(() => 404);
  expect(await watched(unknowable, [merge, remove, end, merge, remove, end])).toBeUndefined();
  // One path alone is not every documented path.
  expect(await watched(unknowable, [start, start, start, start])).toBeUndefined();
  // Once anything but 404 came, the watch is over.
  let first = true;
  const once = await stub(() => (first ? ((first = false), 400) : 404));
  expect(await watched(once, [start, merge, remove, start, merge])).toBeUndefined();
  // Every documented path 404, a run start among them: the base path.
  expect(await watched(unknowable, [merge, start, remove])).toMatch(/^the base URL http:\/\/127\.0\.0\.1:\d+ has no path: a prefix is likely missing/);
});
