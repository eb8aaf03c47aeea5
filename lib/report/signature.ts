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

/**
 * An Ed25519 public key from PEM (SPKI). A private key is refused, though Node would derive its public
 * half: whoever verifies must never hold the issuer's private key, and one given where the public key
 * belongs is a file mixed up (or a private key passed around) that is said at once.
 */
export function publicKeyFromPem(pem: string): KeyObject {
  if (/-----BEGIN (?:[A-Z0-9]+ )?PRIVATE KEY-----/.test(pem)) {
    throw new SignatureKeyError(
      "it holds a PRIVATE key: give the issuer's public key (openssl pkey -in issuer.pem -pubout -out issuer.pub.pem); the private key stays with whoever signs, and whoever verifies never needs it",
    );
  }
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

/** What verifying a certificate's seal found: its digest and, given the issuer's public key, its signature. */
export interface SealCheck {
  problems: string[];
  /** The fingerprint of the key it says signed it; undefined when unsigned. */
  signedBy: string | undefined;
  /** True only when a public key was given and the signature holds for it. */
  signatureVerified: boolean;
}

/** What verifying a certificate found (conformance or client): its seal, the digests compared, and whether all held. */
export interface CertificateVerification extends SealCheck {
  ok: boolean;
  recorded: string | undefined;
  computed: string;
}

/**
 * The seal of a certificate (conformance or client): the digest recorded must be the one computed from its
 * content, and, given the issuer's public key, the certificate must be signed by that key over that content.
 * Without a key a signature is reported (signedBy), not checked. `howToSign` says how to issue a signed one.
 */
export function sealCheck(seal: { content: string; recorded: string | undefined; computed: string; signature: CertificateSignature | undefined; publicKey?: KeyObject; howToSign: string }): SealCheck {
  const problems: string[] = [];
  if (seal.recorded !== seal.computed) problems.push(`digest mismatch: recorded ${seal.recorded ?? '(none)'}, computed ${seal.computed}: the certificate was edited after it was issued`);
  const signature = seal.signature && typeof seal.signature === 'object' ? seal.signature : undefined;
  let signatureVerified = false;
  if (seal.publicKey) {
    if (!signature) problems.push(`the certificate is not signed: issue it with ${seal.howToSign}`);
    else {
      const found = signatureProblems(seal.content, signature, seal.publicKey);
      problems.push(...found);
      signatureVerified = found.length === 0;
    }
  }
  return { problems, signedBy: signature ? String(signature.publicKeyFingerprint) : undefined, signatureVerified };
}
