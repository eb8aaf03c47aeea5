/**
 * npm run certify -- --target fixtures/targets/<agency>.json [--waivers file.yaml] [--report reports/conformance.json] [--out dir] [-- playwright args]
 *
 * Runs the full suite (both formats) through Playwright against ISWC_BASE_URL (or the embedded reference
 * server) with the agency's target profile, then writes certificate.json and certificate.html next to
 * the conformance report. With --report, certifies an existing conformance.json instead of running (its
 * waivers were applied when it was written). --waivers (or ISWC_WAIVERS) waives known deviations in the run.
 * Exit status: 0 conformant (with waivers or not), 1 not conformant or incomplete, 2 usage or run error.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildCertificate, renderCertificateHtml } from '../lib/report/certificate.ts';
import { readReport } from '../lib/report/validate.ts';
import { writeRedacted } from '../lib/report/write.ts';
import { childEnv, runPlaywright } from '../tests/support/run-playwright.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { repoRoot } from '../lib/paths.ts';
import { loadWaivers } from '../lib/report/waivers/load.ts';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { target: { type: 'string' }, report: { type: 'string' }, out: { type: 'string' }, waivers: { type: 'string' } },
    allowPositionals: true,
  });
  if (!values.target) {
    process.stderr.write('usage: npm run certify -- --target fixtures/targets/<agency>.json [--waivers file.yaml] [--report conformance.json] [--out dir]\n');
    return 2;
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
  const certificate = buildCertificate({ report, agency: profile.agency, targetFile: path.relative(repoRoot, target) || target });
  const outDir = path.resolve(values.out ?? reportDir);
  const jsonFile = path.join(outDir, 'certificate.json');
  const htmlFile = path.join(outDir, 'certificate.html');
  writeRedacted(jsonFile, `${JSON.stringify(certificate, null, 2)}\n`);
  writeRedacted(htmlFile, renderCertificateHtml(certificate));
  const lines = [`certificate: ${certificate.verdictText} — agency ${certificate.agency.code}, ${certificate.failures.length} failure(s), ${certificate.waived.length} waived`];
  for (const s of certificate.sections.filter((x) => x.document)) lines.push(`  §${s.section.padEnd(4)} ${s.verdict.padEnd(23)} ${s.reason ?? ''}`.slice(0, 200));
  for (const n of certificate.coverage.notExercised) lines.push(`  not exercised: ${n.checkId}: ${n.reasons.join('; ')}`.slice(0, 200));
  for (const w of certificate.waivers?.entries ?? []) lines.push(`  waiver ${w.index} (${w.check}${w.operation ? ` on ${w.operation}` : ''}, until ${w.until}): ${w.status}${w.status === 'used' ? ` ×${w.count}` : ''}`);
  lines.push(`  digest sha256 ${certificate.digest.value}`, `  ${path.relative(process.cwd(), jsonFile)} · ${path.relative(process.cwd(), htmlFile)}`);
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
