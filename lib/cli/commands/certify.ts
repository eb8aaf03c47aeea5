import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { shownPath } from '../../foundation/paths.ts';
import { loadProfile, ProfileError } from '../../contract/profile/load.ts';
import type { TargetProfile } from '../../contract/profile/types.ts';
import type { BindingClaims } from '../../report/binding.ts';
import { bindingMismatches, originOf, profileDigest, runBinding, UnboundReportError, waiversDigest } from '../../report/binding.ts';
import { bindingLines, buildCertificate, renderCertificateHtml, signCertificate } from '../../report/certificate.ts';
import { documentDigest, HARNESS_VERSION } from '../../report/meta.ts';
import { loadWaivers } from '../../report/waivers/load.ts';
import { waiverFiguresText } from '../../report/waivers/figures.ts';
import { plural } from '../../report/verdict.ts';
import { readReport } from '../../report/validate.ts';
import { writeRedacted } from '../../report/write.ts';
import type { Command, OptionValues } from '../command.ts';
import { EXIT, exitMeaning, reportDirOf, stringOption, UsageError } from '../command.ts';
import { parseRunArgs, RUN_ENVIRONMENT, RUN_OPTIONS } from '../run-args.ts';
import { outcomeOf } from '../../report/outcome.ts';
import { certifyClient, signingKeyOption } from './certify-client.ts';
import { verifyHint } from '../verify-hint.ts';
import { runSuite } from './run.ts';

const { plan: _dryRun, ...CERTIFY_RUN_OPTIONS } = RUN_OPTIONS;

/** Where a setting was stated: its flag when given, else its variable. */
function source(values: OptionValues, flag: string, variable: string): string {
  return values[flag] !== undefined ? `--${flag}` : variable;
}

/**
 * What the command line and the environment state about the run to certify (lib/report/binding.ts):
 * the profile of --target, the harness and its document always; the base URL, waivers, seed, runs, plan
 * and strictness where a flag or a variable gives them. `env` is the caller's with the flags applied.
 */
function bindingClaims(values: OptionValues, env: NodeJS.ProcessEnv, profile: TargetProfile, targetOption: string): BindingClaims {
  const get = (name: string): string | undefined => env[name]?.trim() || undefined;
  const claims: BindingClaims = {
    profile: { name: profile.name, digest: profileDigest(profile), agency: profile.agency, source: `--target ${targetOption}` },
    harnessVersion: HARNESS_VERSION,
    documentDigest: documentDigest(),
  };
  const baseUrl = get('ISWC_BASE_URL');
  const origin = originOf(baseUrl);
  if (origin !== null) claims.origin = { value: origin, source: source(values, 'base-url', 'ISWC_BASE_URL') };
  const waivers = get('ISWC_WAIVERS');
  if (waivers !== undefined) claims.waivers = { digest: waiversDigest(loadWaivers(waivers)), source: `${source(values, 'waivers', 'ISWC_WAIVERS')} ${waivers}` };
  const seed = get('ISWC_SEED');
  if (seed !== undefined) claims.seed = { value: Number(seed), source: source(values, 'seed', 'ISWC_SEED') };
  const runs = get('ISWC_RUNS');
  if (runs !== undefined) claims.runs = { value: Number(runs), source: source(values, 'runs', 'ISWC_RUNS') };
  const planName = get('ISWC_PLAN');
  const budget = get('ISWC_BUDGET');
  if (planName !== undefined || budget !== undefined) {
    claims.plan = {
      value: { name: planName === 'smoke' ? 'smoke' : 'full', budget: budget === undefined ? null : Number(budget) },
      source: [values.smoke ? '--smoke' : planName !== undefined ? 'ISWC_PLAN' : '', budget !== undefined ? source(values, 'budget', 'ISWC_BUDGET') : ''].filter(Boolean).join(', '),
    };
  }
  const strict = get('ISWC_STRICT');
  if (strict !== undefined) claims.strict = { value: ['1', 'true', 'yes'].includes(strict.toLowerCase()), source: source(values, 'strict', 'ISWC_STRICT') };
  return claims;
}

/**
 * `npx iswc-conformance certify`: runs the full suite (both formats) against the target with the
 * agency's profile, or takes an existing conformance.json (--report), and writes certificate.json and
 * certificate.html next to it, signed with --sign-key when given.
 */
export const certifyCommand: Command = {
  name: 'certify',
  summary: 'run the suite (or take a finished run) and issue a certificate, signed with --sign-key',
  usage: 'npx iswc-conformance certify --target FILE [--sign-key KEY.pem] [--report conformance.json] [run options]\n       npx iswc-conformance certify --client client-conformance.json [--sign-key KEY.pem] [--out DIR]',
  description:
    "Without --report it runs the suite with the run options (as the run command does) and certifies that run; with --report it certifies an existing conformance.json. Either way the run must be the one asked for: the profile of --target by content (its SHA-256, not its name) and agency, this harness's version and interface document, and, where given, the base URL's origin, --waivers, --seed, --runs, --smoke or --budget, and --strict. Any difference is refused (exit 2) with a line naming it. The certificate carries all of these (binding) and names the profile by name and digest, never by a path. Writes certificate.json and certificate.html (to --out, default next to the report certified). With --client it certifies a client instead, from the client-conformance.json of a conformant sandbox session (agency, User-Agent, the operations and formats exercised and succeeded, client checks exercised, trouble survived): client-certificate.json and client-certificate.html (to --out, default next to the report).",
  options: {
    ...CERTIFY_RUN_OPTIONS,
    report: { type: 'string', value: 'FILE', description: "Certify this finished run (conformance.json) instead of running the suite; refused when it was not made with --target's profile (by content) and the other settings given." },
    out: { type: 'string', value: 'DIR', description: 'Where certificate.json and certificate.html go (default: next to the report certified).' },
    client: { type: 'string', value: 'FILE', description: "Certify a client: a sandbox session's client-conformance.json (npx iswc-conformance sandbox); no run, no --target." },
    'sign-key': { type: 'string', value: 'KEY.pem', description: 'Sign the certificate with this Ed25519 private key (PEM; openssl genpkey -algorithm ed25519). The file is read, never copied.' },
  },
  environment: RUN_ENVIRONMENT,
  exitCodes: [
    [EXIT.OK, 'conformant (with waivers or not): certificate written'],
    [EXIT.NOT_CONFORMANT, 'not conformant, or incomplete: certificate written with that verdict; with --client, a session that is not conformant (a gating violation, or a declared operation that never succeeded) or that judged no request of the client gets no certificate (why is said on stderr)'],
    exitMeaning(EXIT.USAGE, `; or the run differs from what was asked for (profile, agency, base URL, harness, document, waivers, seed, plan), or wrote no report: no certificate was issued`),
    exitMeaning(EXIT.TARGET_UNUSABLE, `: no certificate issued (also for --report of such a run)`),
    exitMeaning(EXIT.INTERNAL),
    exitMeaning(EXIT.INTERRUPTED, `: no certificate issued (also for --report of such a run)`),
  ],
  async run({ values }, io) {
    if (stringOption(values, 'client') !== undefined) return certifyClient(values, io);
    const str = (name: string): string | undefined => stringOption(values, name);
    const targetOption = str('target') ?? (io.env.ISWC_TARGET?.trim() || undefined);
    if (!targetOption) throw new UsageError('--target is required: the profile of the agency being certified (fixtures/targets/<agency>.json)');
    // A bad key stops here, before a run of several minutes.
    const signingKey = signingKeyOption(str('sign-key'), io.cwd);
    const target = path.resolve(io.cwd, targetOption);
    let profile;
    try {
      profile = loadProfile(target);
    } catch (e) {
      if (e instanceof ProfileError) throw new UsageError(e.message);
      throw e;
    }
    const reportOption = str('report');
    const reportDir = reportDirOf(io, str('report-dir'));
    let reportFile = reportOption !== undefined ? path.resolve(io.cwd, reportOption) : path.join(reportDir, 'conformance.json');
    // The run's settings as asked for: run with them, or (--report) check the finished run against them.
    const plan = parseRunArgs({ ...values, target, 'report-dir': reportDir, ...(reportOption !== undefined ? { plan: true } : {}) }, io.cwd, io.env);
    const claims = bindingClaims(values, { ...io.env, ...plan.env }, profile, targetOption);
    if (reportOption === undefined) {
      const started = Date.now();
      io.stdout(`certify: running the full suite for agency ${profile.agency} (profile "${profile.name}") against ${plan.env.ISWC_BASE_URL ?? 'the embedded reference server'}\n`);
      const { code, outcome } = await runSuite(plan, { ...io.env, ...plan.env }, io);
      if (code === EXIT.INTERRUPTED || code === EXIT.TARGET_UNUSABLE) {
        io.stderr(`certify: no certificate issued: the run ${code === EXIT.INTERRUPTED ? 'was interrupted' : `found the target unusable (${outcome?.reason ?? 'see above'})`} (exit ${code})\n`);
        return code;
      }
      if (!outcome || !existsSync(reportFile) || statSync(reportFile).mtimeMs < started - 1000) {
        io.stderr(`certify: the run (exit ${code}) wrote no ${shownPath(reportFile, io.cwd)}; no certificate issued\n`);
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
      io.stderr(`certify: no certificate issued: ${shownPath(reportFile, io.cwd)} records a run that ${outcome.status === 'interrupted' ? 'was interrupted' : 'found the target unusable'}: ${outcome.reason ?? ''} (exit ${outcome.exitCode})\n`);
      return outcome.exitCode;
    }
    // A certificate states what was tested: the run must be the one asked for, by content (the profile's
    // digest, not its name), agency, origin, harness, document, waivers, seed and plan.
    const shown = shownPath(reportFile, io.cwd);
    let mismatches: string[];
    try {
      mismatches = bindingMismatches(runBinding(report.meta), claims);
    } catch (e) {
      if (!(e instanceof UnboundReportError)) throw e;
      io.stderr(`certify: ${shown}: ${e.message}; no certificate issued\n`);
      return EXIT.USAGE;
    }
    if (mismatches.length > 0) {
      io.stderr(`certify: ${shown} is not the run asked for; no certificate issued:\n${mismatches.map((m) => `  ✗ ${m}`).join('\n')}\nCertify a run with the profile, base URL, waivers, seed and plan it was made with, or run the suite again (certify without --report).\n`);
      return EXIT.USAGE;
    }
    const issued = buildCertificate({ report });
    const certificate = signingKey ? signCertificate(issued, signingKey) : issued;
    // Next to the report it certifies: the run's directory, or the one --report names.
    const outDir = path.resolve(io.cwd, str('out') ?? path.dirname(reportFile));
    const jsonFile = path.join(outDir, 'certificate.json');
    const htmlFile = path.join(outDir, 'certificate.html');
    writeRedacted(jsonFile, `${JSON.stringify(certificate, null, 2)}\n`);
    writeRedacted(htmlFile, renderCertificateHtml(certificate));
    const lines = [`certificate: ${certificate.verdictText} — agency ${certificate.agency.code}, ${certificate.failures.length} failure(s), ${plural(certificate.waived.length, 'waived check execution')}`];
    for (const s of certificate.sections.filter((x) => x.document)) lines.push(`  §${s.section.padEnd(4)} ${s.verdict.padEnd(23)} ${s.reason ?? ''}`.slice(0, 200));
    for (const n of certificate.coverage.notExercised) lines.push(`  not exercised: ${n.checkId}: ${n.reasons.join('; ')}`.slice(0, 200));
    if (certificate.waivers) lines.push(`  waivers: ${waiverFiguresText(certificate.waivers.figures)}`);
    for (const w of certificate.waivers?.entries ?? []) lines.push(`  waiver ${w.index} (${w.covers}, until ${w.until}): ${w.status}${w.status === 'used' ? ` ×${w.count}` : ''}`);
    lines.push(`  bound to: ${bindingLines(certificate.binding).map(([k, v]) => `${k} ${v}`).join(' · ')}`);
    lines.push(`  target issued ${certificate.target.runIds.length} run identifier(s) recorded in the certificate`);
    lines.push(`  digest sha256 ${certificate.digest.value}`);
    lines.push(certificate.signature ? `  signed ed25519 by ${certificate.signature.publicKeyFingerprint}` : '  unsigned: the digest only detects accidental edits (sign with --sign-key <private key PEM>)');
    lines.push(`  ${shownPath(jsonFile, io.cwd)} · ${shownPath(htmlFile, io.cwd)}`);
    lines.push(verifyHint(jsonFile, signingKey ? str('sign-key') : undefined, io.cwd));
    io.stdout(`${lines.join('\n')}\n`);
    return certificate.verdict === 'conformant' ? EXIT.OK : EXIT.NOT_CONFORMANT;
  },
};
