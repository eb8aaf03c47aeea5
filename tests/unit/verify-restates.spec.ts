import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import type { Certificate } from '../../lib/report/certificate.ts';
import { CERTIFICATE_VERSION, signCertificate, UNSIGNED_INTEGRITY } from '../../lib/report/certificate.ts';
import { cliInProcess } from '../support/cli.ts';

/**
 * `verify` says what it verified: the verdict (an incomplete or partial one in capitals), the target, the
 * profile, the date, and what was checked against what, so that "consistent" and exit 0 on an
 * incomplete certificate are never read as "conformant".
 */

const digest = 'a'.repeat(64);

function certificate(verdict: Certificate['verdict'], verdictText: string, exercised: number): Certificate {
  const profile = { name: 'staging-example', digest: `sha256:${digest}` };
  const cert = {
    kind: 'iswc-conformance-certificate',
    certificateVersion: CERTIFICATE_VERSION,
    agency: { code: '128', profile: 'staging-example' },
    target: { profile, baseUrl: 'https://staging.example.org/api', origin: 'https://staging.example.org', embedded: false, runIds: [] },
    binding: { profile, agency: '128', origin: 'https://staging.example.org', harnessVersion: '0.1.0', documentDigest: digest, waiversDigest: null, seed: 7, runs: 100, plan: { name: 'smoke', budget: null }, strict: false },
    date: '2026-11-28T19:00:00.000Z',
    harnessVersion: '0.1.0',
    documentDigest: digest,
    schemasDigest: digest,
    run: { seed: 7, runs: 100, strict: false, destructive: false, startedAt: '2026-11-28T18:40:00.000Z', finishedAt: '2026-11-28T18:55:00.000Z', requests: 99 },
    verdict,
    verdictText,
    coverage: { specChecks: 23, exercised, notExercised: Array.from({ length: 23 - exercised }, (_, i) => ({ checkId: `spec.c${i}`, reason: 'non-destructive' })) },
    sections: [],
    failures: [],
    waived: [],
    waivers: null,
    results: [['status.success', 'run.valid', 'json', 'POST', 'pass']],
    integrity: UNSIGNED_INTEGRITY,
    digest: { algorithm: 'sha256', canonicalization: '', value: '' },
  } as unknown as Certificate;
  return cert;
}

test('an incomplete certificate verifies (exit 0) and says INCOMPLETE, the target, the profile, the date and what was checked against what', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-verify-'));
  try {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(path.join(dir, 'issuer.pub.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    writeFileSync(path.join(dir, 'certificate.json'), JSON.stringify(signCertificate(certificate('incomplete', 'incomplete: 14 of 23 spec checks exercised', 14), privateKey)));
    const verified = await cliInProcess(['verify', 'certificate.json', '--public-key', 'issuer.pub.pem'], { cwd: dir });
    expect(verified.code, verified.out).toBe(0);
    const lines = verified.stdout.split('\n');
    expect(lines[0]).toMatch(/^verify: certificate\.json: signed by sha256:[0-9a-f]{64} and unedited since/);
    expect(lines).toContain('  verdict: INCOMPLETE: 14 of 23 spec checks exercised (9 spec check(s) not exercised: not a conformance verdict)');
    expect(lines).toContain(`  target: https://staging.example.org/api; profile "staging-example" (sha256 ${'a'.repeat(12)}…), agency 128`);
    expect(lines).toContain('  date: issued 2026-11-28T19:00:00.000Z; run 2026-11-28T18:40:00.000Z to 2026-11-28T18:55:00.000Z (99 requests)');
    expect(verified.stdout).toMatch(/ {2}checked: the digest \(sha256 [0-9a-f]{12}…\) recomputed over the certificate's content; its verdicts against its own 1 check executions \(0 failed, 0 waived\) and coverage \(14 of 23 spec checks exercised\); its binding against its profile and agency; its signature against the public key issuer\.pub\.pem\. Not checked: the target itself/);

    // A conformant verdict of a partial plan says PARTIAL; an unsigned one accepted says no signature was checked.
    const smoke = certificate('conformant', 'conformant (smoke plan: every spec check exercised, not every case run)', 23);
    writeFileSync(path.join(dir, 'smoke.json'), JSON.stringify(signCertificate(smoke, privateKey)));
    const partial = await cliInProcess(['verify', 'smoke.json', '--allow-unsigned'], { cwd: dir });
    expect(partial.code, partial.out).toBe(0);
    expect(partial.stdout).toContain('  verdict: conformant (PARTIAL: smoke plan: every spec check exercised, not every case run)');
    expect(partial.stdout).toContain('no signature (no --public-key)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
