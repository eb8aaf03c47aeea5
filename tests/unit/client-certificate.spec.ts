import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
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

// In order, in one worker: the tests share what test.beforeAll makes (whole runs), which every worker
// running one of them would otherwise make again.
test.describe.configure({ mode: 'default' });

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-client-cert-'));
  // A client that only deletes, and says so.
  const parsed = parseSandboxArgs(['--port', '0', '--report-dir', dir, '--inject', '429@1', '--operations', 'delete'], { ISWC_SANDBOX_KEY: KEY });
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
  expect(issued.stdout).toContain('client certificate: conformant: submission delete succeeded; ');
  expect(issued.stdout).toContain('✓ submission delete: 2 sent, 1 succeeded');
  expect(issued.stdout).toContain('trouble 429 on request 1: survived');
  expect(issued.stdout).toContain('signed ed25519 by sha256:');
  const file = path.join(dir, 'client-certificate.json');
  const cert = JSON.parse(readFileSync(file, 'utf8')) as ClientCertificate;
  expect(cert).toMatchObject({ kind: 'iswc-conformance-client-certificate', certificateVersion: 2, verdict: 'conformant', client: { agency: '128', userAgent: 'agency-tool/2.3' }, troubleSurvived: ['429'], session: { requests: 2 } });
  // What was exercised, and what was declared.
  expect(cert.declared).toEqual({ operations: ['deleteSubmission'], formats: null });
  expect(cert.exercised).toEqual([{ operation: 'deleteSubmission', format: 'none', requests: 2, succeeded: 1, declared: true }]);
  expect(cert.trouble).toEqual([{ kind: '429', request: 1, operation: 'deleteSubmission', survived: true, survivedBy: 2 }]);
  expect(cert.checks.map((c) => c.id)).toContain('client.retry-after');
  // A session of deletes never sent a body: the body checks are not covered, and the certificate says so.
  expect(cert.notExercised).toContain('client.body.syntax');
  const html = readFileSync(path.join(dir, 'client-certificate.html'), 'utf8');
  expect(html).toContain('agency-tool/2.3');
  expect(html).toMatch(/<tr class="exercised" data-operation="deleteSubmission" data-format="none"><td>submission delete<\/td><td>2<\/td><td>1<\/td>/);
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
  // A "conformant" certificate whose declared operation never succeeded is refused, digest aside.
  const hollow = { ...cert, exercised: (cert.exercised ?? []).map((c) => ({ ...c, succeeded: 0 })) };
  expect(verifyClientCertificate(hollow).problems.join('\n')).toContain('verdict "conformant" with declared operations that never succeeded: submission delete');
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
  const future = { ...cert, certificateVersion: 3 };
  expect(verifyClientCertificate(future).problems.join('\n')).toContain('certificateVersion 3 is not one this harness reads (1 or 2)');
  expect(verifyClientCertificate(cert).problems).toEqual([]);
});

/** A sandbox session driven by `drive`; returns its report file. */
async function sessionOf(name: string, args: string[], drive: (url: string) => Promise<void>): Promise<string> {
  const out = path.join(dir, name);
  const parsed = parseSandboxArgs(['--port', '0', '--report-dir', out, ...args], { ISWC_SANDBOX_KEY: KEY });
  if (parsed.kind !== 'run') throw new Error('bad arguments');
  const running = await startSandbox(parsed.options);
  await drive(running.url);
  await running.stop();
  return path.join(out, 'client-conformance.json');
}

test('a client refused on every request (acting for agency 058 against a profile of 128) is not conformant, with the reason, and gets no certificate', async () => {
  const report = await sessionOf('foreign', [], async (url) => {
    const headers = { 'Ocp-Apim-Subscription-Key': KEY, 'Content-Type': 'application/json' };
    const answers = [
      await fetch(`${url}/agent/run`, { method: 'POST', headers, body: JSON.stringify({ agentVersion: 'a 1.0', agencyCode: '058', updateRecordCount: 0, newRecordCount: 0, overallRejected: 0, overallSent: 0, successfulCount: 0, businessRejectionCount: 0, technicalRejectionCount: 0 }) }),
      await fetch(`${url}/iswc/merge?preferredIswc=T3100000004&agency=058`, { method: 'POST', headers, body: JSON.stringify({ iswcs: ['T3100000015'] }) }),
      await fetch(`${url}/iswc/merge?preferredIswc=T3200000002&agency=058&workcode=IM00800100`, { method: 'DELETE', headers }),
      await fetch(`${url}/submission?preferredIswc=T3300000000&agency=058&workcode=IM00900100&sourceDb=58&reasonCode=EdiV1`, { method: 'DELETE', headers }),
    ];
    // The key acts for 128 (production's choices: another agency is refused; an unknown sourceDb first).
    expect(answers.map((a) => a.status)).toEqual([403, 403, 403, 400]);
  });
  const { readClientReport } = await import('../../lib/report/client/validate.ts');
  const r = readClientReport(report);
  expect(r.verdict).toBe('not conformant');
  expect(r.checks.gatingFailures).toBe(0);
  expect(r.verdictText).toBe('not conformant: nothing succeeded: every one of the 4 requests of the documented operations was refused (403 ×3, 400 ×1)');
  expect(r.coverage.missing.map((m) => m.operation)).toEqual(['notifyAgentRun', 'mergeIswcMetadata', 'deleteSubmission', 'demergeIswcMetadata']);
  const refused = await cliInProcess(['certify', '--client', report]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('no client certificate: the session of');
  expect(refused.stderr).toContain('every one of the 4 requests of the documented operations was refused (403 ×3, 400 ×1)');
  expect(existsSync(path.join(path.dirname(report), 'client-certificate.json'))).toBe(false);
});

test('a client that never demerges is not conformant ("demerge never sent") unless it declares what it does; the certificate states what was exercised', async () => {
  const drive = async (url: string): Promise<void> => {
    const headers = { 'Ocp-Apim-Subscription-Key': KEY, 'Content-Type': 'application/json' };
    const run = await fetch(`${url}/agent/run`, { method: 'POST', headers, body: JSON.stringify({ agentVersion: 'a 1.0', agencyCode: '128', updateRecordCount: 0, newRecordCount: 0, overallRejected: 0, overallSent: 0, successfulCount: 0, businessRejectionCount: 0, technicalRejectionCount: 0 }) });
    const { runId } = (await run.json()) as { runId: string };
    expect((await fetch(`${url}/iswc/merge?preferredIswc=T3100000004&agency=128`, { method: 'POST', headers, body: JSON.stringify({ iswcs: ['T3100000015'], agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'IM00700100' }] }) })).status).toBe(204);
    expect((await fetch(`${url}/submission?preferredIswc=T3300000000&agency=128&workcode=IM00900100&sourceDb=128&reasonCode=EdiV1`, { method: 'DELETE', headers })).status).toBe(204);
    expect((await fetch(`${url}/agent/run`, { method: 'POST', headers, body: JSON.stringify({ agentVersion: 'a 1.0', agencyCode: '128', runId, updateRecordCount: 0, newRecordCount: 0, overallRejected: 0, overallSent: 2, successfulCount: 2, businessRejectionCount: 0, technicalRejectionCount: 0 }) })).status).toBe(200);
  };
  const all = await sessionOf('no-demerge', [], drive);
  const { readClientReport } = await import('../../lib/report/client/validate.ts');
  expect(readClientReport(all).verdictText).toBe('not conformant: demerge never sent');
  const refused = await cliInProcess(['certify', '--client', all]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('is not conformant: demerge never sent');

  const declared = await sessionOf('declared', ['--operations', 'run,merge,delete'], drive);
  expect(readClientReport(declared).verdictText).toBe('conformant: run notification JSON, merge JSON, submission delete succeeded');
  const issued = await cliInProcess(['certify', '--client', declared]);
  expect(issued.code, issued.out).toBe(0);
  expect(issued.stdout).toContain('client certificate: conformant: run notification JSON, merge JSON, submission delete succeeded;');
  const cert = JSON.parse(readFileSync(path.join(path.dirname(declared), 'client-certificate.json'), 'utf8')) as ClientCertificate;
  expect(cert.exercised).toEqual([
    { operation: 'notifyAgentRun', format: 'json', requests: 2, succeeded: 2, declared: true },
    { operation: 'mergeIswcMetadata', format: 'json', requests: 1, succeeded: 1, declared: true },
    { operation: 'deleteSubmission', format: 'none', requests: 1, succeeded: 1, declared: true },
  ]);
  expect(verifyClientCertificate(cert).problems).toEqual([]);

  // Declared in XML too (--formats json,xml): JSON alone is not enough.
  const both = await sessionOf('both-formats', ['--operations', 'run,merge,delete', '--formats', 'json,xml'], drive);
  expect(readClientReport(both).verdictText).toBe('not conformant: run notification XML never sent; merge XML never sent');
});

test('a client report of an older version is refused with what to do, exit 2', async () => {
  const old = path.join(dir, 'old-report.json');
  writeFileSync(old, JSON.stringify({ kind: 'iswc-conformance-client-report', reportVersion: 1 }));
  const refused = await cliInProcess(['certify', '--client', old]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('is a client report of version 1, written by an older iswc-conformance');
});

test('without --strict, a client that ignores Retry-After still certifies, and the verdict line, the HTML and the certificate count every failed check with what --strict makes of it; a certificate that hides one is refused', async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'iswc-client-cert-lenient-'));
  try {
    // Told to wait 2 s, the client sends the same delete again at once, on a new connection: caught, not gating.
    const parsed = parseSandboxArgs(['--port', '0', '--report-dir', out, '--inject', '429@1', '--operations', 'delete'], { ISWC_SANDBOX_KEY: KEY });
    if (parsed.kind !== 'run') throw new Error('bad arguments');
    const running = await startSandbox(parsed.options);
    const { request } = await import('node:http');
    const target = `${running.url}/submission?preferredIswc=T3300000000&agency=128&workcode=IM00900100&sourceDb=128&reasonCode=EdiV1`;
    const send = () =>
      new Promise<number>((resolve, reject) => {
        const req = request(target, { method: 'DELETE', agent: false, headers: { 'Ocp-Apim-Subscription-Key': KEY } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await send()).toBe(429);
    expect(await send()).toBe(204);
    const { report } = await running.stop();
    expect(report.verdict).toBe('conformant');
    expect(report.notGating).toEqual({ checks: [{ id: 'client.retry-after', level: 'http', failed: 1 }], failures: 1, withStrict: 'not conformant' });
    expect(report.verdictText).toBe('conformant: submission delete succeeded; 1 http client check failed once, not gating without --strict (client.retry-after ×1): with --strict, not conformant');
    expect(readFileSync(path.join(out, 'client-conformance.html'), 'utf8')).toContain('<p id="not-gating" class="v-fail">Failed, not gating: 1 http client check failed once, not gating without --strict (client.retry-after ×1): with --strict, not conformant.</p>');

    const issued = await cliInProcess(['certify', '--client', path.join(out, 'client-conformance.json')]);
    expect(issued.code, issued.out).toBe(0);
    expect(issued.stdout).toContain('client certificate: conformant: submission delete succeeded; ');
    expect(issued.stdout).toContain('client checks judged, of which 1 http client check failed once, not gating without --strict (client.retry-after ×1): with --strict, not conformant');
    expect(issued.stdout).toContain('✗ failed, not gating: 1 http client check failed once');
    const cert = JSON.parse(readFileSync(path.join(out, 'client-certificate.json'), 'utf8')) as ClientCertificate;
    expect(cert.notGating?.checks.map((c) => c.id)).toEqual(['client.retry-after']);
    expect(verifyClientCertificate(cert).problems).toEqual([]);
    expect(readFileSync(path.join(out, 'client-certificate.html'), 'utf8')).toContain('<p id="not-gating">Failed, not gating: 1 http client check failed once');
    // A certificate that leaves the failure out of what it lists is refused, digest aside.
    const hiding = { ...cert, notGating: { checks: [], failures: 0, withStrict: 'conformant' as const } };
    expect(verifyClientCertificate(hiding).problems.join('\n')).toContain('checks that failed without gating (client.retry-after) are not those the certificate lists (none)');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('where production as built answers otherwise (a JSON body without Content-Type: 415 there), the session records it whatever --choices says, and the certificate lists it', async () => {
  for (const choices of ['production', 'reference']) {
    const out = mkdtempSync(path.join(tmpdir(), 'iswc-client-cert-production-'));
    try {
      const parsed = parseSandboxArgs(['--port', '0', '--report-dir', out, '--operations', 'merge', '--choices', choices], { ISWC_SANDBOX_KEY: KEY });
      if (parsed.kind !== 'run') throw new Error('bad arguments');
      const running = await startSandbox(parsed.options);
      const { request } = await import('node:http');
      // Merge T2010000117 into T0345246801, the first merge of the client profile, with no Content-Type.
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${running.url}/iswc/merge?preferredIswc=T0345246801&agency=128`, { method: 'POST', headers: { 'Ocp-Apim-Subscription-Key': KEY } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ iswcs: ['T2010000117'] }));
      });
      expect(status, choices).toBe(204);
      const { report } = await running.stop();
      expect(report.verdict, choices).toBe('conformant');
      expect(report.verdictText, choices).toContain('1 where production as built answers otherwise');
      expect(report.observations.filter((o) => o.check === 'client.production-as-built').map((o) => o.received), choices).toEqual([
        expect.stringMatching(/^production as built answers 415 .* where the sandbox answered 204: the body was sent without Content-Type$/),
      ]);
      const issued = await cliInProcess(['certify', '--client', path.join(out, 'client-conformance.json')]);
      expect(issued.code, issued.out).toBe(0);
      expect(issued.stdout).toContain('; production as built answers 1 request otherwise');
      expect(issued.stdout).toMatch(/observed client\.production-as-built on merge JSON ×1: #1 production as built answers 415/);
      const cert = JSON.parse(readFileSync(path.join(out, 'client-certificate.json'), 'utf8')) as ClientCertificate;
      expect(cert.observations?.[0]).toMatchObject({ check: 'client.production-as-built', operation: 'mergeIswcMetadata', count: 1, request: 1 });
      expect(readFileSync(path.join(out, 'client-certificate.html'), 'utf8')).toContain('<tr class="observation" data-check="client.production-as-built">');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
});
