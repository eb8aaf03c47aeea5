import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { ClientCertificate } from '../../lib/report/client/certificate.ts';
import { verifyClientCertificate } from '../../lib/report/client/certificate.ts';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { startSandbox } from '../../lib/sandbox/run.ts';
import { cliInProcess } from '../support/cli.ts';

/**
 * A client certificate: issued from a sandbox session's client-conformance.json by `certify --client`,
 * signed with --sign-key, and checked by the same `verify` as the server certificate.
 */

const KEY = 'client-cert-key-0f9e8d7c6b';
let dir = '';

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-client-cert-'));
  const parsed = parseSandboxArgs(['--port', '0', '--report-dir', dir, '--inject', '429@1'], { ISWC_SANDBOX_KEY: KEY });
  if (parsed.kind !== 'run') throw new Error('bad arguments');
  const running = await startSandbox(parsed.options);
  const send = () => fetch(`${running.url}/submission?preferredIswc=T3300000000&agency=128&workcode=IM00900100&sourceDb=128&reasonCode=EdiV1`, { method: 'DELETE', headers: { 'Ocp-Apim-Subscription-Key': KEY, 'User-Agent': 'agency-tool/2.3' } });
  expect((await send()).status).toBe(429);
  await new Promise((r) => setTimeout(r, 2050));
  expect((await send()).status).toBe(204);
  await running.stop();
  const pair = generateKeyPairSync('ed25519');
  writeFileSync(path.join(dir, 'issuer.pem'), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(path.join(dir, 'issuer.pub.pem'), pair.publicKey.export({ type: 'spki', format: 'pem' }));
  writeFileSync(path.join(dir, 'other.pub.pem'), generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
});

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('certify --client issues a signed certificate: agency, User-Agent, checks exercised, trouble survived; verify checks it', async () => {
  const issued = await cliInProcess(['certify', '--client', path.join(dir, 'client-conformance.json'), '--sign-key', path.join(dir, 'issuer.pem')]);
  expect(issued.code, issued.out).toBe(0);
  expect(issued.stdout).toContain('client certificate: conformant on');
  expect(issued.stdout).toContain('trouble 429 on request 1: survived');
  expect(issued.stdout).toContain('signed ed25519 by sha256:');
  const file = path.join(dir, 'client-certificate.json');
  const cert = JSON.parse(readFileSync(file, 'utf8')) as ClientCertificate;
  expect(cert).toMatchObject({ kind: 'iswc-conformance-client-certificate', verdict: 'conformant', client: { agency: '128', userAgent: 'agency-tool/2.3' }, troubleSurvived: ['429'], session: { requests: 2 } });
  expect(cert.checks.map((c) => c.id)).toContain('client.retry-after');
  // A session of deletes never sent a body: the body checks are not covered, and the certificate says so.
  expect(cert.notExercised).toContain('client.body.syntax');
  expect(readFileSync(path.join(dir, 'client-certificate.html'), 'utf8')).toContain('agency-tool/2.3');
  for (const f of ['client-certificate.json', 'client-certificate.html']) expect(readFileSync(path.join(dir, f), 'utf8')).not.toContain(KEY);

  const verified = await cliInProcess(['verify', file, '--public-key', path.join(dir, 'issuer.pub.pem')]);
  expect(verified.code, verified.out).toBe(0);
  expect(verified.stdout).toContain('and unedited since');
  const other = await cliInProcess(['verify', file, '--public-key', path.join(dir, 'other.pub.pem')]);
  expect(other.code).toBe(1);
  expect(other.stderr).toContain('not by the public key given');

  // An edit with the digest recomputed still breaks the signature.
  const edited = { ...cert, client: { ...cert.client, userAgent: 'someone-else/1.0' } };
  const { sha256Hex, canonicalJson } = await import('../../lib/report/canonical.ts');
  const { digest: _d, signature: _s, ...content } = edited;
  edited.digest = { ...cert.digest, value: sha256Hex(canonicalJson(content)) };
  const check = verifyClientCertificate(edited, { publicKey: (await import('node:crypto')).createPublicKey(readFileSync(path.join(dir, 'issuer.pub.pem'), 'utf8')) });
  expect(check.ok).toBe(false);
  expect(check.problems.join('\n')).toContain('the signature does not match');
});

test('an unsigned client certificate is consistent but says what it proves; a flipped verdict is caught', async () => {
  const out = path.join(dir, 'unsigned');
  const issued = await cliInProcess(['certify', '--client', path.join(dir, 'client-conformance.json'), '--out', out]);
  expect(issued.code, issued.out).toBe(0);
  const file = path.join(out, 'client-certificate.json');
  // A verify that checked no signature is no pass, unless --allow-unsigned says that is what is wanted.
  const unchecked = await cliInProcess(['verify', file]);
  expect(unchecked.code).toBe(1);
  expect(unchecked.stderr).toContain('UNSIGNED');
  const verified = await cliInProcess(['verify', file, '--allow-unsigned']);
  expect(verified.code).toBe(0);
  expect(verified.stdout).toContain('UNSIGNED');
  expect(verified.stdout).toContain('Accepted because of --allow-unsigned');
  const cert = JSON.parse(readFileSync(file, 'utf8')) as ClientCertificate;
  const flipped = { ...cert, verdict: 'not conformant' as const };
  expect(verifyClientCertificate(flipped).problems.join('\n')).toMatch(/digest mismatch[\s\S]*without a failing gating check/);
});

test('certify --client refuses run options and missing files, exit 2', async () => {
  const mixed = await cliInProcess(['certify', '--client', path.join(dir, 'client-conformance.json'), '--strict']);
  expect(mixed.code).toBe(2);
  expect(mixed.stderr).toContain('--strict applies to a run of the suite');
  const missing = await cliInProcess(['certify', '--client', path.join(dir, 'nope.json')]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('no client report at');
});

test('a session in which the client sent nothing is incomplete: exit 1, no certificate, said plainly; verify refuses a "conformant" one of no request and an unknown certificateVersion', async () => {
  const empty = path.join(dir, 'empty');
  const parsed = parseSandboxArgs(['--report-dir', empty], { ISWC_SANDBOX_KEY: KEY });
  if (parsed.kind !== 'run') throw new Error('bad arguments');
  const running = await startSandbox(parsed.options);
  const result = await running.stop();
  expect(result.exitCode).toBe(1);
  expect(result.report).toMatchObject({ verdict: 'incomplete', requests: 0 });
  expect(result.report.verdictText).toContain('the client sent no request');
  const { clientReportViolations } = await import('../../lib/report/client/validate.ts');
  expect(clientReportViolations(JSON.parse(readFileSync(path.join(empty, 'client-conformance.json'), 'utf8')))).toEqual([]);
  const refused = await cliInProcess(['certify', '--client', path.join(empty, 'client-conformance.json')]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('no client certificate: the session');
  expect(refused.stderr).toContain('judged no request of the client');
  expect(existsSync(path.join(empty, 'client-certificate.json'))).toBe(false);

  // A certificate of a real session, edited into one of no request: verify says so (digest aside).
  const { readClientReport } = await import('../../lib/report/client/validate.ts');
  const { buildClientCertificate } = await import('../../lib/report/client/certificate.ts');
  const cert = buildClientCertificate(readClientReport(path.join(dir, 'client-conformance.json')));
  const nothing = { ...cert, checks: [], session: { ...cert.session, requests: 0 } };
  expect(verifyClientCertificate(nothing).problems.join('\n')).toContain('verdict "conformant" on a session that judged no request');
  const future = { ...cert, certificateVersion: 2 };
  expect(verifyClientCertificate(future).problems.join('\n')).toContain('certificateVersion 2 is not one this harness reads (1)');
  expect(verifyClientCertificate(cert).problems).toEqual([]);
});
