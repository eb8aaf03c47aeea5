import { cliInProcess, runCli } from '../support/cli.ts';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import type { Certificate } from '../../lib/report/certificate.ts';
import { UNSIGNED_INTEGRITY, buildCertificate, certificateDigest, documentSections, renderCertificateHtml, signCertificate, verifyCertificate } from '../../lib/report/certificate.ts';
import { publicKeyFromPem } from '../../lib/report/signature.ts';
import { sharedReport } from '../support/shared-report.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';


/** The command in this process: what a spawned command adds (its exit status) is proven by `spawned`, once per command and exit code. */
async function run(command: string, args: string[]): Promise<{ code: number; out: string }> {
  const result = await cliInProcess([command, ...args]);
  return { code: result.code, out: result.out };
}

/** The command as a user runs it, a process of its own. */
function spawned(command: string, args: string[]): { code: number; out: string } {
  const result = runCli([command, ...args]);
  return { code: result.code, out: result.out };
}

let clean: ConformanceReport;
let faulty: ConformanceReport;

// In order, in one worker: the tests share what test.beforeAll makes (whole runs), which every worker
// running one of them would otherwise make again.
test.describe.configure({ mode: 'default' });

test.beforeAll(async () => {
  // Whole runs, made here or by another file's worker while this one waits: a loaded machine takes minutes.
  test.setTimeout(240_000);
  [clean, faulty] = await Promise.all([sharedReport(), sharedReport({ faults: ['run-bad-request-text', 'merge-404-as-400'] })]);
});

test('a clean run certifies every tested section; every failure is listed with its section', () => {
  const cert = buildCertificate({ report: clean });
  // Which failures, if any: a clean run that fails is a flake or a regression to read, not to guess.
  const cleanFailures = clean.executions.filter((e) => e.verdict === 'fail').map((e) => `${e.checkId} ${e.caseId} ${e.format} ${e.step}: ${e.received ?? ''}`);
  expect(cert.verdict, cleanFailures.slice(0, 10).join('\n')).toBe('conformant');
  expect(cert.sections.filter((s) => s.document).map((s) => s.section)).toEqual(documentSections().map((s) => s.section));
  expect(cert.sections.find((s) => s.section === '4.1')?.verdict).toBe('conformant');
  expect(cert.sections.find((s) => s.section === '6')).toMatchObject({ verdict: 'not tested', reason: 'no check of the harness covers this section' });
  expect(verifyCertificate(cert).ok).toBe(true);

  const bad = buildCertificate({ report: faulty });
  expect(bad.verdict).toBe('not conformant');
  const failures = faulty.executions.filter((e) => e.verdict === 'fail');
  expect(bad.failures).toHaveLength(failures.length);
  expect(bad.failures.every((f) => f.sections.length > 0)).toBe(true);
  expect(bad.sections.find((s) => s.section === '4.1')?.verdict).toBe('not conformant');
  expect(bad.sections.find((s) => s.section === '4.2')?.verdict).toBe('not conformant');
  const html = renderCertificateHtml(bad);
  for (const id of new Set(failures.map((f) => f.checkId))) expect(html).toContain(id);
});

test('a section is tested when its spec checks were exercised: executions left out are noted; a spec check never exercised leaves it not tested', () => {
  const report: ConformanceReport = JSON.parse(JSON.stringify(clean)) as ConformanceReport;
  // One execution of a check of section 5 left out (a plan's choice): the check ran elsewhere.
  const target = report.executions.find((e) => e.sections.includes('5') && e.verdict === 'pass');
  if (!target) throw new Error('fixture: no passing check of section 5');
  target.verdict = 'skip';
  target.skipReason = 'not in the smoke plan';
  const partly = buildCertificate({ report });
  const s5 = partly.sections.find((s) => s.section === '5');
  expect(s5?.verdict).toBe('conformant');
  expect(s5?.reason).toContain('1 check execution(s) left out: not in the smoke plan');
  expect(verifyCertificate(partly).ok).toBe(true);
  // Every execution of that check skipped: the check was not exercised, the section not tested.
  for (const e of report.executions.filter((x) => x.checkId === target.checkId && x.verdict !== 'skip')) {
    e.verdict = 'skip';
    e.skipReason = 'non-destructive mode';
    delete e.received;
    delete e.failureId;
  }
  const cert = buildCertificate({ report });
  const s5b = cert.sections.find((s) => s.section === '5');
  expect(s5b?.verdict).toBe('not tested');
  expect(s5b?.reason).toContain(`${target.checkId} (`);
  expect(cert.verdict).toBe('incomplete');
  expect(verifyCertificate(cert).ok).toBe(true);
});

test('certify writes the certificate; certify:verify detects an edited verdict', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-cert-'));
  try {
    const reportFile = path.join(dir, 'conformance.json');
    writeFileSync(reportFile, JSON.stringify(faulty));
    const issued = spawned('certify', ['--target', 'fixtures/targets/embedded.json', '--report', reportFile, '--out', dir]);
    expect(issued.code, issued.out).toBe(1); // not conformant
    expect(issued.out).toContain('certificate: not conformant');
    const certFile = path.join(dir, 'certificate.json');
    expect(readFileSync(path.join(dir, 'certificate.html'), 'utf8')).toContain('not conformant');
    expect((await run('verify', [certFile, '--allow-unsigned'])).code).toBe(0);

    const cert = JSON.parse(readFileSync(certFile, 'utf8')) as Certificate;
    const edited = { ...cert, sections: cert.sections.map((s) => (s.section === '4.1' ? { ...s, verdict: 'conformant' as const } : s)) };
    writeFileSync(certFile, JSON.stringify(edited, null, 2));
    const verdict = spawned('verify', [certFile, '--allow-unsigned']);
    expect(verdict.code).toBe(1);
    expect(verdict.out).toContain('digest mismatch');

    // A single result flipped to pass, digest left alone: still detected.
    const flipped = { ...cert, results: cert.results.map((r) => (r[4] === 'fail' ? ([r[0], r[1], r[2], r[3], 'pass'] as typeof r) : r)) };
    writeFileSync(certFile, JSON.stringify(flipped));
    expect((await run('verify', [certFile, '--allow-unsigned'])).code).toBe(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Writes an Ed25519 key pair as PEM files, as `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout` would. */
function keyPair(dir: string, name: string): { privateKey: string; publicKey: string } {
  const pair = generateKeyPairSync('ed25519');
  const files = { privateKey: path.join(dir, `${name}.pem`), publicKey: path.join(dir, `${name}.pub.pem`) };
  writeFileSync(files.privateKey, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(files.publicKey, pair.publicKey.export({ type: 'spki', format: 'pem' }));
  return files;
}

/**
 * What a person can do with no project code: turn a failing certificate into a conformant one, point it at
 * another base URL, and recompute the digest (sorted keys, SHA-256), leaving the signature as it was.
 */
function forge(cert: Record<string, unknown>): Record<string, unknown> {
  const sortKeys = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sortKeys) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])])) : v;
  const results = cert.results as string[][];
  const sections = cert.sections as Array<Record<string, unknown>>;
  const edited: Record<string, unknown> = {
    ...cert,
    verdict: 'conformant',
    verdictText: 'conformant',
    failures: [],
    results: results.map((r) => (r[4] === 'fail' ? [...r.slice(0, 4), 'pass'] : r)),
    sections: sections.map((s) => (s.verdict === 'not conformant' ? { ...s, verdict: 'conformant', reason: undefined, checks: { ...(s.checks as object), fail: 0 } } : s)),
    target: { ...(cert.target as object), baseUrl: 'https://api.other-agency.example' },
  };
  const { digest, signature: _signature, ...content } = edited;
  const value = createHash('sha256').update(JSON.stringify(sortKeys(content))).digest('hex');
  return { ...edited, digest: { ...(digest as object), value } };
}

test('a signed certificate proves who issued it: an edit with a recomputed digest, or another key, fails verification', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-cert-sign-'));
  try {
    const issuer = keyPair(dir, 'issuer');
    const other = keyPair(dir, 'other');
    const reportFile = path.join(dir, 'conformance.json');
    writeFileSync(reportFile, JSON.stringify(faulty));
    const issued = await run('certify', ['--target', 'fixtures/targets/embedded.json', '--report', reportFile, '--out', dir, '--sign-key', issuer.privateKey]);
    expect(issued.code, issued.out).toBe(1); // not conformant, and signed
    expect(issued.out).toContain('signed ed25519 by sha256:');
    const certFile = path.join(dir, 'certificate.json');
    const text = readFileSync(certFile, 'utf8');
    expect(text).not.toContain('PRIVATE KEY');
    const cert = JSON.parse(text) as Certificate;
    expect(cert.signature?.algorithm).toBe('ed25519');
    expect(cert.integrity).toContain(`signed with Ed25519 by the key ${cert.signature?.publicKeyFingerprint}`);
    expect(readFileSync(path.join(dir, 'certificate.html'), 'utf8')).toContain(cert.signature?.publicKeyFingerprint ?? '?');

    const genuine = await run('verify', [certFile, '--public-key', issuer.publicKey]);
    expect(genuine.code, genuine.out).toBe(0);
    expect(genuine.out).toContain('signed by sha256:');
    // Signed by the issuer, checked against another key: refused.
    const wrongKey = await run('verify', [certFile, '--public-key', other.publicKey]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.out).toContain('not by the public key given');

    // The edit of the issue: a failing certificate made "conformant", another base URL, digest recomputed.
    const forged = forge(JSON.parse(text) as Record<string, unknown>);
    writeFileSync(certFile, JSON.stringify(forged, null, 2));
    const noKey = await run('verify', [certFile]);
    expect(noKey.code).toBe(1); // the digest is consistent, but a verify that checked no signature is no pass …
    expect(noKey.out).toContain('signature was NOT checked');
    expect(noKey.out).toContain('not verified');
    expect(noKey.out).not.toContain('unedited');
    const accepted = await run('verify', [certFile, '--allow-unsigned']);
    expect(accepted.code).toBe(0); // … unless asked for, and then it says so.
    expect(accepted.out).toContain('signature was NOT checked');
    expect(accepted.out).toContain('Accepted because of --allow-unsigned: this is not a proof of the issuer');
    const withKey = await run('verify', [certFile, '--public-key', issuer.publicKey]);
    expect(withKey.code).toBe(1); // … and the issuer's key finds the edit.
    expect(withKey.out).toContain('the signature does not match the certificate');

    // A forger who signs the edit with a key of their own still fails against the issuer's key.
    const resigned = signCertificate(forged as unknown as Certificate, generateKeyPairSync('ed25519').privateKey);
    const check = verifyCertificate(JSON.parse(JSON.stringify(resigned)), { publicKey: publicKeyFromPem(readFileSync(issuer.publicKey, 'utf8')) });
    expect(check.ok).toBe(false);
    expect(check.problems.join('\n')).toContain('not by the public key given');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unsigned certificate says in its own text that its digest only detects accidental edits', () => {
  const cert = buildCertificate({ report: faulty });
  expect(cert.signature).toBeUndefined();
  expect(cert.integrity).toBe(UNSIGNED_INTEGRITY);
  expect(cert.integrity).toContain('only detects accidental edits');
  expect(renderCertificateHtml(cert)).toContain('only detects accidental edits');
  expect(verifyCertificate(cert).ok).toBe(true);
  // Given a public key, an unsigned certificate fails: there is nothing to check it against.
  const key = generateKeyPairSync('ed25519').publicKey;
  const check = verifyCertificate(JSON.parse(JSON.stringify(cert)), { publicKey: key });
  expect(check.ok).toBe(false);
  expect(check.problems.join('\n')).toContain('not signed');
  // Claiming a signature in the text without carrying one is inconsistent.
  const claimed = verifyCertificate({ ...cert, integrity: 'signed with Ed25519 by the key sha256:00' });
  expect(claimed.problems.join('\n')).toContain('claims a signature');
});

test('the certificate carries the run identifiers the target issued', () => {
  const cert = buildCertificate({ report: clean });
  expect(cert.target.runIds.length).toBeGreaterThan(0);
  const answers = clean.executions.filter((e) => e.operation === 'notifyAgentRun' && e.exchange?.response?.status === 200).map((e) => e.exchange?.response?.body ?? '');
  for (const id of cert.target.runIds) expect(answers.some((body) => body.includes(id)), id).toBe(true);
  expect(new Set(cert.target.runIds).size).toBe(cert.target.runIds.length);
  // Runs the harness ended (their request named the runId) are not counted again as issued.
  const ended = clean.executions.filter((e) => e.operation === 'notifyAgentRun' && /runId/.test(e.exchange?.request.body ?? '') && e.exchange?.response?.status === 200);
  expect(ended.length).toBeGreaterThan(0);
});

test('a failure that does not gate (http, not strict) leaves the certificate conformant, and verify agrees; a gating flag that contradicts its level is caught', async () => {
  const report = await sharedReport({ faults: ['405-without-allow'] });
  expect(report.meta.strict).toBe(false);
  const cert = buildCertificate({ report });
  const http = cert.failures.filter((f) => f.level === 'http');
  expect(http.length).toBeGreaterThan(0);
  expect(http.every((f) => !f.gating)).toBe(true);
  expect(cert.verdict).toBe('conformant');
  expect(verifyCertificate(cert)).toMatchObject({ ok: true, problems: [] });
  // Edited so that a spec failure reads as not gating (digest recomputed): inconsistent.
  const edited = JSON.parse(JSON.stringify(cert)) as Certificate;
  const first = edited.failures[0];
  if (!first) throw new Error('fixture: no failure');
  first.level = 'spec';
  edited.digest.value = certificateDigest(edited);
  expect(verifyCertificate(edited).problems).toContain(`failure ${first.checkId} [spec] is marked not gating, but a spec failure gates`);
  expect(verifyCertificate(edited).problems).toContain('verdict "conformant" with gating failures or spec checks not exercised');
});

test('the command line: certify a run whose only failures do not gate, and verify it (exit 0 both)', async () => {
  const report = await sharedReport({ faults: ['405-without-allow'] });
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-cert-'));
  try {
    const reportFile = path.join(dir, 'conformance.json');
    writeFileSync(reportFile, JSON.stringify(report));
    const issued = spawned('certify', ['--target', 'fixtures/targets/embedded.json', '--report', reportFile, '--out', dir]);
    expect(issued.code, issued.out).toBe(0);
    const verified = spawned('verify', [path.join(dir, 'certificate.json'), '--allow-unsigned']);
    expect(verified.code, verified.out).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
