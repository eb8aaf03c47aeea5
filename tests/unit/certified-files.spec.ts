import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { parseSandboxArgs } from '../../lib/sandbox/options.ts';
import { runSandbox } from '../../lib/sandbox/run.ts';
import { CERTIFIED_REPORT, keepCertifiedReport, keptReportLine } from '../../lib/report/write.ts';

/**
 * What a certificate rests on is never silently replaced: a run writing its reports over the
 * conformance.json a certificate beside it was issued from keeps that report beside the certificate and
 * says so in one line; a sandbox session that would replace the recorded session a client certificate is
 * bound to is refused (exit 2) in one line saying what to do.
 */

const tmp = (): string => mkdtempSync(path.join(tmpdir(), 'iswc-certified-'));

test('the report a certificate was issued from is kept beside it as conformance.certified.json; a report of another run is replaced as before', () => {
  const dir = tmp();
  try {
    const report = JSON.stringify({ meta: { startedAt: '2026-11-28T18:00:00.000Z', seed: 7 }, executions: ['the certified run'] });
    writeFileSync(path.join(dir, 'conformance.json'), report);
    // No certificate: nothing kept.
    expect(keepCertifiedReport(dir)).toBeUndefined();
    // A certificate of another run (the report it came from was already replaced): nothing kept.
    writeFileSync(path.join(dir, 'certificate.json'), JSON.stringify({ kind: 'iswc-conformance-certificate', run: { startedAt: '2026-11-27T10:00:00.000Z', seed: 7 } }));
    expect(keepCertifiedReport(dir)).toBeUndefined();
    expect(readFileSync(path.join(dir, 'conformance.json'), 'utf8')).toBe(report);
    // The certificate of this report: kept, and the line says where.
    writeFileSync(path.join(dir, 'certificate.json'), JSON.stringify({ kind: 'iswc-conformance-certificate', run: { startedAt: '2026-11-28T18:00:00.000Z', seed: 7 } }));
    const kept = keepCertifiedReport(dir);
    expect(kept).toBeDefined();
    expect(readFileSync(path.join(dir, CERTIFIED_REPORT), 'utf8')).toBe(report);
    expect(existsSync(path.join(dir, 'conformance.json'))).toBe(false);
    const line = keptReportLine(kept as NonNullable<typeof kept>, (f) => path.relative(dir, f));
    expect(line).toBe("conformance.json, which certificate.json was issued from, is kept as conformance.certified.json: this run's report takes its place");
    expect(line.split('\n')).toHaveLength(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a new sandbox session over the recorded session a client certificate is bound to is refused (exit 2) in one line; an unbound session file is replaced as before', async () => {
  const dir = tmp();
  try {
    const recorded = '{"recordedBy":"iswc-conformance sandbox"}\n';
    writeFileSync(path.join(dir, 'client-session.jsonl'), recorded);
    const sha256 = createHash('sha256').update(recorded).digest('hex');
    writeFileSync(path.join(dir, 'client-certificate.json'), JSON.stringify({ kind: 'iswc-conformance-client-certificate', session: { recording: { file: 'client-session.jsonl', sha256, exchanges: 0 } } }));
    const parsed = parseSandboxArgs(['--port', '0', '--report-dir', dir], { ISWC_SANDBOX_KEY: 'certified-files-key-01' });
    if (parsed.kind !== 'run') throw new Error(JSON.stringify(parsed));
    const err: string[] = [];
    expect(await runSandbox(parsed.options, { out: () => undefined, err: (l) => err.push(l), signals: false })).toBe(2);
    expect(err).toHaveLength(1);
    expect(err[0]).toBe(
      `iswc-conformance sandbox: --report-dir ${dir} holds ${path.join(dir, 'client-session.jsonl')}, the session ${path.join(dir, 'client-certificate.json')} is bound to (verify --session needs it as it is): move the two elsewhere to keep them, or choose another --report-dir`,
    );
    expect(readFileSync(path.join(dir, 'client-session.jsonl'), 'utf8')).toBe(recorded);
    // The session file edited since (the certificate no longer binds it): nothing rests on it.
    writeFileSync(path.join(dir, 'client-session.jsonl'), `${recorded}{}\n`);
    expect((await import('../../lib/sandbox/report-dir.ts')).reportDirProblem(dir)).toBeUndefined();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
