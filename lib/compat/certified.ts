import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ClientCertificate } from '../report/client/certificate.ts';
import { isClientCertificate, verifyClientCertificate } from '../report/client/certificate.ts';

/**
 * Whether a recorded session is the one an agency's client certificate binds (certify --client puts the
 * session's SHA-256 in the certificate): what `compat` says of each sandbox session with a certificate
 * beside it. The signature is not checked here (that needs the issuer's key: `verify --session`).
 */
export function certificationOf(sessionFile: string): string | undefined {
  const certFile = path.join(path.dirname(sessionFile), 'client-certificate.json');
  if (!existsSync(certFile)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(certFile, 'utf8'));
  } catch {
    return `${path.basename(certFile)} beside it cannot be read`;
  }
  if (!isClientCertificate(value)) return undefined;
  const cert = value as ClientCertificate;
  const check = verifyClientCertificate(value);
  const bound = cert.session.recording;
  if (!bound) return `the client certificate beside it binds no recorded session`;
  const digest = createHash('sha256').update(readFileSync(sessionFile)).digest('hex');
  if (digest !== bound.sha256) return `NOT the session its client certificate binds (sha256 ${digest.slice(0, 12)}…, certified ${bound.sha256.slice(0, 12)}…): edited since, or another session`;
  const signed = cert.signature ? `signed by ${cert.signature.publicKeyFingerprint} (check it: npx iswc-conformance verify client-certificate.json --session client-session.jsonl --public-key ISSUER.pub.pem)` : 'unsigned';
  return `${check.ok ? 'the session its client certificate binds' : `bound by a client certificate that does not verify (${check.problems[0] ?? ''})`}: ${cert.verdictText.slice(0, 80)}; ${signed}`;
}
