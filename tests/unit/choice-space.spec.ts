import { spawnSync } from 'node:child_process';
import { expect, _baseTest as test } from '@playwright/test';
import { CHOICE_SET_PROFILES, CHOICE_SETS, CHOICES, FAULTS } from '../../server/index.ts';
import type { ChoiceId, ChoiceSetName } from '../../server/index.ts';
import { BLIND_FAULTS, choicesAroundFault, compatiblePrefix, conflictsIn, EXCLUSIVE_GROUPS, exclusionsOf, FAULT_EXCLUSIONS, profileForChoices, profileSettingsOf } from '../../server/choice-space.ts';
import { planSweep } from '../../lib/sweep/sweep.ts';
import { CHOICE_IDS, dealFaults, drawCombinations } from '../../lib/sweep/combinations.ts';
import { shrinkList } from '../../lib/sweep/shrink.ts';
import { explainingRegression, readRegressions } from '../../lib/sweep/regressions.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot, repoRoot } from '../../lib/foundation/paths.ts';

/**
 * The space of legitimate servers the sweep explores (server/choice-space.ts, lib/sweep/): the model is
 * consistent with the catalogue and the named sets, random draws are seeded and always servers that
 * could exist, faults are dealt evenly, and the shrinker finds the fewest items that reproduce a failure.
 */

test('exclusive groups name two or more choices of the catalogue, each with the point and the reason', () => {
  const ids = new Set(CHOICES.map((c) => c.id));
  for (const g of EXCLUSIVE_GROUPS) {
    expect(g.choices.length, g.point).toBeGreaterThanOrEqual(2);
    expect(new Set(g.choices).size, g.point).toBe(g.choices.length);
    expect(g.choices.filter((c) => !ids.has(c)), g.point).toEqual([]);
    expect(g.reason.length, g.point).toBeGreaterThan(20);
  }
});

test('every named choice set is a server that could exist: no two of its choices contradict each other', () => {
  for (const [name, ids] of Object.entries(CHOICE_SETS)) {
    expect(conflictsIn(ids).map((c) => `${c.a} + ${c.b}: ${c.group.point}`), name).toEqual([]);
  }
});

test('the profile a named set needs is the one its choices need, choice by choice (CHOICE_SET_PROFILES agrees)', () => {
  for (const [name, ids] of Object.entries(CHOICE_SETS)) {
    expect(profileSettingsOf(ids), name).toEqual(CHOICE_SET_PROFILES[name as ChoiceSetName] ?? {});
  }
  const base = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  expect(profileForChoices(base, [])).toBe(base);
  expect(profileForChoices(base, ['reason-code-list', 'one-open-run'])).toEqual({ ...base, reasonCode: '01', openRuns: 'one' });
});

test('a random pick becomes a possible server: a choice that contradicts one kept before it is dropped', () => {
  expect(compatiblePrefix(['utf16-lengths', 'trim-strings', 'nfc-lengths', 'answer-json-always', 'answer-xml-always'])).toEqual(['utf16-lengths', 'trim-strings', 'answer-json-always']);
  expect(conflictsIn(['unknown-run-404', 'run-id-client-chosen']).map((c) => c.group.point)).toEqual(['a run notification carrying a runId the server never issued']);
});

test('declared fault exclusions name faults and compatible choices of the catalogues, with a reason; the last choice named is left out', () => {
  const faults = new Set(FAULTS.map((f) => f.id));
  for (const e of FAULT_EXCLUSIONS) {
    expect(faults.has(e.fault), e.fault).toBe(true);
    expect(conflictsIn(e.behind), e.fault).toEqual([]);
    expect(e.reason.length, e.fault).toBeGreaterThan(20);
  }
  const combination: ChoiceId[] = ['trim-strings', 'demerge-by-work-400', 'demerge-unmerged-400', 'utf16-lengths'];
  expect(exclusionsOf('demerge-404-as-410', ['demerge-by-work-400'])).toEqual([]);
  expect(exclusionsOf('demerge-404-as-410', combination).map((e) => e.behind)).toEqual([['demerge-by-work-400', 'demerge-unmerged-400']]);
  const around = choicesAroundFault('demerge-404-as-410', combination);
  expect(around.kept).toEqual(['trim-strings', 'demerge-by-work-400', 'utf16-lengths']);
  expect(around.dropped.map((d) => d.choice)).toEqual(['demerge-unmerged-400']);
  expect(choicesAroundFault('merge-no-effect', combination)).toEqual({ kept: combination, dropped: [] });
});

test('combinations are drawn from the seed: the same seed gives the same ones, more of them extend the list, each a possible server', () => {
  const ten = drawCombinations(2026, 10);
  expect(drawCombinations(2026, 10)).toEqual(ten);
  expect(drawCombinations(2026, 4)).toEqual(ten.slice(0, 4));
  expect(drawCombinations(2027, 10)).not.toEqual(ten);
  for (const c of drawCombinations(5, 200, 12)) {
    expect(c.length).toBeGreaterThanOrEqual(1);
    expect(c.length).toBeLessThanOrEqual(12);
    expect(conflictsIn(c)).toEqual([]);
    expect(c).toEqual(CHOICE_IDS.filter((id) => c.includes(id)));
  }
});

test('faults are dealt round and round from a seeded order: each tried as often as every other, give or take one', () => {
  const faults = FAULTS.map((f) => f.id);
  const dealt = dealFaults(faults, 9, 50, 7);
  expect(dealt).toEqual(dealFaults(faults, 9, 50, 7));
  expect(dealt.every((hand) => hand.length === 7 && new Set(hand).size === 7)).toBe(true);
  const tried = new Map<string, number>();
  for (const id of dealt.flat()) tried.set(id, (tried.get(id) ?? 0) + 1);
  expect(tried.size).toBe(faults.length);
  expect(Math.max(...tried.values()) - Math.min(...tried.values())).toBeLessThanOrEqual(1);
  expect(dealFaults(faults, 9, 3, 0)).toEqual([[], [], []]);
});

test('a fault declared blind is dealt to no combination, the catalogue passed by the sweep script included', () => {
  const blind = BLIND_FAULTS.map((b) => b.fault as string);
  expect(blind.length).toBeGreaterThan(0);
  for (const planned of [planSweep({ seed: 3, count: 60, faultsPerCombination: 8 }), planSweep({ seed: 3, count: 60, faultsPerCombination: 8 }, FAULTS)]) {
    const dealt = new Set(planned.flatMap((c) => c.faults));
    expect(blind.filter((id) => dealt.has(id))).toEqual([]);
    expect(FAULTS.filter((f) => !blind.includes(f.id)).every((f) => dealt.has(f.id))).toBe(true);
  }
});

test('the shrinker finds the fewest items that reproduce a failure, asks about each subset once, and stops at its cap', async () => {
  const items = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
  const asked: string[] = [];
  const needsCAndH = (subset: readonly string[]): Promise<boolean> => {
    asked.push(subset.join(''));
    return Promise.resolve(subset.includes('c') && subset.includes('h'));
  };
  const found = await shrinkList(items, needsCAndH);
  expect(found.minimal).toEqual(['c', 'h']);
  expect(found.capped).toBe(false);
  expect(new Set(asked).size).toBe(asked.length);
  expect(found.tries).toBe(asked.length);
  expect((await shrinkList(items, () => Promise.resolve(true))).minimal).toEqual([]);
  const capped = await shrinkList(items, needsCAndH, { maxTries: 3 });
  expect(capped.capped).toBe(true);
  expect(capped.tries).toBe(3);
  expect(await needsCAndH(capped.minimal)).toBe(true);
});

test('the regression sets are valid, and one accounts for a finding of its kind whose combination holds its choices', () => {
  const list = readRegressions();
  expect(Array.isArray(list)).toBe(true);
  const sets = [
    { name: 'a', choices: ['merge-commits-per-item'] as ChoiceId[], fault: 'merge-no-effect', finding: 'merge-no-effect is caught by no check', found: '' },
    { name: 'b', choices: ['utf16-lengths'] as ChoiceId[], finding: 'limit.rejected merge.x step: 204', found: '' },
  ];
  expect(explainingRegression(sets, { fault: 'merge-no-effect', choices: ['trim-strings', 'merge-commits-per-item'] })?.name).toBe('a');
  expect(explainingRegression(sets, { fault: 'merge-no-effect', choices: ['trim-strings'] })).toBeUndefined();
  expect(explainingRegression(sets, { checkId: 'limit.rejected', choices: ['utf16-lengths'] })?.name).toBe('b');
  expect(explainingRegression(sets, { checkId: 'limit.accepted', choices: ['utf16-lengths'] })).toBeUndefined();
});

test('npm run selfcheck:sweep refuses a bad option plainly: what is wrong, the usage, exit 2, no stack', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/selfcheck-sweep.ts', '--count', '0'], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  expect(run.status).toBe(2);
  expect(run.stderr).toContain('--count must be a whole number of at least 1, got "0"');
  expect(run.stderr).toContain('Usage: npm run selfcheck:sweep');
  expect(run.stderr).not.toMatch(/\n\s+at /);
});
