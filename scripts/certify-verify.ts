/**
 * npm run certify:verify -- reports/certificate.json [--public-key issuer.pub.pem]
 *
 * Recomputes the SHA-256 digest over the canonical JSON of the certificate and checks that its verdicts
 * follow from its results. With --public-key (the issuer's Ed25519 public key, PEM), also checks that the
 * certificate is signed by that key and unedited since: the only check a person who edits the file and
 * recomputes the digest cannot pass. Without it, a signature is reported, not checked.
 * Exit status: 0 intact (and signed by that key, when one is given), 1 edited, inconsistent, unsigned or
 * signed by another key, 2 unreadable.
 */
import { readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { parseArgs } from 'node:util';
import { verifyCertificate } from '../lib/report/certificate.ts';
import { publicKeyFromPem } from '../lib/report/signature.ts';

function main(): number {
  let values: { 'public-key'?: string | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ options: { 'public-key': { type: 'string' } }, allowPositionals: true }));
  } catch (err) {
    process.stderr.write(`certify:verify: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const file = positionals[0];
  if (!file || positionals.length > 1) {
    process.stderr.write('usage: npm run certify:verify -- reports/certificate.json [--public-key issuer.pub.pem]\n');
    return 2;
  }
  let value: unknown;
  let publicKey: KeyObject | undefined;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
    if (values['public-key'] !== undefined) publicKey = publicKeyFromPem(readFileSync(values['public-key'], 'utf8'));
  } catch (err) {
    process.stderr.write(`certify:verify: cannot read ${file}${values['public-key'] ? ` or ${values['public-key']}` : ''}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const result = verifyCertificate(value, publicKey ? { publicKey } : {});
  if (!result.ok) {
    process.stderr.write(`certify:verify: ${file} FAILED\n${result.problems.map((p) => `  ✗ ${p}`).join('\n')}\n`);
    return 1;
  }
  const how = result.signatureVerified
    ? `signed by ${result.signedBy ?? '?'} and unedited since`
    : result.signedBy
      ? `consistent; signed by ${result.signedBy}, but the signature was NOT checked: pass --public-key with the issuer's public key`
      : 'consistent; unsigned: the digest only detects accidental edits, anyone who edits the file can recompute it';
  process.stdout.write(`certify:verify: ${file}: ${how} (sha256 ${result.computed})\n`);
  return 0;
}

process.exitCode = main();
