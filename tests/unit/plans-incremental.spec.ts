import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Catches } from '../../lib/run/plan-rank.ts';
import { jobsOf } from '../../scripts/plans.ts';
import type { Committed, Now } from '../../scripts/plans/incremental.ts';
import { measurementDelta, measurementFingerprint, mergeCatches, mergeFalseAlarms } from '../../scripts/plans/incremental.ts';

/** npm run generate:plans measures again only what changed (scripts/plans/incremental.ts). */

const now = (cases: Record<string, string>, faults: Record<string, string> = { f1: 'spec', f2: 'http' }): Now => ({ measuredWith: { harness: 'h1', cases }, seeds: [1], runs: 100, faults, choiceSets: ['a', 'b'] });
const committed = (cases: Record<string, string>, faults: Record<string, string> = { f1: 'spec', f2: 'http' }): Committed => ({ measuredWith: { harness: 'h1', cases }, seeds: [1], runs: 100, faults, choiceSets: ['b', 'a'] });

test('the delta: cases whose digest changed or that are new, faults that are new or changed level; anything else measures everything', () => {
  expect(measurementDelta(committed({ x: '1', y: '2' }), now({ x: '1', y: '3', z: '4' }, { f1: 'spec', f2: 'spec', f3: 'http' }))).toEqual({ cases: ['y', 'z'], faults: ['f2', 'f3'] });
  expect(measurementDelta(committed({ x: '1' }), now({ x: '1' }))).toEqual({ cases: [], faults: [] });
  expect(measurementDelta(undefined, now({ x: '1' }))).toHaveProperty('full');
  expect(measurementDelta({ ...committed({ x: '1' }), measuredWith: undefined }, now({ x: '1' }))).toHaveProperty('full');
  expect(measurementDelta({ ...committed({ x: '1' }), measuredWith: { harness: 'h0', cases: { x: '1' } } }, now({ x: '1' }))).toEqual({ full: 'the harness, the reference server, the schemas or the fixtures changed' });
  expect(measurementDelta({ ...committed({ x: '1' }), choiceSets: ['a'] }, now({ x: '1' }))).toHaveProperty('full');
  expect(measurementDelta({ ...committed({ x: '1' }), runs: 50 }, now({ x: '1' }))).toHaveProperty('full');
});

test('the jobs of a delta: the changed cases against every fault and choice set, new faults against every case; nothing when nothing changed', () => {
  const inputs = { faults: { f1: 'spec', f2: 'http' } as Record<string, 'spec' | 'http'>, choiceSets: ['a', 'b'] };
  const all = jobsOf(inputs);
  expect(all).toHaveLength(2 * (2 + 2));
  expect(all.every((j) => j.only === undefined)).toBe(true);
  const some = jobsOf(inputs, { cases: ['y'], faults: ['f2'] });
  expect(some).toHaveLength(all.length);
  expect(some.filter((j) => j.label === 'fault f2').every((j) => j.only === undefined)).toBe(true);
  expect(some.filter((j) => j.label !== 'fault f2').every((j) => JSON.stringify(j.only) === '["y"]')).toBe(true);
  const faultOnly = jobsOf(inputs, { cases: [], faults: ['f1'] });
  expect(faultOnly.map((j) => [j.label, j.only])).toEqual([['fault f1', undefined], ['fault f1', undefined]]);
  expect(jobsOf(inputs, { cases: [], faults: [] })).toEqual([]);
});

test('merging: kept what was not measured again, replaced what was, dropped what is gone', () => {
  const previous: Record<'destructive' | 'safe', Record<string, Catches>> = { destructive: { x: { f1: 1, f2: 1 }, y: { f1: 1 }, gone: { f1: 1 } }, safe: { x: { f2: 1 } } };
  const measured: Record<'destructive' | 'safe', Record<string, Catches>> = { destructive: { y: { f2: 5 }, x: { f3: 1 }, z: { f3: 2 } }, safe: {} };
  const merged = mergeCatches(previous, measured, { cases: ['y'], faults: ['f3'] }, new Set(['x', 'y', 'z']), new Set(['f1', 'f2', 'f3']));
  // y measured again: its old f1 is gone, its new f2 taken; f3 is new: taken for every case; "gone" dropped.
  expect(merged).toEqual({ destructive: { x: { f1: 1, f2: 1, f3: 1 }, y: { f2: 5 }, z: { f3: 2 } }, safe: { x: { f2: 1 } } });
  // A fault taken out of the catalogue is dropped from every case.
  expect(mergeCatches(previous, { destructive: {}, safe: {} }, { cases: [], faults: [] }, new Set(['x', 'y']), new Set(['f1']))).toEqual({ destructive: { x: { f1: 1 }, y: { f1: 1 } }, safe: {} });
  expect(mergeFalseAlarms({ red: ['x', 'y', 'gone'] }, { red: ['y'], other: ['x', 'z'] }, { cases: ['y', 'z'], faults: [] }, new Set(['x', 'y', 'z']))).toEqual({ red: ['x', 'y'], other: ['z'] });
});

test("the measurement's fingerprint follows the harness and server, not the cases (their digests do) nor the plans' own output", () => {
  const root = mkdtempSync(path.join(tmpdir(), 'iswc-measured-'));
  try {
    const write = (rel: string, text: string): void => {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
    };
    write('lib/check/a.ts', 'a');
    write('server/s.ts', 's');
    write('lib/generate/cases/c.ts', 'c');
    write('lib/run/plans.generated.ts', 'p');
    const before = measurementFingerprint(root);
    write('lib/generate/cases/c.ts', 'c2');
    write('lib/run/plans.generated.ts', 'p2');
    write('fixtures/scenarios/s.yaml', 'y');
    expect(measurementFingerprint(root)).toBe(before);
    write('server/s.ts', 's2');
    const server = measurementFingerprint(root);
    expect(server).not.toBe(before);
    write('lib/check/a.ts', 'a2');
    expect(measurementFingerprint(root)).not.toBe(server);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
