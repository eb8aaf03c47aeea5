import type { KeyObject } from 'node:crypto';
import { allClientChecks } from '../../check/client/registry.ts';
import type { Level } from '../../generate/expectations.ts';
import { canonicalJson, sha256Hex } from '../canonical.ts';
import { escapeHtml as h } from '../escape.ts';
import { page, VERDICT_COLOUR } from '../html.ts';
import type { CertificateSignature, CertificateVerification } from '../signature.ts';
import { publicKeyFingerprint, sealCheck, signBytes } from '../signature.ts';
import { operationLabel, sectionsText } from '../view.ts';
import type { CellFormat, ClientReport, NotGating, TroubleMet } from './model.ts';
import { notGatingOf, notGatingText, PRODUCTION_CHECK } from './build.ts';
import type { OperationId } from '../../contract/operations.ts';
import { cellLabel, injectionText } from './labels.ts';

/**
 * The certificate of a client: what a sandbox session showed of an agency's software (its agency, its
 * User-Agent, the operations it exercised and got to succeed, the client checks it was judged by, the
 * trouble it survived), with a digest over its canonical JSON and, issued with a key, an Ed25519
 * signature (lib/report/signature.ts), checked by the same `verify` as the server certificate. Issued
 * only for a conformant session.
 */
export interface ClientCertificate {
  kind: 'iswc-conformance-client-certificate';
  /** 2: with `declared` and `exercised` (1, before them, is still verified). */
  certificateVersion: 1 | 2;
  client: { agency: string | null; userAgent: string | null; userAgents: string[] };
  date: string;
  harnessVersion: string;
  documentDigest: string;
  schemasDigest: string;
  session: {
    startedAt: string;
    finishedAt: string;
    endedBy: ClientReport['endedBy'];
    requests: number;
    strict: boolean;
    choices: string;
    profile: string;
    inject: ClientReport['sandbox']['inject'];
    rateLimit: string | null;
    operations: Record<string, number>;
    /**
     * Every exchange of the session as the sandbox recorded it (client-session.jsonl beside the report):
     * its SHA-256 binds the traffic handed over with the certificate to the session certified
     * (`verify --session`, and `compat` says so per agency).
     */
    recording?: SessionRecording;
  };
  /** What the client declared it does (each succeeded): operations, and formats (null: those it sent). */
  declared?: { operations: OperationId[]; formats: Array<'json' | 'xml'> | null };
  /** Each operation × format the client exercised: requests sent, and how many succeeded. */
  exercised?: Array<{ operation: OperationId; format: CellFormat; requests: number; succeeded: number; declared: boolean }>;
  /** conformant: every declared operation succeeded and no spec-level client check failed (with strict, no http-level one). */
  verdict: 'conformant' | 'not conformant';
  verdictText: string;
  /** Every client check the session judged, with its tally. */
  checks: Array<{ id: string; level: Level; sections: string[]; passed: number; failed: number; observed: number }>;
  /** Gating client checks (spec, and http) the session never judged: what this certificate does not cover. */
  notExercised: string[];
  trouble: TroubleMet[];
  /** The kinds of trouble the client met and went on after. */
  troubleSurvived: string[];
  /** The violations the report kept, condensed: check, level, where, which request, what came. */
  violations: Array<{ check: string; level: Level; gating: boolean; sections: string[]; operation: string; format: string; request: number; received: string }>;
  /** Checks that failed without gating (http without --strict) and what --strict would have made of the session; absent in certificates of earlier versions. */
  notGating?: NotGating;
  /**
   * What was observed, one line per check × operation × format: how often, and the first example. Among
   * them client.production-as-built: where production as built answers the client otherwise. Absent in
   * certificates of earlier versions.
   */
  observations?: Array<{ check: string; operation: string; format: string; count: number; request: number; received: string }>;
  integrity: string;
  digest: { algorithm: 'sha256'; canonicalization: string; value: string };
  signature?: CertificateSignature;
}

/** The recorded session a client certificate is bound to. */
export interface SessionRecording {
  /** Its file name, beside the report it was certified from. */
  file: string;
  sha256: string;
  exchanges: number;
}

const CANONICALIZATION = 'JSON of the certificate without `digest` and `signature`, object keys sorted, no whitespace, UTF-8';

export const CLIENT_UNSIGNED_INTEGRITY =
  'unsigned: the digest only detects accidental edits; anyone who edits this file can recompute it, so it proves nothing about who issued the certificate or whether its results are genuine';

function signedIntegrity(fingerprint: string): string {
  return `signed with Ed25519 by the key ${fingerprint}: an edit, even with the digest recomputed, breaks the signature; verify with the issuer's public key (npx iswc-conformance verify client-certificate.json --public-key issuer.pub.pem)`;
}

type Content = Omit<ClientCertificate, 'digest' | 'signature'>;

function contentOf(cert: Content | ClientCertificate): Content {
  const copy: Partial<ClientCertificate> = { ...cert };
  delete copy.digest;
  delete copy.signature;
  return copy as Content;
}

function withDigest(content: Content): ClientCertificate {
  return { ...content, digest: { algorithm: 'sha256', canonicalization: CANONICALIZATION, value: sha256Hex(canonicalJson(contentOf(content))) } };
}

/** The certificate of the session a client-conformance.json records (read and validated by the caller). */
export function buildClientCertificate(report: ClientReport, date = new Date(), recording?: SessionRecording): ClientCertificate {
  // The command line refuses first, saying why (lib/cli/commands/certify-client.ts).
  if (report.verdict !== 'conformant') throw new Error(`a session that is not conformant gets no certificate: ${report.verdictText}`);
  const judged = new Set(report.checks.exercised.map((c) => c.id));
  const notExercised = allClientChecks()
    .filter((c) => c.level !== 'observed' && !judged.has(c.id))
    .map((c) => c.id);
  const troubleSurvived = [...new Set(report.trouble.filter((t) => t.survived).map((t) => t.kind))];
  const done = report.coverage.cells.filter((c) => c.declared && c.succeeded > 0).map((c) => cellLabel(c.operation, c.format));
  const notGating = report.notGating ?? notGatingOf(report.checks.exercised, report.strict, report.verdict);
  const failedText = notGatingText(notGating);
  const gatingChecks = report.checks.exercised.filter((c) => c.level !== 'observed').length;
  const production = report.checks.exercised.find((c) => c.id === PRODUCTION_CHECK)?.observed ?? 0;
  const verdictText = `conformant: ${done.join(', ')} succeeded; ${gatingChecks} spec and http client checks judged${failedText ? `, of which ${failedText}` : ''}${troubleSurvived.length > 0 ? `; trouble survived: ${troubleSurvived.join(', ')}` : ''}${production > 0 ? `; production as built answers ${production} request${production === 1 ? '' : 's'} otherwise` : ''}`;
  return withDigest({
    kind: 'iswc-conformance-client-certificate',
    certificateVersion: 2,
    client: { agency: report.client.agency, userAgent: report.client.userAgents[0] ?? null, userAgents: report.client.userAgents },
    date: date.toISOString(),
    harnessVersion: report.harnessVersion,
    documentDigest: report.documentDigest,
    schemasDigest: report.schemasDigest,
    session: {
      startedAt: report.startedAt,
      finishedAt: report.finishedAt,
      endedBy: report.endedBy,
      requests: report.requests,
      strict: report.strict,
      choices: report.sandbox.choices,
      profile: report.sandbox.profile,
      inject: report.sandbox.inject,
      rateLimit: report.sandbox.rateLimit,
      operations: report.operations,
      ...(recording ? { recording } : {}),
    },
    declared: { operations: report.coverage.operations, formats: report.coverage.formats },
    exercised: report.coverage.cells.map((c) => ({ operation: c.operation, format: c.format, requests: c.requests, succeeded: c.succeeded, declared: c.declared })),
    verdict: 'conformant',
    verdictText,
    checks: report.checks.exercised.map((c) => ({ id: c.id, level: c.level, sections: c.sections, passed: c.passed, failed: c.failed, observed: c.observed })),
    notExercised,
    trouble: report.trouble,
    troubleSurvived,
    violations: report.violations.map((v) => ({ check: v.check, level: v.level, gating: v.gating, sections: v.sections, operation: v.operation, format: v.format, request: v.request.seq, received: v.received })),
    notGating,
    observations: observationLines(report),
    integrity: CLIENT_UNSIGNED_INTEGRITY,
  });
}

/** The observations of a report, one line per check × operation × format, with the group's count and its first example. */
function observationLines(report: ClientReport): NonNullable<ClientCertificate['observations']> {
  const out: NonNullable<ClientCertificate['observations']> = [];
  const seen = new Set<string>();
  for (const o of report.observations) {
    const key = `${o.check}\u0001${o.operation}\u0001${o.format}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const count = report.groups.find((g) => g.check === o.check && g.operation === o.operation && g.format === o.format)?.observed ?? 1;
    out.push({ check: o.check, operation: o.operation, format: o.format, count, request: o.request.seq, received: o.received });
  }
  // Where production as built answers otherwise first: what the client meets on its first day.
  return out.sort((a, b) => Number(b.check === PRODUCTION_CHECK) - Number(a.check === PRODUCTION_CHECK));
}

/** Signs a client certificate: the integrity statement says so (and is signed too), the digest is recomputed. */
export function signClientCertificate(cert: ClientCertificate, privateKey: KeyObject): ClientCertificate {
  const content: Content = { ...contentOf(cert), integrity: signedIntegrity(publicKeyFingerprint(privateKey)) };
  return { ...withDigest(content), signature: signBytes(canonicalJson(content), privateKey) };
}


export function isClientCertificate(value: unknown): boolean {
  return value !== null && typeof value === 'object' && (value as { kind?: unknown }).kind === 'iswc-conformance-client-certificate';
}

/**
 * Recomputes the digest of a parsed client certificate, checks that its verdict follows from its checks
 * and, given the issuer's public key, that it is signed by that key and unedited since.
 */
export function verifyClientCertificate(value: unknown, options: { publicKey?: KeyObject } = {}): CertificateVerification {
  if (!isClientCertificate(value)) return { ok: false, recorded: undefined, computed: '', problems: ['not an ISWC client certificate'], signedBy: undefined, signatureVerified: false };
  const cert = value as ClientCertificate;
  const recorded = typeof cert.digest?.value === 'string' ? cert.digest.value : undefined;
  const content = canonicalJson(contentOf(cert));
  const computed = sha256Hex(content);
  const signature = cert.signature;
  const { signedBy, signatureVerified, problems } = sealCheck({
    content,
    recorded,
    computed,
    signature,
    ...(options.publicKey ? { publicKey: options.publicKey } : {}),
    howToSign: 'npx iswc-conformance certify --client … --sign-key <private key PEM>',
  });
  if (!signature && cert.integrity !== CLIENT_UNSIGNED_INTEGRITY) problems.push('the integrity statement claims a signature, but the certificate carries none');
  const version = (value as { certificateVersion?: unknown }).certificateVersion;
  if (version !== 1 && version !== 2) problems.push(`certificateVersion ${JSON.stringify(version) ?? '(none)'} is not one this harness reads (1 or 2)`);
  if (version === 2 && cert.verdict === 'conformant') {
    // Conformant means it worked: every declared operation × format succeeded.
    const exercised = Array.isArray(cert.exercised) ? cert.exercised : [];
    const unmet = exercised.filter((c) => c.declared && !(c.succeeded > 0));
    if (unmet.length > 0) problems.push(`verdict "conformant" with declared operations that never succeeded: ${unmet.map((c) => cellLabel(c.operation, c.format)).join(', ')}`);
    const declaredOps = cert.declared?.operations ?? [];
    const missingOps = declaredOps.filter((op) => !exercised.some((c) => c.operation === op && c.declared && c.succeeded > 0));
    if (missingOps.length > 0) problems.push(`verdict "conformant" although declared operations are not shown to succeed: ${missingOps.join(', ')}`);
  }
  const checks = Array.isArray(cert.checks) ? cert.checks : [];
  const judged = checks.some((c) => c.passed + c.failed + c.observed > 0);
  if (cert.verdict === 'conformant' && (!judged || !((cert.session?.requests ?? 0) > 0))) problems.push('verdict "conformant" on a session that judged no request of the client: it shows nothing to certify');
  const gatingFailed = checks.filter((c) => c.failed > 0 && (c.level === 'spec' || (c.level === 'http' && cert.session?.strict === true)));
  if (cert.verdict === 'conformant' && gatingFailed.length > 0) problems.push(`verdict "conformant" with failing gating checks: ${gatingFailed.map((c) => c.id).join(', ')}`);
  if (cert.verdict === 'not conformant' && gatingFailed.length === 0) problems.push('verdict "not conformant" without a failing gating check');
  if (cert.notGating !== undefined) {
    // Every failure is counted: a check that failed without gating is listed with what --strict makes of it.
    const failedNotGating = checks.filter((c) => c.failed > 0 && !gatingFailed.includes(c)).map((c) => c.id).sort();
    const listed = (Array.isArray(cert.notGating.checks) ? cert.notGating.checks : []).map((c) => c.id).sort();
    if (failedNotGating.join(',') !== listed.join(',')) problems.push(`checks that failed without gating (${failedNotGating.join(', ') || 'none'}) are not those the certificate lists (${listed.join(', ') || 'none'})`);
  }
  return { ok: problems.length === 0, recorded, computed, problems, signedBy, signatureVerified };
}

/** The operations × formats the session exercised, as the certificate's first table. */
function exercisedHtml(cert: ClientCertificate): string {
  if (!cert.exercised) return '';
  const declared = cert.declared;
  const rows = cert.exercised
    .map((c) => `<tr class="exercised" data-operation="${h(c.operation)}" data-format="${h(c.format)}"><td>${h(cellLabel(c.operation, c.format))}</td><td>${c.requests}</td><td>${c.succeeded}</td><td>${c.declared ? 'declared' : 'not declared'}</td></tr>`)
    .join('\n');
  const what = declared ? `Declared: ${h(declared.operations.join(', '))}${declared.formats ? ` in ${h(declared.formats.join(', '))}` : ' (in the formats the client sent)'}; each succeeded at least once.` : '';
  return `<h2>Operations exercised</h2>
<p>${what}</p>
<table id="exercised"><tr><th>Operation × format</th><th>Requests</th><th>Succeeded</th><th></th></tr>${rows}</table>`;
}

/** client-certificate.html: the same content for people; the JSON file with its digest is the reference. */
export function renderClientCertificateHtml(cert: ClientCertificate): string {
  const colour = cert.verdict === 'conformant' ? VERDICT_COLOUR.pass : VERDICT_COLOUR.fail;
  const rows = cert.checks
    .map((c) => `<tr class="check" data-check="${h(c.id)}"><td><code>${h(c.id)}</code></td><td>${h(c.level)}</td><td>${h(sectionsText(c.sections))}</td><td>${c.passed} ✓ · ${c.failed} ✗ · ${c.observed} observed</td></tr>`)
    .join('\n');
  const trouble = cert.trouble.map((t) => `<tr><td>${h(t.kind)}</td><td>#${t.request}</td><td>${t.survived ? `survived${t.survivedBy !== undefined ? ` (#${t.survivedBy} succeeded)` : ''}` : 'not survived'}</td></tr>`).join('');
  const violations = cert.violations
    .map((v) => `<tr><td><code>${h(v.check)}</code></td><td>${h(v.level)}${v.gating ? '' : ' (not gating)'}</td><td>${h(sectionsText(v.sections))}</td><td>${h(operationLabel(v.operation))} · ${h(v.format)} · #${v.request}</td><td>${h(v.received)}</td></tr>`)
    .join('\n');
  const body = `<h1>ISWC Agency API — client certificate <span id="verdict" class="badge" style="background:${colour}" data-verdict="${h(cert.verdict)}">${h(cert.verdictText)}</span></h1>
<table class="meta">
<tr><td>Client (User-Agent)</td><td>${h(cert.client.userAgent ?? '(none sent)')}</td></tr>
<tr><td>Agency</td><td>${h(cert.client.agency ?? '—')}</td></tr>
<tr><td>Session</td><td>${cert.session.requests} requests · ${h(cert.session.startedAt)} → ${h(cert.session.finishedAt)} · choices ${h(cert.session.choices)} · profile ${h(cert.session.profile)} · strict ${cert.session.strict ? 'yes' : 'no'} · trouble ${h(cert.session.inject.map((i) => injectionText(i)).join(', ') || 'none')}${cert.session.rateLimit ? ` · rate limit ${h(cert.session.rateLimit)}` : ''}</td></tr>${cert.session.recording ? `
<tr><td>Recorded session</td><td>${h(cert.session.recording.file)}: ${cert.session.recording.exchanges} exchanges, sha256 <code>${h(cert.session.recording.sha256)}</code></td></tr>` : ''}
<tr><td>Date</td><td>${h(cert.date)}</td></tr>
<tr><td>Harness</td><td>${h(cert.harnessVersion)}</td></tr>
<tr><td>Interface document digest</td><td><code>${h(cert.documentDigest)}</code></td></tr>
<tr><td>Digest (SHA-256)</td><td><code id="digest">${h(cert.digest.value)}</code></td></tr>
<tr><td>Integrity</td><td id="integrity" data-signed="${cert.signature ? 'yes' : 'no'}">${cert.signature ? `<b>Signed</b> (Ed25519, key <code>${h(cert.signature.publicKeyFingerprint)}</code>)` : '<b>Unsigned</b>'}: ${h(cert.integrity)}</td></tr>
</table>
${exercisedHtml(cert)}
<h2>Client checks exercised (${cert.checks.length})</h2>
<table id="checks"><tr><th>Check</th><th>Level</th><th>Section</th><th>Requests judged</th></tr>${rows}</table>
${cert.notExercised.length > 0 ? `<p class="muted" id="not-exercised">Not exercised by this session: ${h(cert.notExercised.join(', '))}.</p>` : ''}
<h2>Trouble</h2>
${cert.trouble.length === 0 ? '<p>None was given.</p>' : `<table id="trouble"><tr><th>Kind</th><th>Request</th><th>Outcome</th></tr>${trouble}</table>`}
<h2>Violations (${cert.violations.length})</h2>
${notGatingText(cert.notGating ?? { checks: [], failures: 0, withStrict: cert.verdict }) !== undefined ? `<p id="not-gating">Failed, not gating: ${h(notGatingText(cert.notGating ?? { checks: [], failures: 0, withStrict: cert.verdict }) ?? '')}.</p>` : ''}
${cert.violations.length === 0 ? '<p>No client check failed.</p>' : `<table id="violations"><tr><th>Check</th><th>Level</th><th>Section</th><th>Where</th><th>What the client sent</th></tr>${violations}</table>`}
<h2>Observations (${(cert.observations ?? []).reduce((n, o) => n + o.count, 0)})</h2>
<p class="muted">Where the client relies on a point the document leaves open, recorded, never a failure; <code>${PRODUCTION_CHECK}</code>: where production as built answers the client otherwise than the sandbox did.</p>
${(cert.observations ?? []).length === 0 ? '<p>Nothing observed.</p>' : `<table id="observations"><tr><th>Check</th><th>Where</th><th>Requests</th><th>First example</th></tr>${(cert.observations ?? []).map((o) => `<tr class="observation" data-check="${h(o.check)}"><td><code>${h(o.check)}</code></td><td>${h(operationLabel(o.operation))} · ${h(o.format)}</td><td>${o.count}</td><td>#${o.request} ${h(o.received)}</td></tr>`).join('\n')}</table>`}`;
  return page(`ISWC client certificate — ${cert.client.userAgent ?? 'client'} — ${cert.verdictText}`, body);
}
