import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { shownPath } from '../../foundation/paths.ts';
import { buildClientCertificate, renderClientCertificateHtml, signClientCertificate } from '../../report/client/certificate.ts';
import { notGatingText } from '../../report/client/build.ts';
import type { SessionRecording } from '../../report/client/certificate.ts';
import { SESSION_FILE } from '../../sandbox/recorder.ts';
import { cellLabel } from '../../report/client/labels.ts';
import { operationLabel } from '../../report/view.ts';
import { readClientReport } from '../../report/client/validate.ts';
import { privateKeyFromPem } from '../../report/signature.ts';
import { writeRedacted } from '../../report/write.ts';
import type { CliIo, OptionValues } from '../command.ts';
import { EXIT, stringOption, UsageError } from '../command.ts';
import { verifyHint } from '../verify-hint.ts';

/** The options of `certify` that apply to a client certificate; the others belong to a run. */
const CLIENT_OPTIONS = new Set(['client', 'sign-key', 'out', 'help', 'version']);

/** The private key of --sign-key, read now: a missing or unreadable one is the caller's to fix (exit 2). */
export function signingKeyOption(signKey: string | undefined, cwd: string): KeyObject | undefined {
  if (signKey === undefined) return undefined;
  const keyFile = path.resolve(cwd, signKey);
  if (!existsSync(keyFile)) throw new UsageError(`--sign-key: no signing key at ${keyFile}`);
  try {
    return privateKeyFromPem(readFileSync(keyFile, 'utf8'));
  } catch (err) {
    throw new UsageError(`--sign-key ${signKey}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The session the sandbox recorded beside its report (client-session.jsonl), as a certificate binds it; undefined when there is none. */
export function sessionRecording(dir: string): SessionRecording | undefined {
  const file = path.join(dir, SESSION_FILE);
  if (!existsSync(file)) return undefined;
  const bytes = readFileSync(file);
  const exchanges = bytes.toString('utf8').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{"session"')).length;
  return { file: SESSION_FILE, sha256: createHash('sha256').update(bytes).digest('hex'), exchanges };
}

/** The reportVersion of a JSON file, when it has one (to refuse an older report with its own words). */
function reportVersionOf(file: string): unknown {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return value !== null && typeof value === 'object' ? (value as { reportVersion?: unknown }).reportVersion : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `npx iswc-conformance certify --client DIR/client-conformance.json [--sign-key KEY.pem] [--out DIR]`:
 * the certificate of a client, from a conformant sandbox session's report: client-certificate.json and
 * client-certificate.html next to the report (or in --out), signed with --sign-key when given. A session
 * that is not conformant (a gating violation, or a declared operation that never succeeded) or that
 * judged nothing gets no certificate: exit 1, with why.
 */
export function certifyClient(values: OptionValues, io: CliIo): number {
  const given = Object.keys(values).filter((k) => values[k] !== undefined && !CLIENT_OPTIONS.has(k));
  if (given.length > 0) throw new UsageError(`--client certifies a finished sandbox session: ${given.map((k) => `--${k}`).join(', ')} applies to a run of the suite`);
  const reportFile = path.resolve(io.cwd, stringOption(values, 'client') ?? '');
  if (!existsSync(reportFile)) throw new UsageError(`--client: no client report at ${reportFile} (a sandbox session writes client-conformance.json)`);
  const signingKey = signingKeyOption(stringOption(values, 'sign-key'), io.cwd);
  const version = reportVersionOf(reportFile);
  if (version !== undefined && version !== 2) throw new UsageError(`--client: ${reportFile} is a client report of version ${JSON.stringify(version)}, written by an older iswc-conformance without what the client exercised; run the session again with this one`);
  let report;
  try {
    report = readClientReport(reportFile);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const shown = shownPath(reportFile, io.cwd);
  if (report.verdict === 'incomplete' || report.checks.exercised.length === 0) {
    io.stderr(`no client certificate: the session of ${shown} judged no request of the client (${report.requests} request(s) received), so it shows nothing to certify; run the client against the sandbox and certify that session\n`);
    return EXIT.NOT_CONFORMANT;
  }
  if (report.verdict !== 'conformant') {
    io.stderr(`no client certificate: the session of ${shown} is ${report.verdictText}\n  a certificate says the client works: fix what the report names (client-conformance.html next to it) and certify a conformant session\n`);
    return EXIT.NOT_CONFORMANT;
  }
  const recording = sessionRecording(path.dirname(reportFile));
  const issued = buildClientCertificate(report, new Date(), recording);
  const certificate = signingKey ? signClientCertificate(issued, signingKey) : issued;
  const outDir = path.resolve(io.cwd, stringOption(values, 'out') ?? path.dirname(reportFile));
  const jsonFile = path.join(outDir, 'client-certificate.json');
  const htmlFile = path.join(outDir, 'client-certificate.html');
  writeRedacted(jsonFile, `${JSON.stringify(certificate, null, 2)}\n`);
  writeRedacted(htmlFile, renderClientCertificateHtml(certificate));
  const lines = [
    `client certificate: ${certificate.verdictText} — ${certificate.client.userAgent ?? 'no User-Agent'}, agency ${certificate.client.agency ?? '?'}, ${certificate.session.requests} request(s)`,
    ...(certificate.exercised ?? []).map((c) => `  ${c.succeeded > 0 ? '✓' : '·'} ${cellLabel(c.operation, c.format)}: ${c.requests} sent, ${c.succeeded} succeeded${c.declared ? '' : ' (not declared)'}`),
    `  ${certificate.checks.length} client checks exercised (${certificate.checks.filter((c) => c.level !== 'observed').length} spec or http, ${certificate.checks.filter((c) => c.level === 'observed').length} observed)${certificate.notExercised.length > 0 ? `; not exercised: ${certificate.notExercised.join(', ')}` : ''}`,
    ...(certificate.notGating && certificate.notGating.checks.length > 0 ? [`  ✗ failed, not gating: ${notGatingText(certificate.notGating) ?? ''}`] : []),
    ...(certificate.observations ?? []).slice(0, 10).map((o) => `  observed ${o.check} on ${operationLabel(o.operation)}${o.format === 'none' ? '' : ` ${o.format.toUpperCase()}`} ×${o.count}: #${o.request} ${o.received}`.slice(0, 300)),
    ...((certificate.observations ?? []).length > 10 ? [`  … ${(certificate.observations ?? []).length - 10} more observed in client-certificate.json`] : []),
    ...certificate.trouble.slice(0, 20).map((t) => `  trouble ${t.kind} on request ${t.request}: ${t.survived ? 'survived' : 'not survived'}`),
    recording ? `  bound to the recorded session ${shownPath(path.join(path.dirname(reportFile), recording.file), io.cwd)}: ${recording.exchanges} exchanges, sha256 ${recording.sha256}` : '  no recorded session beside the report (client-session.jsonl): the certificate binds none',
    `  digest sha256 ${certificate.digest.value}`,
    certificate.signature ? `  signed ed25519 by ${certificate.signature.publicKeyFingerprint}` : '  unsigned: the digest only detects accidental edits (sign with --sign-key <private key PEM>)',
    `  ${shownPath(jsonFile, io.cwd)} · ${shownPath(htmlFile, io.cwd)}`,
    verifyHint(jsonFile, signingKey ? stringOption(values, 'sign-key') : undefined, io.cwd),
  ];
  io.stdout(`${lines.join('\n')}\n`);
  return certificate.verdict === 'conformant' ? EXIT.OK : EXIT.NOT_CONFORMANT;
}
