/**
 * npm run certify -- --target fixtures/targets/<agency>.json [--sign-key key.pem] [--waivers file.yaml] [--report reports/conformance.json] [--out dir] [-- playwright args]
 *
 * Runs the full suite (both formats) through Playwright against ISWC_BASE_URL (or the embedded reference
 * server) with the agency's target profile, then writes certificate.json and certificate.html next to
 * the conformance report. With --report, certifies an existing conformance.json instead of running (its
 * waivers were applied when it was written); the report must have been run with the same profile.
 * --waivers (or ISWC_WAIVERS) waives known deviations in the run. --sign-key signs the certificate with an
 * Ed25519 private key (PEM); the key file is read, never copied anywhere.
 * Exit status: 0 conformant (with waivers or not), 1 not conformant or incomplete, 2 usage or run error.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildCertificate, renderCertificateHtml, signCertificate } from '../lib/report/certificate.ts';
import { privateKeyFromPem } from '../lib/report/signature.ts';
import type { KeyObject } from 'node:crypto';
import { readReport } from '../lib/report/validate.ts';
import { writeRedacted } from '../lib/report/write.ts';
import { childEnv, runPlaywright } from '../tests/support/run-playwright.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { repoRoot } from '../lib/paths.ts';
import { loadWaivers } from '../lib/report/waivers/load.ts';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { target: { type: 'string' }, report: { type: 'string' }, out: { type: 'string' }, waivers: { type: 'string' }, 'sign-key': { type: 'string' } },
    allowPositionals: true,
  });
  if (!values.target) {
    process.stderr.write('usage: npm run certify -- --target fixtures/targets/<agency>.json [--sign-key key.pem] [--waivers file.yaml] [--report conformance.json] [--out dir]\n');
    return 2;
  }
  // A bad key stops here, before a run of several minutes.
  let signingKey: KeyObject | undefined;
  if (values['sign-key'] !== undefined) {
    const keyFile = path.resolve(values['sign-key']);
    if (!existsSync(keyFile)) {
      process.stderr.write(`certify: no signing key at ${keyFile}\n`);
      return 2;
    }
    try {
      signingKey = privateKeyFromPem(readFileSync(keyFile, 'utf8'));
    } catch (err) {
      process.stderr.write(`certify: --sign-key ${values['sign-key']}: ${err instanceof Error ? err.message : String(err)}\n`);
      return 2;
    }
  }
  const target = path.resolve(values.target);
  if (!existsSync(target)) {
    process.stderr.write(`certify: no target profile at ${target}\n`);
    return 2;
  }
  const profile = loadProfile(target);
  if (values.waivers !== undefined && values.report) {
    process.stderr.write('certify: --waivers applies to a run; a report given with --report already carries its waivers\n');
    return 2;
  }
  const waiversFile = values.report ? undefined : (values.waivers ?? (process.env.ISWC_WAIVERS?.trim() || undefined));
  // A malformed file stops here (exit 2 with the entry and line), before the run.
  const waivers = waiversFile === undefined ? undefined : path.resolve(waiversFile);
  if (waivers) loadWaivers(waivers);
  const reportDir = path.resolve(process.env.ISWC_REPORT_DIR?.trim() || path.join(repoRoot, 'reports'));
  let reportFile = values.report ? path.resolve(values.report) : path.join(reportDir, 'conformance.json');
  if (!values.report) {
    const started = Date.now();
    process.stdout.write(`certify: running the full suite for agency ${profile.agency} (profile "${profile.name}") against ${process.env.ISWC_BASE_URL ?? 'the embedded reference server'}\n`);
    const run = await runPlaywright(['test', '--project=json', '--project=xml', ...positionals], childEnv({ ISWC_TARGET: target, ISWC_REPORT_DIR: reportDir, ...(waivers ? { ISWC_WAIVERS: waivers } : {}) }), {
      inherit: true,
    });
    if (!existsSync(reportFile) || statSync(reportFile).mtimeMs < started) {
      process.stderr.write(`certify: the run (exit ${run.code}) wrote no ${path.relative(process.cwd(), reportFile)}; no certificate issued\n`);
      return 2;
    }
  } else if (!existsSync(reportFile)) {
    process.stderr.write(`certify: no report at ${reportFile}\n`);
    return 2;
  }
  reportFile = path.resolve(reportFile);
  const report = readReport(reportFile);
  // A certificate names the agency of --target: it must be the profile the run used, or it would stamp
  // one agency onto another's run.
  if (report.meta.profile !== profile.name) {
    process.stderr.write(
      `certify: ${path.relative(process.cwd(), reportFile)} was run with the target profile "${report.meta.profile}", not "${profile.name}" (${values.target}); certify it with that run's own profile\n`,
    );
    return 2;
  }
  const issued = buildCertificate({ report, agency: profile.agency, targetFile: path.relative(repoRoot, target) || target });
  const certificate = signingKey ? signCertificate(issued, signingKey) : issued;
  const outDir = path.resolve(values.out ?? reportDir);
  const jsonFile = path.join(outDir, 'certificate.json');
  const htmlFile = path.join(outDir, 'certificate.html');
  writeRedacted(jsonFile, `${JSON.stringify(certificate, null, 2)}\n`);
  writeRedacted(htmlFile, renderCertificateHtml(certificate));
  const lines = [`certificate: ${certificate.verdictText} — agency ${certificate.agency.code}, ${certificate.failures.length} failure(s), ${certificate.waived.length} waived`];
  for (const s of certificate.sections.filter((x) => x.document)) lines.push(`  §${s.section.padEnd(4)} ${s.verdict.padEnd(23)} ${s.reason ?? ''}`.slice(0, 200));
  for (const n of certificate.coverage.notExercised) lines.push(`  not exercised: ${n.checkId}: ${n.reasons.join('; ')}`.slice(0, 200));
  for (const w of certificate.waivers?.entries ?? []) lines.push(`  waiver ${w.index} (${w.check}${w.operation ? ` on ${w.operation}` : ''}, until ${w.until}): ${w.status}${w.status === 'used' ? ` ×${w.count}` : ''}`);
  lines.push(`  target issued ${certificate.target.runIds.length} run identifier(s) recorded in the certificate`);
  lines.push(`  digest sha256 ${certificate.digest.value}`);
  lines.push(certificate.signature ? `  signed ed25519 by ${certificate.signature.publicKeyFingerprint}` : '  unsigned: the digest only detects accidental edits (sign with --sign-key <private key PEM>)');
  lines.push(`  ${path.relative(process.cwd(), jsonFile)} · ${path.relative(process.cwd(), htmlFile)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return certificate.verdict === 'conformant' ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`certify: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
