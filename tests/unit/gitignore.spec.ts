/**
 * What the docs have a user write into the clone and must never be committed is ignored by git: the
 * signing keys the guides make (`openssl … -out issuer.pem`), and the reports of a user's runs and of
 * npm test's.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot, repoRoot } from '../../lib/foundation/paths.ts';

function ignored(file: string): boolean {
  return spawnSync('git', ['check-ignore', '--no-index', '-q', file], { cwd: repoRoot }).status === 0;
}

test('the keys the guides write, and every report directory, are ignored by git', () => {
  const inGit = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: repoRoot, encoding: 'utf8' });
  test.skip(inGit.status !== 0, 'not a git clone: nothing to ignore');
  const docs = ['README.md', ...readdirSync(fromRoot('docs', 'guides')).map((f) => `docs/guides/${f}`)].map((f) => readFileSync(fromRoot(f), 'utf8')).join('\n');
  const keys = [...new Set([...docs.matchAll(/openssl \S+ .*?-out (\S+\.pem)/g)].map((m) => m[1] ?? ''))];
  expect(keys).toEqual(expect.arrayContaining(['issuer.pem', 'issuer.pub.pem']));
  for (const key of keys) expect(ignored(key), `${key}, written by the guides, is ignored`).toBe(true);
  for (const file of ['reports/conformance.json', 'reports/client/client-certificate.json', 'test-reports/junit.xml', 'reports/diff.md']) expect(ignored(file), file).toBe(true);
});

test('npm test writes its reports apart from a user\'s reports/: test-reports/ (so does any Playwright run the command line did not start), which a run of the command line never uses by default', () => {
  const scripts = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  expect(scripts.test).toMatch(/(^| )ISWC_REPORT_DIR=test-reports exec playwright test( --project=\w+)+$/);
  // The second tier writes apart from the first: the two may run one after the other (CI) or side by side.
  expect(scripts['test:e2e']).toMatch(/(^| )ISWC_REPORT_DIR=test-reports\/e2e exec playwright test( --project=\w+)+$/);
  // The command line always gives its run a report directory of its own (default ./reports).
  expect(scripts.conformance).toBe('exec node bin/iswc-conformance.mjs run');
  expect(ignored('test-reports/allure-results/x.json')).toBe(true);
  expect(readFileSync(fromRoot('playwright.config.ts'), 'utf8')).toContain("if (!process.env.ISWC_REPORT_DIR?.trim()) process.env.ISWC_REPORT_DIR = 'test-reports';");
});
