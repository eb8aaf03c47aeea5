import { existsSync, readFileSync, statSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { loadProfile, ProfileError } from '../../contract/profile/load.ts';
import { repoRoot } from '../../paths.ts';
import { buildCertificate, renderCertificateHtml, signCertificate } from '../../report/certificate.ts';
import { privateKeyFromPem } from '../../report/signature.ts';
import { readReport } from '../../report/validate.ts';
import { writeRedacted } from '../../report/write.ts';
import type { Command } from '../command.ts';
import { EXIT, EXIT_TEXT, stringOption, UsageError } from '../command.ts';
import { parseRunArgs, RUN_ENVIRONMENT, RUN_OPTIONS } from '../run-args.ts';
import { outcomeOf } from '../../report/outcome.ts';
import { runSuite } from './run.ts';

const { plan: _dryRun, ...CERTIFY_RUN_OPTIONS } = RUN_OPTIONS;

/**
 * `npx iswc-conformance certify`: runs the full suite (both formats) against the target with the
 * agency's profile, or takes an existing conformance.json (--report), and writes certificate.json and
 * certificate.html next to it, signed with --sign-key when given.
 */
export const certifyCommand: Command = {
  name: 'certify',
  summary: 'run the suite (or take a finished run) and issue a certificate, signed with --sign-key',
  usage: 'npx iswc-conformance certify --target FILE [--sign-key KEY.pem] [--report conformance.json] [run options]',
  description:
    'Without --report it runs the suite with the run options (as the run command does) and certifies that run; with --report it certifies an existing conformance.json, which must have been run with the same profile. Writes certificate.json and certificate.html (to --out, default the report directory).',
  options: {
    ...CERTIFY_RUN_OPTIONS,
    report: { type: 'string', value: 'FILE', description: 'Certify this finished run (conformance.json) instead of running the suite.' },
    out: { type: 'string', value: 'DIR', description: 'Where certificate.json and certificate.html go (default: the report directory).' },
    'sign-key': { type: 'string', value: 'KEY.pem', description: 'Sign the certificate with this Ed25519 private key (PEM; openssl genpkey -algorithm ed25519). The file is read, never copied.' },
  },
  environment: RUN_ENVIRONMENT,
  exitCodes: [
    [EXIT.OK, 'conformant (with waivers or not): certificate written'],
    [EXIT.NOT_CONFORMANT, 'not conformant, or incomplete: certificate written with that verdict'],
    [EXIT.USAGE, `${EXIT_TEXT[2]}; or the run wrote no report, so no certificate was issued`],
    [EXIT.TARGET_UNUSABLE, `${EXIT_TEXT[3]}: no certificate issued (also for --report of such a run)`],
    [EXIT.INTERNAL, EXIT_TEXT[4]],
    [EXIT.INTERRUPTED, `${EXIT_TEXT[130]}: no certificate issued (also for --report of such a run)`],
  ],
  async run({ values }, io) {
    const str = (name: string): string | undefined => stringOption(values, name);
    const targetOption = str('target') ?? (io.env.ISWC_TARGET?.trim() || undefined);
    if (!targetOption) throw new UsageError('--target is required: the profile of the agency being certified (fixtures/targets/<agency>.json)');
    // A bad key stops here, before a run of several minutes.
    let signingKey: KeyObject | undefined;
    const signKey = str('sign-key');
    if (signKey !== undefined) {
      const keyFile = path.resolve(io.cwd, signKey);
      if (!existsSync(keyFile)) throw new UsageError(`--sign-key: no signing key at ${keyFile}`);
      try {
        signingKey = privateKeyFromPem(readFileSync(keyFile, 'utf8'));
      } catch (err) {
        throw new UsageError(`--sign-key ${signKey}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const target = path.resolve(io.cwd, targetOption);
    let profile;
    try {
      profile = loadProfile(target);
    } catch (e) {
      if (e instanceof ProfileError) throw new UsageError(e.message);
      throw e;
    }
    const reportOption = str('report');
    if (reportOption !== undefined && str('waivers') !== undefined) throw new UsageError('--waivers applies to a run; a report given with --report already carries its waivers');
    const reportDir = path.resolve(io.cwd, str('report-dir') ?? (io.env.ISWC_REPORT_DIR?.trim() || path.join(repoRoot, 'reports')));
    let reportFile = reportOption !== undefined ? path.resolve(io.cwd, reportOption) : path.join(reportDir, 'conformance.json');
    if (reportOption === undefined) {
      const plan = parseRunArgs({ ...values, target, 'report-dir': reportDir }, io.cwd, io.env);
      const started = Date.now();
      io.stdout(`certify: running the full suite for agency ${profile.agency} (profile "${profile.name}") against ${plan.env.ISWC_BASE_URL ?? 'the embedded reference server'}\n`);
      const { code, outcome } = await runSuite(plan, { ...io.env, ...plan.env }, io);
      if (code === EXIT.INTERRUPTED || code === EXIT.TARGET_UNUSABLE) {
        io.stderr(`certify: no certificate issued: the run ${code === EXIT.INTERRUPTED ? 'was interrupted' : `found the target unusable (${outcome?.reason ?? 'see above'})`} (exit ${code})\n`);
        return code;
      }
      if (!outcome || !existsSync(reportFile) || statSync(reportFile).mtimeMs < started - 1000) {
        io.stderr(`certify: the run (exit ${code}) wrote no ${path.relative(io.cwd, reportFile)}; no certificate issued\n`);
        return code === EXIT.INTERNAL ? EXIT.INTERNAL : EXIT.USAGE;
      }
    } else if (!existsSync(reportFile)) {
      throw new UsageError(`--report: no report at ${reportFile}`);
    }
    reportFile = path.resolve(reportFile);
    let report;
    try {
      report = readReport(reportFile);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    // A run that did not end on its own says nothing of the target's conformance: no certificate.
    const outcome = outcomeOf(report.summary);
    if (outcome.status === 'interrupted' || outcome.status === 'target-unusable') {
      io.stderr(`certify: no certificate issued: ${path.relative(io.cwd, reportFile)} records a run that ${outcome.status === 'interrupted' ? 'was interrupted' : 'found the target unusable'}: ${outcome.reason ?? ''} (exit ${outcome.exitCode})\n`);
      return outcome.exitCode;
    }
    // A certificate names the agency of --target: it must be the profile the run used, or it would stamp
    // one agency onto another's run.
    if (report.meta.profile !== profile.name) {
      io.stderr(`certify: ${path.relative(io.cwd, reportFile)} was run with the target profile "${report.meta.profile}", not "${profile.name}" (${targetOption}); certify it with that run's own profile\n`);
      return EXIT.USAGE;
    }
    const issued = buildCertificate({ report, agency: profile.agency, targetFile: path.relative(repoRoot, target) || target });
    const certificate = signingKey ? signCertificate(issued, signingKey) : issued;
    const outDir = path.resolve(io.cwd, str('out') ?? reportDir);
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
    lines.push(`  ${path.relative(io.cwd, jsonFile)} · ${path.relative(io.cwd, htmlFile)}`);
    io.stdout(`${lines.join('\n')}\n`);
    return certificate.verdict === 'conformant' ? EXIT.OK : EXIT.NOT_CONFORMANT;
  },
};
