/**
 * npm run certify:verify -- reports/certificate.json
 *
 * Recomputes the SHA-256 digest over the canonical JSON of the certificate and checks that its verdicts
 * follow from its results. Exit status: 0 intact, 1 edited or inconsistent, 2 unreadable.
 */
import { readFileSync } from 'node:fs';
import { verifyCertificate } from '../lib/report/certificate.ts';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: npm run certify:verify -- reports/certificate.json\n');
  process.exit(2);
}
let value: unknown;
try {
  value = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  process.stderr.write(`certify:verify: cannot read ${file}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
const result = verifyCertificate(value);
if (result.ok) {
  process.stdout.write(`certify:verify: ${file} is intact (sha256 ${result.computed})\n`);
  process.exit(0);
}
process.stderr.write(`certify:verify: ${file} FAILED\n${result.problems.map((p) => `  ✗ ${p}`).join('\n')}\n`);
process.exit(1);
