/**
 * npm run expectations:update: runs the self-check (the suite against each fault of the reference
 * server's catalogue) and rewrites tests/expectations/faults.json, the checks that catch each fault.
 * Run it after a deliberate change to a check, a case or a fault; the diff of that file is the review.
 */
import { scriptArgs } from './args.ts';
import { expectationDiff, expectationsOf, readExpectations, writeExpectations } from '../lib/selfcheck/fault-expectations.ts';
import { selfCheck } from '../lib/selfcheck/selfcheck.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { fromRoot } from '../lib/foundation/paths.ts';
import { existsSync } from 'node:fs';
import { EMBEDDED_KEY, FAULTS, startReferenceServer } from '../server/index.ts';
import { isBlind } from '../server/choice-space.ts';

scriptArgs(
  `Usage: npm run expectations:update

Runs the self-check (the suite against each fault of the reference server's catalogue; the lenient
families with the smoke plan) and rewrites
tests/expectations/faults.json with the checks that catch each fault. Run it after a deliberate change to a
check, a case or a fault; the diff of that file is the review.`,
  {},
);
const file = fromRoot('tests', 'expectations', 'faults.json');
const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const started = Date.now();
const { results } = await selfCheck(FAULTS, (faultId) => startReferenceServer({ profile, key: EMBEDDED_KEY, faults: faultId ? [faultId] : [] }), { key: EMBEDDED_KEY, profile });
const actual = expectationsOf(results);
const changes = existsSync(file) ? expectationDiff(readExpectations(file), actual) : ['(no pinned file yet)'];
writeExpectations(file, actual);
const missed = results.filter((r) => r.caughtBy.length === 0 && !isBlind(r.fault.id)).map((r) => r.fault.id);
console.log(`${file}: ${results.length} faults, ${changes.length === 0 ? 'unchanged' : `${changes.length} change(s)`} (${Math.round((Date.now() - started) / 1000)} s)`);
for (const line of changes) console.log(`  ${line}`);
if (missed.length > 0) {
  console.log(`faults no check catches: ${missed.join(', ')}`);
  process.exitCode = 1;
}
