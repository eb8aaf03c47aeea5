import { readFileSync } from 'node:fs';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import config from '../../playwright.config.ts';
import { tierHint } from '../../reporters/conformance-reporter.ts';
import { E2E_TAG, requireE2e, startsARun } from '../support/tier.ts';

/** The two tiers (CONTRIBUTING.md, "Two tiers"): npm test and npm run test:e2e, which CI runs one after the other. */

const scripts = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const projectsOf = (script: string | undefined): string[] => [...(script ?? '').matchAll(/--project=(\S+)/g)].map((m) => m[1] ?? '');

test('every project of playwright.config.ts is in exactly one tier, and CI runs both', () => {
  const names = (config.projects ?? []).map((p) => p.name ?? '');
  const quick = projectsOf(scripts.test);
  const e2e = projectsOf(scripts['test:e2e']);
  expect(quick.filter((p) => e2e.includes(p))).toEqual([]);
  expect([...quick, ...e2e].sort()).toEqual([...names].sort());
  const ci = readFileSync(fromRoot('.ci', 'run'), 'utf8');
  expect(ci).toMatch(/^npm test$/m);
  expect(ci).toMatch(/^npm run test:e2e$/m);
});

test('a test tagged @e2e runs in the e2e project, never in unit or browser, and every other test of theirs in them', () => {
  const project = (name: string) => (config.projects ?? []).find((p) => p.name === name);
  const tagged = [`the run ${E2E_TAG}`];
  const plain = ['the run'];
  const matches = (re: unknown, titles: string[]) => re instanceof RegExp && titles.every((t) => re.test(t));
  for (const name of ['unit', 'browser']) {
    expect(matches(project(name)?.grepInvert, tagged), name).toBe(true);
    expect(matches(project(name)?.grepInvert, plain), name).toBe(false);
  }
  expect(matches(project('e2e')?.grep, tagged)).toBe(true);
  expect(matches(project('e2e')?.grep, plain)).toBe(false);
});

test('a test of the quick tier that starts a real run fails at once, naming the tag to give it', () => {
  expect(() => requireE2e('a Playwright run (playwright test)')).toThrow(/starts a Playwright run \(playwright test\) in the project unit of npm test, the quick tier: give the test the tag \{ tag: '@e2e' \}/);
});

test('which command lines start a run: run, certify of no file, and the default command; not what prints and ends', () => {
  for (const args of [['run'], ['run', '--budget', '20'], ['--base-url', 'http://127.0.0.1:9'], ['certify', '--target', 'p.json'], ['--target', 'p.json']]) expect(startsARun(args), args.join(' ')).toBe(true);
  for (const args of [[], ['--help'], ['--version'], ['run', '--help'], ['run', '--plan'], ['plan'], ['profile', 'check', 'p.json'], ['certify', '--target', 'p.json', '--report', 'c.json'], ['certify', '--client', 'x.json'], ['server', '--port', '0'], ['sandbox'], ['replay', 'abcdef12']]) {
    expect(startsARun(args), args.join(' ')).toBe(false);
  }
});

test('npm test given a file of the second tier finds no test, and the run says where its tests are; no other run says so', () => {
  const quick = ['node', 'cli.js', 'test', '--project=client', '--project=unit', '--project=json', 'tests/unit/signals.spec.ts'];
  expect(tierHint(quick, 0)).toBe('no test found in the projects run: a test tagged @e2e, and the docs run as written, are in the second tier, npm run test:e2e (CONTRIBUTING.md, "Two tiers")');
  expect(tierHint(['node', 'cli.js', 'test', '--project', 'browser'], 0)).toBeDefined();
  expect(tierHint(quick, 3)).toBeUndefined();
  // The run command (json and xml), the second tier, and both tiers at once: nothing to say.
  expect(tierHint(['node', 'cli.js', 'test', '--project=json', '--project=xml', '--grep', 'nothing'], 0)).toBeUndefined();
  expect(tierHint(['node', 'cli.js', 'test', '--project=journeys', '--project=e2e'], 0)).toBeUndefined();
  expect(tierHint(['node', 'cli.js', 'test', 'tests/unit/nothing.spec.ts'], 0)).toBeUndefined();
});
