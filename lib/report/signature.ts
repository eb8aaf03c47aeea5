import { createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/**
 * Ed25519 signatures of certificates (node:crypto, no dependency). The signed bytes are the canonical
 * JSON the digest is computed over; the certificate carries the signature and the fingerprint of the
 * public key that checks it, never the key itself: whoever verifies gets the issuer's public key by
 * another way, so a forger cannot simply put in their own.
 */

export interface CertificateSignature {
  algorithm: 'ed25519';
  /** `sha256:` and the hex SHA-256 of the public key's DER SubjectPublicKeyInfo (`openssl pkey -pubin -outform DER | sha256sum`). */
  publicKeyFingerprint: string;
  /** Base64 of the 64-byte Ed25519 signature over the canonical JSON the digest covers. */
  value: string;
}

export class SignatureKeyError extends Error {}

function ed25519(key: KeyObject, what: string): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519') throw new SignatureKeyError(`${what} is a ${key.asymmetricKeyType ?? 'symmetric'} key; certificates are signed with Ed25519 (openssl genpkey -algorithm ed25519)`);
  return key;
}

/** An Ed25519 private key from PEM (PKCS#8, unencrypted). */
export function privateKeyFromPem(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw new SignatureKeyError(`not a private key in PEM: ${err instanceof Error ? err.message : String(err)}`);
  }
  return ed25519(key, 'the signing key');
}

/** An Ed25519 public key from PEM (SPKI); a private key's PEM gives its public half. */
export function publicKeyFromPem(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw new SignatureKeyError(`not a public key in PEM: ${err instanceof Error ? err.message : String(err)}`);
  }
  return ed25519(key, 'the public key');
}

export function publicKeyFingerprint(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return `sha256:${createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex')}`;
}

export function signBytes(message: string, privateKey: KeyObject): CertificateSignature {
  return { algorithm: 'ed25519', publicKeyFingerprint: publicKeyFingerprint(privateKey), value: sign(null, Buffer.from(message, 'utf8'), privateKey).toString('base64') };
}

/** Problems with a signature against the given public key; empty when it holds. */
export function signatureProblems(message: string, signature: CertificateSignature, publicKey: KeyObject): string[] {
  const problems: string[] = [];
  if (signature.algorithm !== 'ed25519') problems.push(`signature algorithm "${String(signature.algorithm)}" is not ed25519`);
  const fingerprint = publicKeyFingerprint(publicKey);
  if (signature.publicKeyFingerprint !== fingerprint) {
    problems.push(`signed by the key ${String(signature.publicKeyFingerprint)}, not by the public key given (${fingerprint})`);
  }
  let ok = false;
  try {
    ok = verify(null, Buffer.from(message, 'utf8'), publicKey, Buffer.from(String(signature.value), 'base64'));
  } catch {
    ok = false;
  }
  if (!ok) problems.push('the signature does not match the certificate: it was edited after it was signed, or signed by another key');
  return problems;
}
