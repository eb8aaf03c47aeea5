import { readFileSync, writeFileSync } from 'node:fs';
import { CHOICES } from '../../server/choices.ts';
import type { ChoiceId } from '../../server/choices.ts';
import { conflictsIn } from '../../server/choice-space.ts';
import { isFaultId } from '../../server/faults.ts';
import { fromRoot } from '../foundation/paths.ts';

/**
 * Combinations the sweep found failing, shrunk to the fewest choices that reproduce the failure, kept in
 * tests/expectations/choice-regressions.json and run by tests/selfcheck/sweep.spec.ts: without `fault`, the
 * suite must pass (strict) against a server making the choices; with it, the fault must be caught behind
 * them. `known` marks one that still fails, with why, out of the gate until it is fixed (the spec then
 * asks for the mark to go).
 */
export interface ChoiceRegression {
  name: string;
  choices: ChoiceId[];
  fault?: string;
  /** What failed, in words: the false alarm (check, case, step) or the fault missed. */
  finding: string;
  /** How it was found: the sweep command that reproduces it. */
  found: string;
  /** The fix, or the exclusion, that answered it. */
  resolution?: string;
  /** Why it still fails: the set is out of the gate until this is done. */
  known?: string;
  /**
   * The fewest cases that catch the fault behind these choices, where the fault's own proof
   * (tests/expectations/fault-proofs.json) does not: written by `npm run expectations:update`, tried
   * before the smoke plan and the whole suite.
   */
  proof?: string[];
}

export const REGRESSIONS_FILE = fromRoot('tests', 'expectations', 'choice-regressions.json');

const CHOICE_IDS: ReadonlySet<string> = new Set(CHOICES.map((c) => c.id));

/** The regression sets, checked: names unique, choices and faults of the catalogues, choices compatible. */
export function readRegressions(file = REGRESSIONS_FILE): ChoiceRegression[] {
  const list = JSON.parse(readFileSync(file, 'utf8')) as ChoiceRegression[];
  const names = new Set<string>();
  for (const r of list) {
    const where = `${file}: regression set "${r.name}"`;
    if (names.has(r.name)) throw new Error(`${where} is named twice`);
    names.add(r.name);
    const unknown = r.choices.filter((c) => !CHOICE_IDS.has(c));
    if (unknown.length > 0) throw new Error(`${where} names choices the catalogue does not have: ${unknown.join(', ')}`);
    if (r.fault !== undefined && !isFaultId(r.fault)) throw new Error(`${where} names a fault the catalogue does not have: ${r.fault}`);
    const conflicts = conflictsIn(r.choices);
    if (conflicts.length > 0) throw new Error(`${where} makes contradicting choices: ${conflicts.map((c) => `${c.a} and ${c.b} (${c.group.point})`).join('; ')}`);
  }
  return list;
}

export function writeRegressions(list: readonly ChoiceRegression[], file = REGRESSIONS_FILE): void {
  writeFileSync(file, `${JSON.stringify(list, null, 2)}\n`);
}

/**
 * The regression set of a list that accounts for a finding: same kind (a false alarm of the same check, or
 * a miss of the same fault), with its choices all among the combination's.
 */
export function explainingRegression(list: readonly ChoiceRegression[], finding: { fault?: string; checkId?: string; choices: readonly string[] }): ChoiceRegression | undefined {
  return list.find((r) => (finding.fault !== undefined ? r.fault === finding.fault : r.fault === undefined && finding.checkId !== undefined && r.finding.startsWith(`${finding.checkId} `)) && r.choices.every((c) => finding.choices.includes(c)));
}
