import { expect, _baseTest as test } from '@playwright/test';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../lib/foundation/paths.ts';
import { importsOf, ROOMS, stageOf, stageViolations, tsFilesUnder } from '../../lib/foundation/stages.ts';

/**
 * The folders of lib/ are the pipeline: contract → generate → run → check → report, with foundation
 * (paths, redaction, configuration) below them and composition (the Playwright declaration, the
 * in-process pipeline, the CLI, the self-check) above. Imports go one way only.
 */
test('each stage imports only itself and earlier stages; no import cycles; nothing in lib/ imports tests/, only composition imports server/', () => {
  const { violations, cycles } = stageViolations();
  expect(violations.map((v) => `${v.from} -> ${v.to}: ${v.why}`)).toEqual([]);
  expect(cycles.map((c) => c.join(' -> '))).toEqual([]);
});

test('every file of lib/ belongs to a stage, and the stage folders exist', () => {
  const files = tsFilesUnder('lib');
  const stages = new Set(files.map(stageOf));
  for (const stage of ['foundation', 'contract', 'generate', 'run', 'check', 'report', 'composition']) expect(stages, stage).toContain(stage);
});

test('lib/ is rooms only: no loose file at its root, and every folder is a room that says what it holds', () => {
  const entries = readdirSync(path.join(repoRoot, 'lib'));
  expect(entries.filter((e) => !statSync(path.join(repoRoot, 'lib', e)).isDirectory())).toEqual([]);
  expect(entries.sort()).toEqual(Object.keys(ROOMS).sort());
  for (const file of tsFilesUnder('lib')) expect(stageOf(file), file).toBeDefined();
  // The engine is composition, what every stage shares is foundation: the rooms the layout promises.
  expect(stageOf('lib/engine/engine.ts')).toBe('composition');
  expect(stageOf('lib/foundation/redact.ts')).toBe('foundation');
  expect(stageOf('lib/engine.ts')).toBeUndefined();
});

test('nothing outside tests/ imports tests/ (the bench scripts share the hostile targets through server/hostile)', () => {
  const files = ['lib', 'server', 'scripts', 'reporters', 'examples'].flatMap((d) => tsFilesUnder(d)).concat(['playwright.config.ts']);
  const bad = files.flatMap((from) => importsOf(from).filter((to) => to.startsWith('tests/')).map((to) => `${from} -> ${to}`));
  expect(bad).toEqual([]);
});

test('the reference server depends only on the contract and the foundation', () => {
  const bad = tsFilesUnder('server').flatMap((from) =>
    importsOf(from)
      .filter((to) => to.startsWith('lib/'))
      .filter((to) => !['foundation', 'contract'].includes(stageOf(to) ?? ''))
      .map((to) => `${from} -> ${to}`),
  );
  expect(bad).toEqual([]);
});

test('the checker finds a backward import, a reach into tests/ and a cycle when there is one', () => {
  const graph: Record<string, string[]> = {
    'lib/generate/a.ts': ['lib/check/b.ts', 'lib/generate/c.ts'],
    'lib/generate/c.ts': ['lib/generate/a.ts'],
    'lib/check/b.ts': ['lib/run/d.ts'],
    'lib/run/d.ts': ['tests/support/x.ts', 'server/index.ts'],
    'lib/cli.ts': ['server/index.ts'],
    'lib/config/e.ts': ['lib/contract/f.ts'],
  };
  const { violations, cycles } = stageViolations(Object.keys(graph), (f) => graph[f] ?? []);
  expect(violations.map((v) => v.why)).toEqual(['generate imports a later stage (check)', 'lib/ imports tests/', 'lib/ imports server/', 'foundation imports a later stage (contract)']);
  expect(cycles).toEqual([['lib/generate/a.ts', 'lib/generate/c.ts', 'lib/generate/a.ts']]);
});
