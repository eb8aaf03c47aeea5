/**
 * The pinned client-fault expectations (tests/expectations/client-faults.json): for each fault of the
 * catalogue, the client checks that flag it (fail, or record an observation) and the session's exit
 * status. The catalogue test fails on any difference; `npm run expectations:update:client` rewrites the
 * file after a deliberate change, and its diff is the review.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expectationDiff } from '../../lib/selfcheck/fault-expectations.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';

export const CLIENT_EXPECTATIONS_FILE = fromRoot('tests', 'expectations', 'client-faults.json');

export type ClientFaultExpectations = Record<string, { level: string; exitCode: number; caughtBy: string[] }>;

export function readClientExpectations(file = CLIENT_EXPECTATIONS_FILE): ClientFaultExpectations {
  return JSON.parse(readFileSync(file, 'utf8')) as ClientFaultExpectations;
}

export function writeClientExpectations(expectations: ClientFaultExpectations, file = CLIENT_EXPECTATIONS_FILE): void {
  const sorted = Object.fromEntries(Object.entries(expectations).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
}

/** One line per difference, in words a reviewer reads; empty when they agree. */
export function clientExpectationDiff(pinned: ClientFaultExpectations, actual: ClientFaultExpectations): string[] {
  return expectationDiff(pinned, actual, {
    gone: 'pinned, but no longer run',
    more: (id, before, now) => (before.exitCode !== now.exitCode ? [`~ ${id}: the session exits ${now.exitCode}, pinned ${before.exitCode}`] : []),
  });
}
