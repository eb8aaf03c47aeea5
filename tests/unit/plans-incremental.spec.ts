import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import type { Catches } from '../../lib/run/plan-rank.ts';
import { jobsOf } from '../../scripts/plans.ts';
import type { Committed, Now } from '../../scripts/plans/incremental.ts';
import { measuredFiles, measurementDelta, measurementFingerprint, mergeCatches, mergeFalseAlarms } from '../../scripts/plans/incremental.ts';
import { importClosure } from '../../scripts/plans/import-closure.ts';

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

/** Writes a file under `root`, making its folders. */
function writerIn(root: string): (rel: string, text: string) => void {
  return (rel, text) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
}

test("the measurement's fingerprint follows what the measurement runs and reads, not the cases (their digests do), the plans' own output nor code it never imports", () => {
  const root = mkdtempSync(path.join(tmpdir(), 'iswc-measured-'));
  try {
    const write = writerIn(root);
    write('scripts/plans.ts', "import { a } from '../lib/check/a.ts';\nimport '../server/s.ts';\n");
    write('lib/check/a.ts', "export { b } from './b.ts';");
    write('lib/check/b.ts', 'b');
    write('server/s.ts', 's');
    write('lib/generate/cases/c.ts', 'c');
    write('lib/run/plans.generated.ts', 'p');
    write('lib/report/html.ts', 'r');
    write('lib/contract/openapi.generated.json', '{}');
    expect(measuredFiles(root)).toEqual(['lib/check/a.ts', 'lib/check/b.ts', 'lib/contract/openapi.generated.json', 'scripts/plans.ts', 'server/s.ts']);
    const before = measurementFingerprint(root);
    write('lib/generate/cases/c.ts', 'c2');
    write('lib/run/plans.generated.ts', 'p2');
    write('fixtures/scenarios/s.yaml', 'y');
    // Code the measurement never imports (a report's writer) measures nothing again, nor the schema of the
    // reports a run writes, with its compiled validator (data beside the code otherwise counts).
    write('lib/report/html.ts', 'r2');
    write('schemas/report.schema.json', '{"x":2}');
    write('lib/report/report-schema.generated.cjs', 'v2');
    expect(measurementFingerprint(root)).toBe(before);
    write('server/s.ts', 's2');
    const server = measurementFingerprint(root);
    expect(server).not.toBe(before);
    // Imported through another file, and data beside the code, count.
    write('lib/check/b.ts', 'b2');
    const imported = measurementFingerprint(root);
    expect(imported).not.toBe(server);
    write('lib/contract/openapi.generated.json', '{"x":1}');
    const data = measurementFingerprint(root);
    expect(data).not.toBe(imported);
    write('fixtures/targets/embedded.json', '{}');
    expect(measurementFingerprint(root)).not.toBe(data);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('importClosure: every file the entries import, transitively, by relative specifier; packages and imports written in strings that name no file are left out', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'iswc-closure-'));
  try {
    const write = writerIn(root);
    write('main.ts', ["import { x } from './sub/x.ts';", "import type { T } from './types.ts';", "import fs from 'node:fs';", "const later = () => import('./lazy.ts');", "const text = \"import { y } from './nowhere.ts';\";"].join('\n'));
    write('sub/x.ts', "export * from '../z.ts';");
    write('types.ts', '');
    write('lazy.ts', "import './sub/x.ts';");
    write('z.ts', '');
    write('unused.ts', '');
    expect(importClosure(root, ['main.ts'])).toEqual(['lazy.ts', 'main.ts', 'sub/x.ts', 'types.ts', 'z.ts']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
