/**
 * npm run expectations:update:client: runs the example client with each fault of its catalogue
 * (examples/agency-client/faults.ts) through the sandbox and rewrites tests/expectations/client-faults.json,
 * the client checks that catch each fault. Run it after a deliberate change to a client check or a fault;
 * the diff of that file is the review. About 10 s (one fault meets a 10/min rate limit for 5 s).
 */
import { existsSync } from 'node:fs';
import { faultSession } from '../examples/agency-client/catalogue.ts';
import type { ClientFaultExpectations } from '../examples/agency-client/expectations.ts';
import { CLIENT_EXPECTATIONS_FILE, clientExpectationDiff, readClientExpectations, writeClientExpectations } from '../examples/agency-client/expectations.ts';
import { CLIENT_FAULTS } from '../examples/agency-client/faults.ts';

const actual: ClientFaultExpectations = {};
const missed: string[] = [];
for (const fault of CLIENT_FAULTS) {
  const outcome = await faultSession(fault);
  actual[fault.id] = { level: fault.level, exitCode: outcome.exitCode, caughtBy: outcome.flagged };
  if (!outcome.flagged.includes(fault.proves)) missed.push(`${fault.id} (meant for ${fault.proves})`);
}
const changes = existsSync(CLIENT_EXPECTATIONS_FILE) ? clientExpectationDiff(readClientExpectations(), actual) : ['(no pinned file yet)'];
writeClientExpectations(actual);
console.log(`${CLIENT_EXPECTATIONS_FILE}: ${CLIENT_FAULTS.length} client faults, ${changes.length === 0 ? 'unchanged' : `${changes.length} change(s)`}`);
for (const line of changes) console.log(`  ${line}`);
if (missed.length > 0) {
  console.log(`faults their check does not catch: ${missed.join(', ')}`);
  process.exitCode = 1;
}
