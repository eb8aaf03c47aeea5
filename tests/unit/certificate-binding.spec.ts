import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { profileDigest } from '../../lib/report/binding.ts';
import type { Certificate } from '../../lib/report/certificate.ts';
import { certificateDigest, renderCertificateHtml } from '../../lib/report/certificate.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { cliInProcess } from '../support/cli.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';

/**
 * Issue 16 §4: a certificate is bound to what was tested. `certify --report` refuses a run made with
 * another profile (by content, not name), agency, origin, harness, document, waivers, seed or plan, each
 * named; the certificate names its profile by digest, never by path; `verify` is no pass unless it
 * checked a signature, or was told --allow-unsigned.
 */

let report: ConformanceReport;
let dir: string;
let reportFile: string;
const EMBEDDED = fromRoot('fixtures', 'targets', 'embedded.json');

// In order, in one worker: the tests share what test.beforeAll makes (whole runs), which every worker
// running one of them would otherwise make again.
test.describe.configure({ mode: 'default' });

test.beforeAll(async () => {
  report = await inProcessReport({ faults: ['run-bad-request-text'], filter: (p) => p.def.operation === 'notifyAgentRun' && !p.def.id.startsWith('property.') });
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-binding-'));
  reportFile = path.join(dir, 'conformance.json');
  writeFileSync(reportFile, JSON.stringify(report));
});

test.afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writeProfile(name: string, change: (p: Record<string, unknown>) => Record<string, unknown>): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(change(JSON.parse(readFileSync(EMBEDDED, 'utf8')) as Record<string, unknown>), null, 2));
  return file;
}

function writeReport(name: string, change: (r: ConformanceReport) => void): string {
  const copy = JSON.parse(JSON.stringify(report)) as ConformanceReport;
  change(copy);
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(copy));
  return file;
}

const certify = (args: string[], env: NodeJS.ProcessEnv = {}) => cliInProcess(['certify', '--report', reportFile, '--out', dir, ...args], { env });

test('a forged profile of the same name and another agency is refused, naming the digest and the agency', async () => {
  const forged = writeProfile('forged', (p) => ({ ...p, agency: '021' }));
  expect(loadProfile(forged).name).toBe(report.meta.profile);
  const refused = await certify(['--target', forged]);
  expect(refused.code, refused.out).toBe(2);
  expect(refused.out).toContain('is not the run asked for; no certificate issued');
  expect(refused.out).toMatch(/profile: the run was made with profile "embedded" sha256:[0-9a-f]{16}…, not "embedded" sha256:[0-9a-f]{16}… \(--target .*forged\.json\)/);
  expect(refused.out).toContain('agency: the run was made as agency 128, not 021');
  // Same name, same agency, other content (another reason code): the digest alone refuses it.
  const edited = writeProfile('edited', (p) => ({ ...p, reasonCode: 'Other' }));
  const refusedEdit = await certify(['--target', edited]);
  expect(refusedEdit.code).toBe(2);
  expect(refusedEdit.out).toContain('profile: the run was made with profile "embedded"');
  expect(refusedEdit.out).not.toContain('agency:');
  // The same content reformatted is the same profile; so is one that points elsewhere for its schema.
  const reformatted = writeProfile('reformatted', (p) => ({ ...Object.fromEntries(Object.entries(p).reverse()), $schema: 'https://example.org/target-profile.schema.json' }));
  expect((await certify(['--target', reformatted])).code).toBe(1); // issued: not conformant
});

test('each binding that differs is refused by name: base URL, waivers, seed, runs, plan, strict, harness, document', async () => {
  const target = ['--target', EMBEDDED];
  const cases: Array<[string[], NodeJS.ProcessEnv, string]> = [
    [['--base-url', 'https://api.other.example/iswc'], {}, `base URL: the run was made against ${new URL(report.meta.baseUrl ?? '').origin}, not https://api.other.example (--base-url)`],
    [[], { ISWC_BASE_URL: 'http://127.0.0.1:1' }, 'not http://127.0.0.1:1 (ISWC_BASE_URL)'],
    [['--waivers', fromRoot('fixtures', 'waivers', 'production-deviations.yaml')], {}, 'waivers: the run was made without waivers, not with waivers sha256:'],
    [['--seed', '7'], {}, `seed: the run used seed ${report.meta.seed}, not 7 (--seed)`],
    [['--runs', '3'], {}, `runs per property: the run used ISWC_RUNS=${report.meta.runs}, not 3 (--runs)`],
    [['--smoke'], {}, 'plan: the run used plan full, not plan smoke (--smoke)'],
    [['--budget', '60'], {}, 'plan: the run used plan full, not plan full with a budget of 60 requests (--budget)'],
    [['--strict'], {}, 'strict: the run was not strict (ISWC_STRICT=0), not strict (--strict)'],
  ];
  for (const [args, env, message] of cases) {
    const refused = await certify([...target, ...args], env);
    expect(refused.code, `${args.join(' ')}: ${refused.out}`).toBe(2);
    expect(refused.out, args.join(' ')).toContain(message);
  }
  const olderHarness = writeReport('older-harness', (r) => {
    r.meta.harnessVersion = '0.0.9';
  });
  const harness = await cliInProcess(['certify', '--report', olderHarness, '--target', EMBEDDED, '--out', dir]);
  expect(harness.code).toBe(2);
  expect(harness.out).toContain('harness version: the run was made with iswc-conformance 0.0.9, this is');
  const otherDocument = writeReport('other-document', (r) => {
    r.meta.documentDigest = '0'.repeat(64);
  });
  const document = await cliInProcess(['certify', '--report', otherDocument, '--target', EMBEDDED, '--out', dir]);
  expect(document.code).toBe(2);
  expect(document.out).toContain('interface document: the run enforced the document sha256:0000000000000000…');
  // A report of an earlier harness records none of it: refused, with what to do.
  const unbound = writeReport('unbound', (r) => {
    delete r.meta.profileDigest;
    delete r.meta.agency;
    delete r.meta.waiversDigest;
  });
  const old = await cliInProcess(['certify', '--report', unbound, '--target', EMBEDDED, '--out', dir]);
  expect(old.code).toBe(2);
  expect(old.out).toContain('records no the profile digest, the agency, the waivers digest');
  expect(old.out).toContain('run the suite again with this harness');
  // What was asked and matches is accepted: the same settings stated explicitly.
  const same = await certify([...target, '--seed', String(report.meta.seed), '--runs', String(report.meta.runs)]);
  expect(same.code, same.out).toBe(1);
  expect(same.out).toContain('bound to: profile "embedded" sha256:');
});

test('the certificate names its profile by name and digest, never by a path, and carries every binding', async () => {
  const issued = await certify(['--target', path.relative(process.cwd(), EMBEDDED)]);
  expect(issued.code, issued.out).toBe(1);
  const text = readFileSync(path.join(dir, 'certificate.json'), 'utf8');
  expect(text).not.toContain('fixtures/targets');
  expect(text).not.toContain('embedded.json');
  const cert = JSON.parse(text) as Certificate;
  expect(cert.certificateVersion).toBe(4);
  const digest = profileDigest(loadProfile(EMBEDDED));
  expect(cert.target.profile).toEqual({ name: 'embedded', digest });
  expect(cert.binding).toEqual({
    profile: { name: 'embedded', digest },
    agency: '128',
    origin: new URL(report.meta.baseUrl ?? '').origin,
    harnessVersion: report.meta.harnessVersion,
    documentDigest: report.meta.documentDigest,
    waiversDigest: null,
    seed: report.meta.seed,
    runs: report.meta.runs,
    plan: { name: 'full', budget: null },
    strict: false,
  });
  const html = readFileSync(path.join(dir, 'certificate.html'), 'utf8');
  expect(html).toContain(`"embedded" <code>sha256:${digest}</code>`);
  expect(html).toContain('id="binding"');
  expect(html).not.toContain('embedded.json');
  expect(renderCertificateHtml(cert)).toBe(html);
});

test('verify without a key is no pass; --allow-unsigned accepts and says so; a version-3 certificate is still read', async () => {
  const issued = await certify(['--target', EMBEDDED]);
  expect(issued.code).toBe(1);
  const certFile = path.join(dir, 'certificate.json');
  const noKey = await cliInProcess(['verify', certFile]);
  expect(noKey.code).toBe(1);
  expect(noKey.out).toContain('UNSIGNED: nothing proves who issued it');
  expect(noKey.out).toContain('not verified');
  const allowed = await cliInProcess(['verify', certFile, '--allow-unsigned']);
  expect(allowed.code).toBe(0);
  expect(allowed.out).toContain('Accepted because of --allow-unsigned: this is not a proof of the issuer');
  const both = await cliInProcess(['verify', certFile, '--allow-unsigned', '--public-key', certFile]);
  expect(both.code).toBe(2);
  expect(both.out).toContain('give one of them');

  // Signed, checked with the key: 0; without the key: 1 again.
  const pair = generateKeyPairSync('ed25519');
  const keyFile = path.join(dir, 'issuer.pem');
  const pubFile = path.join(dir, 'issuer.pub.pem');
  writeFileSync(keyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(pubFile, pair.publicKey.export({ type: 'spki', format: 'pem' }));
  expect((await certify(['--target', EMBEDDED, '--sign-key', keyFile])).code).toBe(1);
  expect((await cliInProcess(['verify', certFile, '--public-key', pubFile])).code).toBe(0);
  // The issuer's private key given as the public one is refused: the verifier must never hold it.
  const privateGiven = await cliInProcess(['verify', certFile, '--public-key', keyFile]);
  expect(privateGiven.code).toBe(2);
  expect(privateGiven.stderr).toContain(`verify: --public-key ${keyFile}: it holds a PRIVATE key: give the issuer's public key (openssl pkey -in issuer.pem -pubout -out issuer.pub.pem)`);
  const signedNoKey = await cliInProcess(['verify', certFile]);
  expect(signedNoKey.code).toBe(1);
  expect(signedNoKey.out).toContain('the signature was NOT checked (no --public-key)');

  // A binding edited after issue, digest recomputed: verify finds the agency no longer agrees.
  const cert = JSON.parse(readFileSync(certFile, 'utf8')) as Certificate;
  const { signature: _s, ...unsigned } = cert;
  const edited = { ...unsigned, integrity: 'unsigned: the digest only detects accidental edits; anyone who edits this file can recompute it, so it proves nothing about who issued the certificate or whether its results are genuine', agency: { ...cert.agency, code: '021' } };
  const recomputed = { ...edited, digest: { ...cert.digest, value: certificateDigest(edited) } };
  writeFileSync(certFile, JSON.stringify(recomputed));
  const inconsistent = await cliInProcess(['verify', certFile, '--allow-unsigned']);
  expect(inconsistent.code).toBe(1);
  expect(inconsistent.out).toContain("agency 021 differs from the binding's agency 128");

  // A version-3 certificate (no binding) is read, and said to be unbound.
  const { binding: _b, ...v3 } = { ...unsigned, certificateVersion: 3 as const };
  const v3cert = { ...v3, integrity: edited.integrity, target: { ...cert.target, file: 'fixtures/targets/embedded.json' } };
  writeFileSync(certFile, JSON.stringify({ ...v3cert, digest: { ...cert.digest, value: certificateDigest(v3cert as unknown as Certificate) } }));
  const older = await cliInProcess(['verify', certFile, '--allow-unsigned']);
  expect(older.code, older.out).toBe(0);
  expect(older.out).toContain('certificateVersion 3 was issued before certificates were bound');
  writeFileSync(certFile, JSON.stringify({ ...v3cert, certificateVersion: 9 }));
  expect((await cliInProcess(['verify', certFile, '--allow-unsigned'])).out).toContain('certificateVersion 9 is not one this harness reads');
});
