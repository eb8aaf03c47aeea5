import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { CERTIFICATE_VERSION, verifyCertificate } from '../../report/certificate.ts';
import type { Certificate } from '../../report/certificate.ts';
import { isClientCertificate, verifyClientCertificate } from '../../report/client/certificate.ts';
import type { ClientCertificate } from '../../report/client/certificate.ts';
import { publicKeyFromPem } from '../../report/signature.ts';
import type { Command } from '../command.ts';
import { EXIT, stringOption, UsageError } from '../command.ts';

/** A sha256 digest as people compare it: its first 12 hex digits. */
const short = (digest: string | undefined): string => (typeof digest === 'string' ? `sha256 ${digest.replace(/^sha256:/, '').slice(0, 12)}…` : 'no digest');

/**
 * What the certificate says, restated under verify's own line: the verdict (an incomplete or partial one
 * in capitals, so that a consistent file is not read as a pass), the target, the profile, the dates, and
 * what verify checked against what. Lines of text, each starting with two spaces.
 */
export function restateCertificate(value: unknown, checked: { publicKey: string | undefined; session: string | undefined }): string[] {
  if (value === null || typeof value !== 'object') return [];
  const what: string[] = [];
  const against = checked.publicKey !== undefined ? `its signature against the public key ${checked.publicKey}` : 'no signature (no --public-key)';
  if (isClientCertificate(value)) {
    const c = value as ClientCertificate;
    const gaps = (c.notExercised ?? []).length;
    const verdict = c.verdict === 'conformant' && gaps > 0 ? `${c.verdictText} (PARTIAL: ${gaps} gating client check(s) never judged: ${c.notExercised.join(', ')})` : c.verdict === 'conformant' ? c.verdictText : c.verdictText.toUpperCase();
    what.push(`  verdict: ${verdict}`);
    what.push(`  client: agency ${c.client?.agency ?? 'not seen'}${c.client?.userAgent ? `, ${c.client.userAgent}` : ''}; judged by the sandbox (profile "${c.session?.profile ?? '?'}", ${c.session?.choices ?? '?'} habits, ${c.session?.requests ?? 0} requests${c.session?.strict ? ', strict' : ''})`);
    what.push(`  date: issued ${c.date}; session ${c.session?.startedAt ?? '?'} to ${c.session?.finishedAt ?? '?'}`);
    const results = (c.checks ?? []).reduce((n, k) => n + k.passed + k.failed, 0);
    what.push(
      `  checked: the digest (${short(c.digest?.value)}) recomputed over the certificate's content; its verdict against its ${(c.checks ?? []).length} client checks (${results} judgements) and violations; ${against}${checked.session !== undefined ? `; the recorded session ${checked.session} against the one it binds` : c.session?.recording ? `; not the recorded session it binds (${c.session.recording.file}: pass --session)` : ''}`,
    );
    return what;
  }
  const c = value as Partial<Certificate>;
  if (c.kind !== 'iswc-conformance-certificate') return [];
  const cov = c.coverage;
  const verdictText = c.verdictText ?? c.verdict ?? '?';
  const verdict =
    c.verdict === 'incomplete'
      ? `INCOMPLETE: ${verdictText.replace(/^incomplete:?\s*/, '')}${cov ? ` (${cov.specChecks - cov.exercised} spec check(s) not exercised: not a conformance verdict)` : ''}`
      : c.verdict === 'not conformant'
        ? verdictText.toUpperCase()
        : /not every case run/.test(verdictText)
          ? `${verdictText.replace(/ \(.*\)$/, '')} (PARTIAL: ${/\((.*)\)$/.exec(verdictText)?.[1] ?? 'a partial plan'})`
          : verdictText;
  what.push(`  verdict: ${verdict}`);
  const t = c.target;
  const where = t ? (t.embedded ? 'the embedded reference server' : (t.baseUrl ?? t.origin ?? 'a target not named')) : 'a target not named';
  what.push(`  target: ${where}; profile "${t?.profile?.name ?? c.agency?.profile ?? '?'}" (${short(t?.profile?.digest)}), agency ${c.agency?.code ?? '?'}${t?.formats ? `, ${t.formats.map((f) => f.toUpperCase()).join(' and ')} only` : ''}`);
  what.push(`  date: issued ${c.date ?? '?'}; run ${c.run?.startedAt ?? '?'} to ${c.run?.finishedAt ?? '?'} (${c.run?.requests ?? '?'} requests${c.run?.destructive ? ', destructive' : ''}${c.run?.strict ? ', strict' : ''})`);
  const results = Array.isArray(c.results) ? c.results : [];
  const fails = results.filter((r) => r[4] === 'fail').length;
  const waived = results.filter((r) => r[4] === 'waived').length;
  what.push(
    `  checked: the digest (${short(c.digest?.value)}) recomputed over the certificate's content; its verdicts against its own ${results.length} check executions (${fails} failed, ${waived} waived) and ${cov ? `coverage (${cov.exercised} of ${cov.specChecks} spec checks exercised)` : 'sections'}; its binding against its profile and agency; ${against}. Not checked: the target itself (verify sends no request)`,
  );
  return what;
}

/**
 * `npx iswc-conformance verify CERTIFICATE`: recomputes the SHA-256 digest over the canonical JSON of
 * the certificate, checks that its verdicts follow from its results and, with --public-key, that it is
 * signed by that key and unedited since. A verify that did not check a signature is not a pass: without
 * --public-key it exits 1, unless --allow-unsigned says that is what is wanted (and the output says so).
 */
export const verifyCommand: Command = {
  name: 'verify',
  summary: "check a certificate or a client certificate: digest, consistency, and its signature with the issuer's --public-key",
  usage: 'npx iswc-conformance verify CERTIFICATE.json (--public-key ISSUER.pub.pem | --allow-unsigned)   (a certificate or a client certificate)',
  description:
    "Recomputes the digest over the canonical JSON of the certificate and checks that its verdicts follow from its results, then restates what the certificate says: its verdict (INCOMPLETE or PARTIAL in capitals when it is), the target, the profile, the dates, and what was checked against what. With --public-key (the issuer's Ed25519 public key, PEM) it also checks that the certificate is signed by that key and unedited since: the only check a person who edits the file and recomputes the digest cannot pass, and the only one that makes verify exit 0 on its own. Without it verify exits 1, even on a consistent certificate, unless --allow-unsigned accepts a certificate whose signature (or lack of one) was not checked; the output then says that nothing proves who issued it.",
  options: {
    'public-key': { type: 'string', value: 'PEM', description: "The issuer's Ed25519 public key (PEM): the certificate must be signed by it and unedited since. A private key is refused (exit 2)." },
    session: {
      type: 'string',
      value: 'FILE',
      description: "A client certificate only: the recorded session handed over with it (client-session.jsonl): its SHA-256 must be the one the certificate binds, else exit 1 (the traffic is not the session certified).",
    },
    'allow-unsigned': {
      type: 'boolean',
      description: 'Accept (exit 0) a consistent certificate without checking a signature: an unsigned one, or a signed one without the key. The output says the signature was not checked. Not with --public-key.',
    },
  },
  positionals: { min: 1, max: 1 },
  exitCodes: [
    [EXIT.OK, 'intact and signed by the key given; with --allow-unsigned: consistent, signature not checked (said in the output)'],
    [EXIT.NOT_CONFORMANT, 'edited, inconsistent, signed by another key, or its signature was not checked (no --public-key, no --allow-unsigned); with --session, a session that is not the one certified'],
    [EXIT.USAGE, 'the certificate or the key cannot be read, --public-key names a private key (never the verifier\'s to hold), or --public-key and --allow-unsigned together'],
  ],
  run({ values, positionals }, io) {
    const file = path.resolve(io.cwd, positionals[0] ?? '');
    const keyOption = stringOption(values, 'public-key');
    const allowUnsigned = values['allow-unsigned'] === true;
    if (keyOption !== undefined && allowUnsigned) throw new UsageError('--public-key checks the signature, --allow-unsigned accepts a certificate without checking one: give one of them');
    let value: unknown;
    let publicKey: KeyObject | undefined;
    try {
      value = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      io.stderr(`verify: cannot read ${positionals[0] ?? ''}: ${err instanceof Error ? err.message : String(err)}\n`);
      return EXIT.USAGE;
    }
    if (keyOption !== undefined) {
      try {
        publicKey = publicKeyFromPem(readFileSync(path.resolve(io.cwd, keyOption), 'utf8'));
      } catch (err) {
        io.stderr(`verify: --public-key ${keyOption}: ${err instanceof Error ? err.message : String(err)}\n`);
        return EXIT.USAGE;
      }
    }
    // A client certificate (certify --client) is checked the same way: digest, consistency, signature.
    const result = isClientCertificate(value) ? verifyClientCertificate(value, publicKey ? { publicKey } : {}) : verifyCertificate(value, publicKey ? { publicKey } : {});
    const shown = positionals[0] ?? file;
    const sessionOption = stringOption(values, 'session');
    if (sessionOption !== undefined) {
      if (!isClientCertificate(value)) throw new UsageError('--session checks the recorded session of a client certificate (certify --client): this is a certificate of a run');
      let bytes: Buffer;
      try {
        bytes = readFileSync(path.resolve(io.cwd, sessionOption));
      } catch (err) {
        io.stderr(`verify: --session ${sessionOption}: ${err instanceof Error ? err.message : String(err)}\n`);
        return EXIT.USAGE;
      }
      const bound = (value as ClientCertificate).session.recording;
      const digest = createHash('sha256').update(bytes).digest('hex');
      if (!bound) result.problems.push('--session: the certificate binds no recorded session (it was issued without client-session.jsonl beside the report)');
      else if (bound.sha256 !== digest) result.problems.push(`--session: ${sessionOption} is not the session certified (sha256 ${digest}, the certificate binds ${bound.sha256}): it was edited, or it is another session`);
      result.ok = result.problems.length === 0;
    }
    const restated = restateCertificate(value, { publicKey: keyOption, session: sessionOption });
    const restatement = restated.length > 0 ? `\n${restated.join('\n')}` : '';
    const bound = isClientCertificate(value) ? (value as ClientCertificate).session.recording : undefined;
    const sessionNote = sessionOption !== undefined && bound ? `\n  the recorded session ${sessionOption} is the one certified (${bound.exchanges} exchanges, sha256 ${bound.sha256})` : '';
    if (!result.ok) {
      io.stderr(`verify: ${shown} FAILED\n${result.problems.map((p) => `  ✗ ${p}`).join('\n')}\n`);
      return EXIT.NOT_CONFORMANT;
    }
    const version = 'version' in result && typeof result.version === 'number' ? result.version : undefined;
    const old =
      version !== undefined && version < CERTIFICATE_VERSION
        ? `\n  note: certificateVersion ${version} was issued before certificates were bound to the profile's content, the waivers, the seed and the plan: it names its profile by name only`
        : '';
    if (result.signatureVerified) {
      io.stdout(`verify: ${shown}: signed by ${result.signedBy ?? '?'} and unedited since (sha256 ${result.computed})${old}${sessionNote}${restatement}\n`);
      return EXIT.OK;
    }
    const what = result.signedBy
      ? `signed by ${result.signedBy}, but the signature was NOT checked (no --public-key)`
      : 'UNSIGNED: nothing proves who issued it or that its results are genuine; the digest only detects accidental edits';
    if (allowUnsigned) {
      io.stdout(`verify: ${shown}: consistent (sha256 ${result.computed}); ${what}. Accepted because of --allow-unsigned: this is not a proof of the issuer.${old}${sessionNote}${restatement}\n`);
      return EXIT.OK;
    }
    io.stderr(
      `verify: ${shown}: consistent (sha256 ${result.computed}), but ${what}: not verified.\n  Pass --public-key with the issuer's public key to check the signature, or --allow-unsigned to accept it without.${old}${sessionNote}${restatement}\n`,
    );
    return EXIT.NOT_CONFORMANT;
  },
};
