/**
 * The pinned client-fault expectations (tests/expectations/client-faults.json): for each fault of the
 * catalogue, the client checks that flag it (fail, or record an observation) and the session's exit
 * status. The catalogue test fails on any difference; `npm run expectations:update:client` rewrites the
 * file after a deliberate change, and its diff is the review.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fromRoot } from '../../lib/paths.ts';

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
  const lines: string[] = [];
  for (const id of [...new Set([...Object.keys(pinned), ...Object.keys(actual)])].sort()) {
    const before = pinned[id];
    const now = actual[id];
    if (!before) lines.push(`+ ${id}: a new fault, caught by ${now?.caughtBy.join(', ') || 'nothing'}`);
    else if (!now) lines.push(`- ${id}: pinned, but no longer run`);
    else {
      const gained = now.caughtBy.filter((c) => !before.caughtBy.includes(c));
      const lost = before.caughtBy.filter((c) => !now.caughtBy.includes(c));
      if (gained.length > 0) lines.push(`~ ${id}: now also caught by ${gained.join(', ')}`);
      if (lost.length > 0) lines.push(`~ ${id}: no longer caught by ${lost.join(', ')}${now.caughtBy.length === 0 ? ' (NOT CAUGHT AT ALL)' : ''}`);
      if (before.exitCode !== now.exitCode) lines.push(`~ ${id}: the session exits ${now.exitCode}, pinned ${before.exitCode}`);
      if (before.level !== now.level) lines.push(`~ ${id}: level ${before.level} -> ${now.level}`);
    }
  }
  return lines;
}
