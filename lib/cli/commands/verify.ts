import { readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { verifyCertificate } from '../../report/certificate.ts';
import { isClientCertificate, verifyClientCertificate } from '../../report/client/certificate.ts';
import { publicKeyFromPem } from '../../report/signature.ts';
import type { Command } from '../command.ts';
import { EXIT, stringOption } from '../command.ts';

/**
 * `npx iswc-conformance verify CERTIFICATE`: recomputes the SHA-256 digest over the canonical JSON of
 * the certificate and checks that its verdicts follow from its results; with --public-key also that it
 * is signed by that key and unedited since.
 */
export const verifyCommand: Command = {
  name: 'verify',
  summary: 'check a certificate: digest, consistency, and its signature with --public-key',
  usage: 'npx iswc-conformance verify CERTIFICATE.json [--public-key ISSUER.pub.pem]   (a certificate or a client certificate)',
  description:
    "Recomputes the digest over the canonical JSON of the certificate and checks that its verdicts follow from its results. With --public-key (the issuer's Ed25519 public key, PEM) it also checks that the certificate is signed by that key and unedited since: the only check a person who edits the file and recomputes the digest cannot pass.",
  options: {
    'public-key': { type: 'string', value: 'PEM', description: "The issuer's Ed25519 public key (PEM)." },
  },
  positionals: { min: 1, max: 1 },
  exitCodes: [
    [EXIT.OK, 'intact (and signed by that key, when one is given)'],
    [EXIT.NOT_CONFORMANT, 'edited, inconsistent, or signed by another key'],
    [EXIT.USAGE, 'the certificate or the key cannot be read'],
  ],
  run({ values, positionals }, io) {
    const file = path.resolve(io.cwd, positionals[0] ?? '');
    const keyOption = stringOption(values, 'public-key');
    let value: unknown;
    let publicKey: KeyObject | undefined;
    try {
      value = JSON.parse(readFileSync(file, 'utf8'));
      if (keyOption !== undefined) publicKey = publicKeyFromPem(readFileSync(path.resolve(io.cwd, keyOption), 'utf8'));
    } catch (err) {
      io.stderr(`verify: cannot read ${positionals[0] ?? ''}${keyOption ? ` or ${keyOption}` : ''}: ${err instanceof Error ? err.message : String(err)}\n`);
      return EXIT.USAGE;
    }
    // A client certificate (certify --client) is checked the same way: digest, consistency, signature.
    const result = isClientCertificate(value) ? verifyClientCertificate(value, publicKey ? { publicKey } : {}) : verifyCertificate(value, publicKey ? { publicKey } : {});
    const shown = positionals[0] ?? file;
    if (!result.ok) {
      io.stderr(`verify: ${shown} FAILED\n${result.problems.map((p) => `  ✗ ${p}`).join('\n')}\n`);
      return EXIT.NOT_CONFORMANT;
    }
    const how = result.signatureVerified
      ? `signed by ${result.signedBy ?? '?'} and unedited since`
      : result.signedBy
        ? `consistent; signed by ${result.signedBy}, but the signature was NOT checked: pass --public-key with the issuer's public key`
        : 'consistent; unsigned: the digest only detects accidental edits, anyone who edits the file can recompute it';
    io.stdout(`verify: ${shown}: ${how} (sha256 ${result.computed})\n`);
    return EXIT.OK;
  },
};
