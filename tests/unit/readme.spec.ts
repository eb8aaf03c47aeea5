import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { newcomerEnv, runDocBlocks, runnableBlocks, sectionOf } from '../support/doc-commands.ts';

/**
 * The README: a first screen with the two commands, then one short section per journey whose commands
 * work as written. A journey that has a guide of its own is a shortened copy of it: each of its command
 * lines is a line of the guide, in the guide's order, and the guide's test runs them
 * (tests/unit/guides.spec.ts). The others run here.
 */

const README = readFileSync(fromRoot('README.md'), 'utf8');

/** The command lines of a Markdown text's runnable blocks: continuations joined, comments and blank lines dropped. */
function commandLines(markdown: string): string[] {
  return runnableBlocks(markdown).flatMap((b) =>
    b.body
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => l !== '' && !l.startsWith('#')),
  );
}

test('the README is short, and its first screen shows what it is and the two commands', () => {
  expect(Buffer.byteLength(README), 'README.md at most about 12 KB').toBeLessThanOrEqual(12_500);
  const firstScreen = README.slice(0, README.indexOf('\n## '));
  for (const command of ['npm ci', 'npm run conformance', 'npm test']) expect(firstScreen).toContain(command);
  for (const journey of ['A CI gate against staging', 'Certify your integration', 'Test your own client', 'A regression report between two builds', 'Will this build break an agency?']) {
    expect(sectionOf(README, journey), journey).toMatch(/```sh/);
  }
});

for (const [journey, guide] of [
  ['A CI gate against staging', 'ci-gate.md'],
  ['Certify your integration', 'certify.md'],
  ['A regression report between two builds', 'regression.md'],
  ['Will this build break an agency?', 'compatibility.md'],
] as const) {
  test(`the README's "${journey}" is commands of docs/guides/${guide}, in its order, and links it`, () => {
    const section = sectionOf(README, journey);
    expect(section).toContain(`](docs/guides/${guide})`);
    const mine = commandLines(section);
    const theirs = commandLines(readFileSync(fromRoot('docs', 'guides', guide), 'utf8'));
    expect(mine.length).toBeGreaterThan(1);
    let at = 0;
    for (const line of mine) {
      const found = theirs.indexOf(line, at);
      expect(found, `"${line}" is a command of docs/guides/${guide}, after the ones before it`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  });
}

test('the README\'s "Test your own client" works as written: the sandbox with trouble on purpose, the example client through it', async () => {
  test.setTimeout(180_000);
  const run = await runDocBlocks(sectionOf(README, 'Test your own client'), {
    label: 'README, Test your own client',
    // The one doc run through the real npx: the way a clone resolves `npx iswc-conformance`.
    realNpx: true,
    timeoutMs: 160_000,
    inspect: (dir) => {
      for (const file of ['client-conformance.json', 'client-junit.xml', 'client-conformance.html']) expect(existsSync(path.join(dir, 'reports', 'client', file)), file).toBe(true);
    },
  });
  const out = run.output;
  expect(run.status, out.slice(-4000)).toBe(0);
  expect(out).toContain('7 requests sent (retries included)');
  // Conformant means it worked: each operation succeeded, in the session's format.
  // (The runner stops the sandbox when the script ends, which may come before the session ends by count.)
  // Conformant in XML, and told that production as built reads no XML (observed, never a failure).
  expect(out).toMatch(/client conformance: conformant: run notification XML, merge XML, submission delete, demerge succeeded \(\d+ observations on open points, \d+ where production as built answers otherwise\)(; the session ended after its 7 requests \(--requests\))? — 7 request\(s\)/);
  expect(out).toContain('trouble 429 on request 2: survived');
  expect(out).toContain('trouble 503 on request 4: survived');
  expect(out).not.toContain('my-test-key');
});

test('the README\'s way to use the command outside the clone works: installed from the clone\'s path, it runs from any directory', () => {
  const section = sectionOf(README, 'The command');
  expect(section).toContain('npm install -g /path/to/iswc-conformance');
  expect(section).toContain('npm link');
  const prefix = mkdtempSync(path.join(tmpdir(), 'iswc-global-'));
  const elsewhere = mkdtempSync(path.join(tmpdir(), 'iswc-elsewhere-'));
  try {
    const env = { ...newcomerEnv(path.join(prefix, '.npm-cache')), npm_config_prefix: prefix };
    const install = spawnSync('npm', ['install', '-g', fromRoot(), '--no-audit', '--no-fund'], { cwd: elsewhere, env, encoding: 'utf8', timeout: 60_000 });
    expect(install.status, `${install.stdout}${install.stderr}`).toBe(0);
    const version = spawnSync(path.join(prefix, 'bin', 'iswc-conformance'), ['--version'], { cwd: elsewhere, env, encoding: 'utf8', timeout: 60_000 });
    expect(version.status, `${version.stdout}${version.stderr}`).toBe(0);
    expect(version.stdout).toMatch(/^iswc-conformance \d+\.\d+\.\d+/);
    const plan = spawnSync(path.join(prefix, 'bin', 'iswc-conformance'), ['plan', '--smoke', '--quiet'], { cwd: elsewhere, env, encoding: 'utf8', timeout: 60_000 });
    expect(plan.status, `${plan.stdout}${plan.stderr}`).toBe(0);
    expect(plan.stdout).toMatch(/total: (\d+ to )?\d+ requests/);
  } finally {
    rmSync(prefix, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  }
});
