import { readFileSync, writeFileSync } from 'node:fs';
import type { FaultResult } from './selfcheck.ts';

/**
 * The pinned fault expectations (tests/expectations/faults.json): for each fault of the reference
 * server's catalogue, the checks that catch it in the self-check. The self-check fails on any difference,
 * so a fault that moves to another check, or a check that starts failing on faults it did not catch
 * before, shows up as a reviewed change in the diff of this file (`npm run expectations:update`).
 */
export type FaultExpectations = Record<string, { level: 'spec' | 'http'; caughtBy: string[] }>;

export function expectationsOf(results: readonly FaultResult[]): FaultExpectations {
  const out: FaultExpectations = {};
  for (const r of [...results].sort((a, b) => a.fault.id.localeCompare(b.fault.id))) out[r.fault.id] = { level: r.fault.level, caughtBy: [...r.caughtBy].sort() };
  return out;
}

export function readExpectations(file: string): FaultExpectations {
  return JSON.parse(readFileSync(file, 'utf8')) as FaultExpectations;
}

export function writeExpectations(file: string, expectations: FaultExpectations): void {
  writeFileSync(file, `${JSON.stringify(expectations, null, 2)}\n`);
}

/** What a pinned expectation of a fault holds at least: its level and the checks that catch it. */
export interface PinnedCatch {
  level: string;
  caughtBy: string[];
}

/**
 * One line per difference, in words a reviewer reads: empty when the self-check matches the pinned file.
 * `gone` says why a pinned fault has no result; `more` adds the differences of fields a catalogue pins
 * beyond level and caughtBy (the client catalogue's exit code).
 */
export function expectationDiff<E extends PinnedCatch>(pinned: Record<string, E>, actual: Record<string, E>, options: { gone?: string; more?: (id: string, before: E, now: E) => string[] } = {}): string[] {
  const lines: string[] = [];
  for (const id of [...new Set([...Object.keys(pinned), ...Object.keys(actual)])].sort()) {
    const before = pinned[id];
    const now = actual[id];
    if (!before) {
      lines.push(`+ ${id}: a new fault, caught by ${now?.caughtBy.join(', ') || 'nothing'}`);
      continue;
    }
    if (!now) {
      lines.push(`- ${id}: ${options.gone ?? 'pinned, but no longer in the catalogue'}`);
      continue;
    }
    const gained = now.caughtBy.filter((c) => !before.caughtBy.includes(c));
    const lost = before.caughtBy.filter((c) => !now.caughtBy.includes(c));
    if (gained.length > 0) lines.push(`~ ${id}: now also caught by ${gained.join(', ')}`);
    if (lost.length > 0) lines.push(`~ ${id}: no longer caught by ${lost.join(', ')}${now.caughtBy.length === 0 ? ' (NOT CAUGHT AT ALL)' : ''}`);
    lines.push(...(options.more?.(id, before, now) ?? []));
    if (before.level !== now.level) lines.push(`~ ${id}: level ${before.level} -> ${now.level}`);
  }
  return lines;
}
