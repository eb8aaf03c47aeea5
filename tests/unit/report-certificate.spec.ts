import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Certificate } from '../../lib/report/certificate.ts';
import { buildCertificate, documentSections, renderCertificateHtml, verifyCertificate } from '../../lib/report/certificate.ts';
import { inProcessReport } from '../support/in-process.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { repoRoot } from '../../lib/paths.ts';

const TSX = path.join(repoRoot, 'node_modules', '.bin', 'tsx');

function run(script: string, args: string[]): { code: number; out: string } {
  try {
    const out = execFileSync(TSX, [path.join(repoRoot, 'scripts', script), ...args], { cwd: repoRoot, encoding: 'utf8', stdio: 'pipe' });
    return { code: 0, out };
  } catch (err) {
    const e = err as { status: number | null; stdout: string; stderr: string };
    return { code: e.status ?? 1, out: `${e.stdout}${e.stderr}` };
  }
}

let clean: ConformanceReport;
let faulty: ConformanceReport;

test.beforeAll(async () => {
  [clean, faulty] = await Promise.all([inProcessReport(), inProcessReport({ faults: ['run-bad-request-text', 'merge-404-as-400'] })]);
});

test('a clean run certifies every tested section; every failure is listed with its section', () => {
  const cert = buildCertificate({ report: clean, agency: '128', targetFile: 'fixtures/targets/embedded.json' });
  expect(cert.verdict).toBe('conformant');
  expect(cert.sections.filter((s) => s.document).map((s) => s.section)).toEqual(documentSections().map((s) => s.section));
  expect(cert.sections.find((s) => s.section === '4.1')?.verdict).toBe('conformant');
  expect(cert.sections.find((s) => s.section === '6')).toMatchObject({ verdict: 'not tested', reason: 'no check of the harness covers this section' });
  expect(verifyCertificate(cert).ok).toBe(true);

  const bad = buildCertificate({ report: faulty, agency: '128', targetFile: 'x.json' });
  expect(bad.verdict).toBe('not conformant');
  const failures = faulty.executions.filter((e) => e.verdict === 'fail');
  expect(bad.failures).toHaveLength(failures.length);
  expect(bad.failures.every((f) => f.sections.length > 0)).toBe(true);
  expect(bad.sections.find((s) => s.section === '4.1')?.verdict).toBe('not conformant');
  expect(bad.sections.find((s) => s.section === '4.2')?.verdict).toBe('not conformant');
  const html = renderCertificateHtml(bad);
  for (const id of new Set(failures.map((f) => f.checkId))) expect(html).toContain(id);
});

test('a section with a skipped check is never conformant', () => {
  const report: ConformanceReport = JSON.parse(JSON.stringify(clean)) as ConformanceReport;
  const target = report.executions.find((e) => e.sections.includes('5') && e.verdict === 'pass');
  if (!target) throw new Error('fixture: no passing check of section 5');
  target.verdict = 'skip';
  target.skipReason = 'non-destructive mode';
  const cert = buildCertificate({ report, agency: '128', targetFile: 'x.json' });
  const s5 = cert.sections.find((s) => s.section === '5');
  expect(s5?.verdict).toBe('not tested');
  expect(s5?.reason).toContain('non-destructive mode');
  expect(cert.verdict).toBe('incomplete');
});

test('certify writes the certificate; certify:verify detects an edited verdict', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-cert-'));
  try {
    const reportFile = path.join(dir, 'conformance.json');
    writeFileSync(reportFile, JSON.stringify(faulty));
    const issued = run('certify.ts', ['--target', 'fixtures/targets/embedded.json', '--report', reportFile, '--out', dir]);
    expect(issued.code, issued.out).toBe(1); // not conformant
    expect(issued.out).toContain('certificate: not conformant');
    const certFile = path.join(dir, 'certificate.json');
    expect(readFileSync(path.join(dir, 'certificate.html'), 'utf8')).toContain('not conformant');
    expect(run('certify-verify.ts', [certFile]).code).toBe(0);

    const cert = JSON.parse(readFileSync(certFile, 'utf8')) as Certificate;
    const edited = { ...cert, sections: cert.sections.map((s) => (s.section === '4.1' ? { ...s, verdict: 'conformant' as const } : s)) };
    writeFileSync(certFile, JSON.stringify(edited, null, 2));
    const verdict = run('certify-verify.ts', [certFile]);
    expect(verdict.code).toBe(1);
    expect(verdict.out).toContain('digest mismatch');

    // A single result flipped to pass, digest left alone: still detected.
    const flipped = { ...cert, results: cert.results.map((r) => (r[4] === 'fail' ? ([r[0], r[1], r[2], r[3], 'pass'] as typeof r) : r)) };
    writeFileSync(certFile, JSON.stringify(flipped));
    expect(run('certify-verify.ts', [certFile]).code).toBe(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
