import { figuresOf, figuresText } from './figures.ts';
import { readFileSync } from 'node:fs';
import { formatsLabel } from '../contract/profile/types.ts';
import type { KeyObject } from 'node:crypto';
import type { CheckExecution, Level } from '../run/execution.ts';
import { gating } from '../check/gating.ts';
import { fromRoot } from '../foundation/paths.ts';
import { canonicalJson, sha256Hex } from './canonical.ts';
import { cut, escapeHtml as h } from './escape.ts';
import { page, VERDICT_COLOUR } from './html.ts';
import type { ConformanceReport, Tally } from './model.ts';
import type { RunBinding } from './binding.ts';
import { runBinding, shortDigest } from './binding.ts';
import { issuedRunIds } from './run-ids.ts';
import type { CertificateSignature, CertificateVerification } from './signature.ts';
import { publicKeyFingerprint, sealCheck, signBytes } from './signature.ts';
import { operationKey, operationLabel, sectionsText, tallyOf } from './view.ts';
import { plural, specCoverage } from './verdict.ts';
import type { NotExercised, SpecCoverage } from './verdict.ts';
import type { WaiverSummary } from './waivers/types.ts';
import { waiversUsed } from './waivers/apply.ts';
import { waiverFiguresText } from './waivers/figures.ts';

/** `conformant with waivers`: no failure and no skip, but failures of known deviations were waived. */
export type SectionStatus = 'conformant' | 'conformant with waivers' | 'not conformant' | 'not tested';

export interface SectionVerdict {
  section: string;
  title: string;
  /** True for sections of the interface document; false for references beyond it (RFC 9110 …). */
  document: boolean;
  verdict: SectionStatus;
  /** Why a section is not tested, or what failed. */
  reason?: string;
  checks: Tally;
}

export interface CertificateFailure {
  checkId: string;
  level: Level;
  sections: string[];
  /** True when the failure alone makes the run not conformant (spec; http in strict mode). */
  gating: boolean;
  operation: string;
  format: string;
  caseId: string;
  step: string;
  expected: string;
  received: string;
  curl?: string;
}

/** A waived failure: where, what the document says, what came, and the waiver's reason and last day. */
export interface CertificateWaived {
  checkId: string;
  level: Level;
  sections: string[];
  operation: string;
  format: string;
  caseId: string;
  step: string;
  expected: string;
  received: string;
  reason: string;
  until: string;
  /** The waiver's entry in the waivers file, from 0. */
  index: number;
}

/** One check execution, condensed: [checkId, caseId, format, step, verdict]. */
export type CondensedResult = [string, string, string, string, string];

export interface Certificate {
  kind: 'iswc-conformance-certificate';
  /**
   * 2: adds verdictText, coverage, waived and waivers; 3: adds target.runIds, integrity and signature;
   * 4: adds `binding` and names the profile by name and content digest, never by a file path.
   */
  certificateVersion: typeof CERTIFICATE_VERSION;
  agency: { code: string; profile: string };
  /**
   * The profile by name and digest; `runIds`: the run identifiers the target itself issued during the run
   * (started agent runs, from the exchanges the report keeps; lib/report/run-ids.ts). The API team can
   * find them in its own records.
   */
  target: { profile: { name: string; digest: string }; baseUrl: string | null; origin: string | null; embedded: boolean; runIds: string[]; formats?: Array<'json' | 'xml'> };
  /**
   * Everything the run was bound to (lib/report/binding.ts): profile content, agency, origin, harness,
   * document, waivers, seed, runs, plan, strictness. `certify` refused to issue the certificate when what
   * it was asked for differed from any of them; the digest and the signature cover them.
   */
  binding: RunBinding;
  date: string;
  harnessVersion: string;
  documentDigest: string;
  schemasDigest: string;
  /**
   * The run's settings and its figures, as its report gives them: requests (sent, resends included),
   * retries, answered, planned and waitedMs (the last four absent from certificates of earlier harness versions).
   */
  run: { seed: number | null; runs: number; strict: boolean; destructive: boolean; startedAt: string; finishedAt: string; requests: number; retries?: number; answered?: number; planned?: number; waitedMs?: number };
  /**
   * conformant: no gating failure, nothing skipped, every spec check exercised (waived failures allowed);
   * incomplete: no gating failure but a section not tested because checks were skipped, or a spec check
   * not exercised.
   */
  verdict: 'conformant' | 'not conformant' | 'incomplete';
  /** What the verdict reads: "conformant with 2 waivers", "incomplete: 14 of 19 spec checks exercised", … */
  verdictText: string;
  coverage: SpecCoverage;
  sections: SectionVerdict[];
  failures: CertificateFailure[];
  /** Failures of known deviations, waived by the run's waivers file; they do not gate. */
  waived: CertificateWaived[];
  /** The run's waivers file, each entry's status (used, not exercised, unused, expired) and their figures; null when the run had none. */
  waivers: WaiverSummary | null;
  results: CondensedResult[];
  /** What the digest and the signature prove, in the certificate's own words (signed or not). */
  integrity: string;
  /** SHA-256 over the canonical JSON (sorted keys, no whitespace) of every member but `digest` and `signature`. */
  digest: { algorithm: 'sha256'; canonicalization: string; value: string };
  /** Present when issued with `certify --sign-key`: Ed25519 over the same canonical JSON. */
  signature?: CertificateSignature;
}

/** The run's figures in the words of the console and the report; a certificate of an earlier version gives its requests only. */
function runFiguresText(run: Certificate['run']): string {
  if (run.retries === undefined || run.waitedMs === undefined) return `${run.requests} requests`;
  return figuresText(figuresOf({ requests: run.requests, retries: run.retries, waitedMs: run.waitedMs, ...(run.answered !== undefined ? { answered: run.answered } : {}), ...(run.planned !== undefined ? { planned: run.planned } : {}) }));
}

/** The version this harness issues. */
export const CERTIFICATE_VERSION = 4;
/** Versions `verify` reads: before 4 a certificate names its profile only by name and is bound to nothing else. */
export const READABLE_VERSIONS: readonly number[] = [2, 3, 4];

const CANONICALIZATION = 'JSON of the certificate without `digest` and `signature`, object keys sorted, no whitespace, UTF-8';

/** The integrity statement of an unsigned certificate. */
export const UNSIGNED_INTEGRITY =
  'unsigned: the digest only detects accidental edits; anyone who edits this file can recompute it, so it proves nothing about who issued the certificate or whether its results are genuine';

/** The integrity statement of a certificate signed by the key with this fingerprint. */
export function signedIntegrity(fingerprint: string): string {
  return `signed with Ed25519 by the key ${fingerprint}: an edit, even with the digest recomputed, breaks the signature; verify with the issuer's public key (npx iswc-conformance verify certificate.json --public-key issuer.pub.pem)`;
}

/** Sections of the interface document, from its headings: "1", "2", "2.1", … with their titles. */
export function documentSections(file = fromRoot('docs', 'spec', 'iswc-agency-api.md')): Array<{ section: string; title: string }> {
  const out: Array<{ section: string; title: string }> = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s+(.*)$/.exec(line.trim());
    if (m?.[1] && m[2]) out.push({ section: m[1], title: m[2].trim() });
  }
  return out;
}

function covers(section: string, ref: string): boolean {
  return ref === section || ref.startsWith(`${section}.`);
}

function unique(items: Iterable<string>): string[] {
  return [...new Set(items)];
}

/**
 * A section's verdict. It is tested when every spec check citing it was exercised at least once
 * (`unexercised`: those that were not, with why); executions a plan or the profile left out of a check
 * that was exercised elsewhere are noted, not held against it: the certificate states what the run
 * showed, and its binding says which plan ran.
 */
function sectionVerdict(section: string, title: string, document: boolean, list: CheckExecution[], strict: boolean, unexercised: readonly NotExercised[] = []): SectionVerdict {
  const checks = tallyOf(list);
  const base = { section, title, document, checks };
  const failing = list.filter((e) => e.verdict === 'fail');
  const waived = list.filter((e) => e.verdict === 'waived');
  const skipped = list.filter((e) => e.verdict === 'skip');
  const waivedNote = waived.length > 0 ? `; ${waived.length} more waived` : '';
  const leftOut = skipped.length > 0 ? `${skipped.length} check execution(s) left out: ${unique(skipped.map((e) => e.skipReason ?? 'no reason given')).join('; ')}` : '';
  if (failing.length > 0) {
    const gatingCount = failing.filter((e) => gating(e.level, strict)).length;
    const ids = unique(failing.map((e) => e.checkId)).join(', ');
    return { ...base, verdict: 'not conformant', reason: `${failing.length} failing check execution(s) (${gatingCount} gating): ${ids}${waivedNote}` };
  }
  if (unexercised.length > 0) {
    const why = unexercised.map((n) => `${n.checkId} (${n.reasons.join('; ')})`).join('; ');
    return { ...base, verdict: 'not tested', reason: `spec check(s) of this section not exercised: ${why}${waivedNote}` };
  }
  if (checks.pass === 0 && waived.length === 0) {
    const why = skipped.length > 0 ? leftOut : checks.observed > 0 ? 'the document leaves these points open ("not shown"); behaviour recorded only' : 'no check of the harness covers this section';
    return { ...base, verdict: 'not tested', reason: why };
  }
  if (waived.length > 0) {
    const byCheck = unique(waived.map((e) => e.checkId)).map((id) => {
      const of = waived.filter((e) => e.checkId === id);
      const reasons = unique(of.map((e) => (e.waiver ? `${e.waiver.reason} (until ${e.waiver.until})` : 'waived')));
      return `${id} ×${of.length}: ${reasons.join('; ')}`;
    });
    return { ...base, verdict: 'conformant with waivers', reason: `only waived failures: ${byCheck.join('; ')}${leftOut ? `; ${leftOut}` : ''}` };
  }
  return { ...base, verdict: 'conformant', ...(leftOut ? { reason: leftOut } : {}) };
}

export interface CertificateInput {
  report: ConformanceReport;
  date?: Date;
}

/**
 * The certificate of one run: verdict per section, failures, condensed results, what the run was bound
 * to, digest. Reads the model only; throws UnboundReportError for a report that does not record its
 * binding (an earlier harness version). Whether the run is the one asked for is certify's to check
 * (bindingMismatches) before it calls this.
 */
export function buildCertificate(input: CertificateInput): Certificate {
  const { report } = input;
  const binding = runBinding(report.meta);
  const strict = report.meta.strict;
  const coverage = specCoverage(report.executions);
  const sections: SectionVerdict[] = documentSections().map(({ section, title }) =>
    sectionVerdict(
      section,
      title,
      true,
      report.executions.filter((e) => e.sections.some((s) => covers(section, s))),
      strict,
      coverage.notExercised.filter((n) => n.sections.some((s) => covers(section, s))),
    ),
  );
  const known = new Set(sections.map((s) => s.section));
  const beyond = unique(report.executions.flatMap((e) => e.sections)).filter((s) => !known.has(s) && !sections.some((d) => covers(d.section, s)));
  for (const ref of beyond.sort()) {
    sections.push(sectionVerdict(ref, /^RFC|OWASP/.test(ref) ? 'HTTP convention the document does not state' : 'reference outside the document', false, report.executions.filter((e) => e.sections.includes(ref)), strict));
  }
  const failures: CertificateFailure[] = report.executions
    .filter((e) => e.verdict === 'fail')
    .map((e) => ({
      checkId: e.checkId,
      level: e.level,
      sections: e.sections,
      gating: gating(e.level, strict),
      operation: operationKey(e),
      format: e.format,
      caseId: e.caseId,
      step: e.step,
      expected: e.expected ?? '',
      received: e.received ?? '',
      ...(e.curl ? { curl: cut(e.curl, 4000) } : {}),
    }));
  const waived: CertificateWaived[] = report.executions
    .filter((e) => e.verdict === 'waived')
    .map((e) => ({
      checkId: e.checkId,
      level: e.level,
      sections: e.sections,
      operation: operationKey(e),
      format: e.format,
      caseId: e.caseId,
      step: e.step,
      expected: e.expected ?? '',
      received: e.received ?? '',
      reason: e.waiver?.reason ?? '',
      until: e.waiver?.until ?? '',
      index: e.waiver?.index ?? -1,
    }));
  const gatingFailures = failures.filter((f) => f.gating).length;
  // Complete when every spec check of the registry was exercised: sections no check covers ("not shown")
  // are listed, never held against it.
  const verdict: Certificate['verdict'] = gatingFailures > 0 ? 'not conformant' : coverage.notExercised.length > 0 ? 'incomplete' : 'conformant';
  const body: Omit<Certificate, 'digest'> = {
    kind: 'iswc-conformance-certificate',
    certificateVersion: CERTIFICATE_VERSION,
    agency: { code: binding.agency, profile: binding.profile.name },
    // A target that serves only some formats (profile formats) was sent no request in the others: said next to the verdict.
    target: { profile: binding.profile, baseUrl: report.meta.baseUrl, origin: binding.origin, embedded: report.meta.embedded, runIds: issuedRunIds(report.executions), ...(report.meta.formats ? { formats: [...report.meta.formats] } : {}) },
    binding,
    date: (input.date ?? new Date()).toISOString(),
    harnessVersion: report.meta.harnessVersion,
    documentDigest: report.meta.documentDigest,
    schemasDigest: report.meta.schemasDigest,
    run: {
      seed: report.meta.seed,
      runs: report.meta.runs,
      strict,
      destructive: report.meta.destructive,
      startedAt: report.meta.startedAt,
      finishedAt: report.meta.finishedAt,
      requests: report.meta.requests,
      retries: report.meta.retries,
      ...(report.meta.answered !== undefined ? { answered: report.meta.answered } : {}),
      ...(report.meta.planned !== undefined ? { planned: report.meta.planned } : {}),
      waitedMs: report.meta.waitedMs,
    },
    verdict,
    verdictText: certificateVerdictText(verdict, coverage, waiversUsed(report.executions), binding.plan, report.meta.formats ? formatsLabel({ formats: report.meta.formats }) : undefined),
    coverage,
    sections,
    failures,
    waived,
    waivers: report.summary.waivers ?? null,
    results: report.executions.map((e): CondensedResult => [e.checkId, e.caseId, e.format, e.step, e.verdict]),
    integrity: UNSIGNED_INTEGRITY,
  };
  return withDigest(body);
}

type CertificateContent = Omit<Certificate, 'digest' | 'signature'>;

function withDigest(content: CertificateContent): Certificate {
  return { ...content, digest: { algorithm: 'sha256', canonicalization: CANONICALIZATION, value: certificateDigest(content) } };
}

/** Everything the digest and the signature cover: the certificate without `digest` and `signature`. */
export function certificateContent(certificate: CertificateContent | Certificate): CertificateContent {
  const content: Partial<Certificate> = { ...certificate };
  delete content.digest;
  delete content.signature;
  return content as CertificateContent;
}

/**
 * Signs a certificate with an Ed25519 private key: its integrity statement says so (and is signed too),
 * the digest is recomputed, and the signature and the public key's fingerprint are added.
 */
export function signCertificate(certificate: Certificate, privateKey: KeyObject): Certificate {
  const content: CertificateContent = { ...certificateContent(certificate), integrity: signedIntegrity(publicKeyFingerprint(privateKey)) };
  return { ...withDigest(content), signature: signBytes(canonicalJson(content), privateKey) };
}

/** "conformant with 2 waivers", "incomplete: 14 of 19 spec checks exercised", "not conformant". */
export function certificateVerdictText(verdict: Certificate['verdict'], coverage: SpecCoverage, waiversUsed: number, plan?: { name: string; budget: number | null; slice?: number } | null, formats?: string): string {
  const waivers = `${waiversUsed > 0 ? ` with ${plural(waiversUsed, 'waiver')}` : ''}${formats ? `, ${formats}` : ''}`;
  if (verdict === 'not conformant') return `${verdict}${formats ? ` (${formats})` : ''}`;
  // A plan that left cases out says so next to the verdict: every spec check was exercised, not every case run.
  const planned = plan && (plan.name !== 'full' || plan.budget !== null) ? ` (${plan.name === 'smoke' ? 'smoke plan' : 'full plan'}${plan.budget !== null ? `, budget ${plan.budget} requests` : ''}${plan.slice !== undefined ? `, slice ${plan.slice}` : ''}: every spec check exercised, not every case run)` : '';
  if (verdict === 'conformant') return `conformant${waivers}${planned}`;
  const partial = coverage.exercised < coverage.specChecks ? `: ${coverage.exercised} of ${coverage.specChecks} spec checks exercised` : '';
  return `incomplete${partial}${waivers}`;
}

/** The digest of a certificate's content: everything but `digest` and `signature`. */
export function certificateDigest(certificate: CertificateContent | Certificate): string {
  return sha256Hex(canonicalJson(certificateContent(certificate)));
}

export interface Verification extends CertificateVerification {
  /** The certificate's certificateVersion, when it is one this harness reads. */
  version: number | undefined;
}

export interface VerifyOptions {
  /** The issuer's public key: the certificate must be signed, by this key, and unedited since. */
  publicKey?: KeyObject;
}

/**
 * Recomputes the digest of a parsed certificate file, checks its verdicts agree with its own content and,
 * given the issuer's public key, that it is signed by that key and unedited since. Without a public key a
 * signature is reported, not checked: the digest alone proves no more than that the file is consistent.
 */
export function verifyCertificate(value: unknown, options: VerifyOptions = {}): Verification {
  const problems: string[] = [];
  if (value === null || typeof value !== 'object' || (value as { kind?: unknown }).kind !== 'iswc-conformance-certificate') {
    return { ok: false, recorded: undefined, computed: '', problems: ['not an ISWC conformance certificate'], signedBy: undefined, signatureVerified: false, version: undefined };
  }
  const cert = value as Certificate;
  const version = (value as { certificateVersion?: unknown }).certificateVersion;
  if (typeof version !== 'number' || !READABLE_VERSIONS.includes(version)) {
    return { ok: false, recorded: undefined, computed: '', problems: [`certificateVersion ${String(version)} is not one this harness reads (${READABLE_VERSIONS.join(', ')})`], signedBy: undefined, signatureVerified: false, version: undefined };
  }
  const recorded = typeof cert.digest?.value === 'string' ? cert.digest.value : undefined;
  const computed = certificateDigest(cert);
  const signature = cert.signature;
  const { signedBy, signatureVerified, problems: sealProblems } = sealCheck({
    content: canonicalJson(certificateContent(cert)),
    recorded,
    computed,
    signature,
    ...(options.publicKey ? { publicKey: options.publicKey } : {}),
    howToSign: 'npx iswc-conformance certify --report … --sign-key <private key PEM>',
  });
  problems.push(...sealProblems);
  if (!signature && cert.integrity !== undefined && cert.integrity !== UNSIGNED_INTEGRITY) problems.push('the integrity statement claims a signature, but the certificate carries none');
  // Consistency of the content itself: the verdicts must follow from the results.
  const results = Array.isArray(cert.results) ? cert.results : [];
  const failed = results.filter((r) => r[4] === 'fail').length;
  const failures = Array.isArray(cert.failures) ? cert.failures : [];
  if (failed !== (Array.isArray(cert.failures) ? cert.failures.length : -1)) problems.push(`results hold ${failed} failure(s), the failure list ${cert.failures?.length ?? 0}`);
  // Only gating failures bar "conformant" (spec; http in strict mode), as buildCertificate decides: each
  // failure's gating must follow from its level and the run's strictness.
  const strict = cert.run?.strict === true;
  for (const f of failures) {
    if (f.gating !== gating(f.level, strict)) problems.push(`failure ${f.checkId} [${f.level}] is marked ${f.gating ? 'gating' : 'not gating'}, but a ${f.level} failure ${gating(f.level, strict) ? 'gates' : 'does not gate'}${f.level === 'http' ? ` in a run with strict ${strict ? 'on' : 'off'}` : ''}`);
  }
  const gatingFailed = failures.filter((f) => gating(f.level, strict)).length;
  // Version 4 certifies what the run showed (every spec check exercised, executions left out noted);
  // earlier versions demanded that nothing was skipped.
  if (version >= 4) {
    if (cert.verdict === 'conformant' && (gatingFailed > 0 || (cert.coverage?.notExercised?.length ?? 0) > 0)) problems.push('verdict "conformant" with gating failures or spec checks not exercised');
  } else if (cert.verdict === 'conformant' && (gatingFailed > 0 || results.some((r) => r[4] === 'skip'))) problems.push('verdict "conformant" with gating failures or skipped results');
  const waived = results.filter((r) => r[4] === 'waived').length;
  if (waived !== (Array.isArray(cert.waived) ? cert.waived.length : 0)) problems.push(`results hold ${waived} waived failure(s), the waived list ${Array.isArray(cert.waived) ? cert.waived.length : 0}`);
  for (const s of cert.sections ?? []) {
    const skips = version >= 4 ? 0 : s.checks.skip;
    if (s.verdict === 'conformant' && (skips > 0 || s.checks.fail > 0 || (s.checks.waived ?? 0) > 0 || (version >= 4 && s.checks.pass === 0))) {
      problems.push(`section ${s.section} is "conformant" with ${s.checks.pass} pass(es), ${s.checks.fail} failure(s), ${s.checks.waived ?? 0} waived and ${s.checks.skip} skip(s)`);
    }
  }
  if (version >= 4) problems.push(...bindingProblems(cert));
  return { ok: problems.length === 0, recorded, computed, problems, signedBy, signatureVerified, version };
}

/** A certificate of version 4 names its agency and profile once more in `binding`: both must agree. */
function bindingProblems(cert: Certificate): string[] {
  const b = (cert as Partial<Certificate>).binding;
  if (!b || typeof b !== 'object' || !b.profile) return ['the certificate carries no binding (what the run was bound to)'];
  const problems: string[] = [];
  if (cert.agency?.code !== b.agency) problems.push(`agency ${String(cert.agency?.code)} differs from the binding's agency ${String(b.agency)}`);
  if (cert.target?.profile?.digest !== b.profile.digest || cert.target?.profile?.name !== b.profile.name) problems.push('the target profile differs from the binding\'s profile');
  return problems;
}

const STATUS_COLOUR: Record<SectionStatus, string> = { conformant: VERDICT_COLOUR.pass, 'conformant with waivers': VERDICT_COLOUR.waived, 'not conformant': VERDICT_COLOUR.fail, 'not tested': VERDICT_COLOUR.skip };

/** certificate.html: the same content for people; the JSON file with its digest is the reference. */
export function renderCertificateHtml(cert: Certificate): string {
  const overallColour =
    cert.verdict === 'not conformant' ? VERDICT_COLOUR.fail : cert.verdict === 'incomplete' ? VERDICT_COLOUR.skip : cert.waived.length > 0 ? VERDICT_COLOUR.waived : VERDICT_COLOUR.pass;
  const rows = cert.sections
    .map(
      (s) =>
        `<tr class="section" data-section="${h(s.section)}" data-verdict="${h(s.verdict)}"><td>${h(s.document ? `§${s.section}` : s.section)}</td><td>${h(s.title)}</td><td><span class="badge" style="background:${STATUS_COLOUR[s.verdict]}">${h(s.verdict)}</span></td><td>${s.checks.pass} ✓ · ${s.checks.fail} ✗${s.checks.waived ? ` · ${s.checks.waived} waived` : ''} · ${s.checks.skip} skipped · ${s.checks.observed} observed</td><td>${h(s.reason ?? '')}</td></tr>`,
    )
    .join('\n');
  const failures = cert.failures
    .map(
      (f) =>
        `<tr class="failure"><td><code>${h(f.checkId)}</code></td><td>${h(f.level)}${f.gating ? '' : ' (not gating)'}</td><td>${h(sectionsText(f.sections))}</td><td>${h(operationLabel(f.operation))} · ${h(f.format.toUpperCase())}<br><span class="muted">${h(f.caseId)} / ${h(f.step)}</span></td><td>${h(f.expected)}</td><td>${h(f.received)}${f.curl ? `<pre>${h(f.curl)}</pre>` : ''}</td></tr>`,
    )
    .join('\n');
  const body = `<h1>ISWC Agency API — conformance certificate <span id="verdict" class="badge" style="background:${overallColour}" data-verdict="${h(cert.verdict)}">${h(cert.verdictText)}</span></h1>
<table class="meta">
<tr><td>Agency</td><td>${h(cert.agency.code)} (profile ${h(cert.agency.profile)})</td></tr>
<tr><td>Target</td><td>${h(cert.target.baseUrl ?? '?')}${cert.target.embedded ? ' (embedded reference server)' : ''}</td></tr>
<tr><td>Target profile</td><td id="profile">"${h(cert.target.profile.name)}" <code>sha256:${h(cert.target.profile.digest)}</code><br><span class="muted">The profile is named by its content: SHA-256 of its canonical JSON, defaults filled in.</span></td></tr>
${cert.target.formats ? `<tr><td>Formats</td><td id="formats"><b>${h(formatsLabel({ formats: cert.target.formats }) ?? '')}</b>: the profile says the target serves no ${h((['json', 'xml'] as const).filter((f) => !cert.target.formats?.includes(f)).map((f) => f.toUpperCase()).join(', '))}, so no such request was sent and what only it exercises is listed as not exercised.</td></tr>` : ''}
<tr><td>Run identifiers the target issued</td><td id="run-ids">${runIdsHtml(cert.target.runIds)}</td></tr>
<tr><td>Date</td><td>${h(cert.date)}</td></tr>
<tr><td>Harness</td><td>${h(cert.harnessVersion)}</td></tr>
<tr><td>Interface document digest</td><td><code>${h(cert.documentDigest)}</code></td></tr>
<tr><td>Run</td><td>seed ${h(String(cert.run.seed ?? '—'))} · ISWC_RUNS ${cert.run.runs} · strict ${cert.run.strict ? 'yes' : 'no'} · destructive ${cert.run.destructive ? 'yes' : 'no'} · ${h(runFiguresText(cert.run))} · ${h(cert.run.startedAt)} → ${h(cert.run.finishedAt)}</td></tr>
<tr><td>Bound to</td><td id="binding">${bindingHtml(cert.binding)}</td></tr>
<tr><td>Results digest (SHA-256)</td><td><code id="digest">${h(cert.digest.value)}</code><br><span class="muted">${h(cert.digest.canonicalization)}. Check with <code>npx iswc-conformance verify certificate.json --public-key issuer.pub.pem</code>.</span></td></tr>
<tr><td>Integrity</td><td id="integrity" data-signed="${cert.signature ? 'yes' : 'no'}">${cert.signature ? `<b>Signed</b> (Ed25519, key <code>${h(cert.signature.publicKeyFingerprint)}</code>)` : '<b>Unsigned</b>'}: ${h(cert.integrity)}</td></tr>
</table>
<h2>Verdict per section</h2>
<p class="muted">A section with a skipped check is never "conformant". HTTP conventions (RFC 9110) are not stated by the document; their failures gate only in strict mode.</p>
<table id="sections"><tr><th>Section</th><th>Title</th><th>Verdict</th><th>Check executions</th><th>Reason</th></tr>${rows}</table>
<h2>Failures (${cert.failures.length})</h2>
${cert.failures.length === 0 ? '<p>No check failed.</p>' : `<table id="failures"><tr><th>Check</th><th>Level</th><th>Section</th><th>Where</th><th>Documented</th><th>Received</th></tr>${failures}</table>`}
${coverageHtml(cert)}
${waivedHtml(cert)}`;
  return page(`ISWC conformance certificate — agency ${cert.agency.code} — ${cert.verdictText}`, body);
}

/** What the run was bound to, one line each; certify refused any request that differed from one of them. */
export function bindingLines(b: RunBinding): Array<[string, string]> {
  return [
    ['profile', `"${b.profile.name}" ${shortDigest(b.profile.digest)}`],
    ['agency', b.agency],
    ['origin', b.origin ?? 'unknown'],
    ['harness', b.harnessVersion],
    ['interface document', shortDigest(b.documentDigest)],
    ['waivers', b.waiversDigest === null ? 'none' : shortDigest(b.waiversDigest)],
    ['seed', String(b.seed ?? 'unknown')],
    ['runs per property', String(b.runs)],
    ['plan', b.plan === null ? 'not recorded' : `${b.plan.name}${b.plan.budget === null ? '' : `, budget ${b.plan.budget}`}${b.plan.slice === undefined ? '' : `, slice ${b.plan.slice} (ISWC_SLICE)`}`],
    ['strict', b.strict ? 'yes' : 'no'],
  ];
}

function bindingHtml(b: RunBinding | undefined): string {
  if (!b) return '<span class="muted">not recorded (a certificate of an earlier version)</span>';
  return `${bindingLines(b)
    .map(([k, v]) => `${h(k)} <code>${h(v)}</code>`)
    .join(' · ')}<br><span class="muted">certify refuses to issue a certificate when what it is asked for differs from any of these.</span>`;
}

/** The target's run identifiers, a few shown and the rest on demand; what they are for, in words. */
function runIdsHtml(runIds: readonly string[]): string {
  const why = 'started agent runs, as the target answered them; the API team can find each in its records of the agency\'s runs';
  if (runIds.length === 0) return `<span class="muted">none recorded (the report keeps the exchanges of failures and observations only)</span>`;
  const shown = runIds.slice(0, 5).map((id) => `<code>${h(id)}</code>`).join(', ');
  const rest = runIds.length > 5 ? ` <details><summary>${runIds.length - 5} more</summary>${runIds.slice(5).map((id) => `<code>${h(id)}</code>`).join(', ')}</details>` : '';
  return `${runIds.length}: ${shown}${rest}<br><span class="muted">${h(why)}</span>`;
}

function coverageHtml(cert: Certificate): string {
  const { coverage } = cert;
  if (coverage.notExercised.length === 0) return `<p class="muted" id="coverage">All ${coverage.specChecks} spec checks of the document were exercised.</p>`;
  const rows = coverage.notExercised.map((n) => `<tr><td><code>${h(n.checkId)}</code></td><td>${h(sectionsText(n.sections))}</td><td>${h(n.reasons.join('; '))}</td></tr>`).join('');
  return `<h2 id="coverage">Spec checks not exercised (${coverage.notExercised.length} of ${coverage.specChecks})</h2>
<table id="not-exercised"><tr><th>Check</th><th>Section</th><th>Why</th></tr>${rows}</table>`;
}

function waivedHtml(cert: Certificate): string {
  if (cert.waived.length === 0 && !cert.waivers) return '';
  const rows = cert.waived
    .map(
      (w) =>
        `<tr class="waived"><td><code>${h(w.checkId)}</code> <span class="muted">waived</span></td><td>${h(sectionsText(w.sections))}</td><td>${h(operationLabel(w.operation))} · ${h(w.format.toUpperCase())}<br><span class="muted">${h(w.caseId)} / ${h(w.step)}</span></td><td>${h(w.expected)}</td><td>${h(w.received)}</td><td>${h(w.reason)} <span class="muted">(until ${h(w.until)}, entry ${w.index})</span></td></tr>`,
    )
    .join('\n');
  const entries = (cert.waivers?.entries ?? [])
    .map((w) => `<tr data-status="${h(w.status)}"><td>${w.index}</td><td><code>${h(w.check)}</code><br><span class="muted">covers ${h(w.covers ?? w.check)}</span></td><td>${h(w.operation ?? 'any')} · ${h(w.format ?? 'any')}</td><td>${h(w.reason)}</td><td>${h(w.until)}</td><td>${h(w.status)}</td><td>${w.count}</td></tr>`)
    .join('\n');
  const figures = cert.waivers ? `<p id="waiver-figures">Waivers of ${h(cert.waivers.file)}: ${h(waiverFiguresText(cert.waivers.figures))}</p>` : '';
  return `<h2>Waived failures (${cert.waived.length} check executions)</h2>
<p class="muted">Known deviations of the target, waived in the open by the run's waivers file until the date given. They do not gate.</p>
${figures}
${cert.waived.length === 0 ? '<p>No failure was waived.</p>' : `<table id="waived"><tr><th>Check</th><th>Section</th><th>Where</th><th>Documented</th><th>Received</th><th>Waiver</th></tr>${rows}</table>`}
${cert.waivers ? `<h3>Waivers of ${h(cert.waivers.file)}</h3><table id="waivers"><tr><th>Entry</th><th>Check</th><th>Operation · format</th><th>Reason</th><th>Until</th><th>Status</th><th>Waived</th></tr>${entries}</table>` : ''}`;
}
