/**
 * compat on a company network, as a run goes there (tests/unit/network-run.spec.ts): the real command, a
 * process of its own, replays an agency's session against a build behind a TLS front whose certificate a CA
 * made by the test signed, through a forward proxy that demands credentials, the CA given (or not) in
 * NODE_EXTRA_CA_CERTS, which Node reads only at process start.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { CompatReport } from '../../lib/report/compat/model.ts';
import { startReferenceServer } from '../../server/index.ts';
import { Cleanup } from '../../server/hostile/servers.ts';
import { recordAgencyDay, THREE_AGENCIES } from '../support/agency-sessions.ts';
import { runCliAsync } from '../support/cli.ts';
import { forwardProxy } from '../support/forward-proxy.ts';
import { childEnv } from '../support/run-playwright.ts';
import { hasOpenssl, makeTestPki, tlsFront } from '../support/tls.ts';

test.describe.configure({ mode: 'serial', timeout: 180_000 });

const KEY = 'compat-network-key-5d20a7c3e9';
const CREDENTIALS = { user: 'agency-bot', password: 'pr0xy-compat-pa55-7b2c' };
const PROFILE = fromRoot('fixtures/targets/sandbox-client.json');

const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-compat-network-'));
  cleanup.defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** One agency's day (SACEM, XML) recorded through the sandbox, and the build: the reference server behind a TLS front. */
async function sessionAndBuild(): Promise<{ dir: string; sessions: string; pki: ReturnType<typeof makeTestPki>; front: { url: string; port: number } }> {
  const dir = tempDir();
  const sessions = path.join(dir, 'sessions');
  const standIn = THREE_AGENCIES['058'];
  if (!standIn) throw new Error('no stand-in for 058');
  await recordAgencyDay(path.join(sessions, '058'), standIn, 'compat-network-sandbox-key');
  const pki = makeTestPki();
  cleanup.defer(() => pki.remove());
  const server = cleanup.add(await startReferenceServer({ profile: loadProfile(PROFILE), key: KEY }));
  const front = cleanup.add(await tlsFront(pki, server.port));
  return { dir, sessions, pki, front };
}

test('https:// through a proxy that demands credentials, the CA in NODE_EXTRA_CA_CERTS: replayed and compatible, the proxy saw only tunnels, no secret anywhere', async () => {
  test.skip(!hasOpenssl(), 'openssl is not installed: no test CA can be made');
  const { dir, sessions, pki, front } = await sessionAndBuild();
  const proxy = cleanup.add(await forwardProxy({ auth: CREDENTIALS }));
  const out = path.join(dir, 'reports');
  const env = childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, HTTPS_PROXY: proxy.uri(CREDENTIALS), NODE_EXTRA_CA_CERTS: pki.caFile, ISWC_BASE_URL: undefined, ISWC_TARGET: undefined, ISWC_RATE: undefined, ISWC_REPORT_DIR: undefined });
  const run = await runCliAsync(['compat', '--sessions', sessions, '--base-url', front.url, '--target', PROFILE, '--report-dir', out], { env, cwd: dir });
  expect(run.code, run.out).toBe(0);
  const report = JSON.parse(readFileSync(path.join(out, 'compat.json'), 'utf8')) as CompatReport;
  expect(report.agencies.map((a) => [a.agency, a.verdict])).toEqual([['058', 'compatible']]);
  expect(report.figures.requests.sent).toBeGreaterThan(0);
  // Every request went through a CONNECT tunnel to the front, with the proxy's credentials.
  expect(proxy.log.length).toBeGreaterThan(0);
  expect(proxy.log.every((e) => e.kind === 'connect' && e.target === `127.0.0.1:${front.port}` && e.status === 200)).toBe(true);
  const secrets = [KEY, CREDENTIALS.password, 'compat-network-sandbox-key'];
  for (const f of filesUnder(dir)) {
    const text = readFileSync(f, 'latin1');
    for (const s of secrets) expect(text.includes(s), `${path.relative(dir, f)}: ${s}`).toBe(false);
  }
  for (const s of secrets) expect(run.out.includes(s), s).toBe(false);
});

test('the same build without NODE_EXTRA_CA_CERTS: exit 3, the TLS failure said with what to do, the reports written, never a crash', async () => {
  test.skip(!hasOpenssl(), 'openssl is not installed: no test CA can be made');
  const { dir, sessions, front } = await sessionAndBuild();
  const out = path.join(dir, 'reports');
  const env = childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_BASE_URL: undefined, ISWC_TARGET: undefined, ISWC_RATE: undefined, ISWC_REPORT_DIR: undefined });
  const run = await runCliAsync(['compat', '--sessions', sessions, '--base-url', front.url, '--target', PROFILE, '--report-dir', out], { env, cwd: dir });
  expect(run.code, run.out).toBe(3);
  expect(run.out).toContain('give the CA as a PEM file in NODE_EXTRA_CA_CERTS');
  expect(run.out).not.toMatch(/\n\s+at .*\.(ts|js):\d+/);
  const report = JSON.parse(readFileSync(path.join(out, 'compat.json'), 'utf8')) as CompatReport;
  expect(report.outcome.halt?.kind).toBe('target-unusable');
  expect(report.outcome.exitCode).toBe(3);
  // The network's doing is no verdict on the build: nothing is broken, the request that never reached it says why.
  expect(report.exchanges.filter((e) => e.verdict === 'broken')).toEqual([]);
  expect(report.exchanges[0]?.reasons[0]).toMatch(/^not judged: the build was found unusable \(no TLS connection could be made \(3 attempts\): the TLS certificate of https:\/\/127\.0\.0\.1:\d+ was not accepted/);
  expect(report.agencies.map((a) => a.verdict)).not.toContain('broken');
});
