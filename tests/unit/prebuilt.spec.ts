import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, _baseTest as test } from '@playwright/test';
import { cacheDirOf, prebuiltEntry } from '../../bin/prebuilt.mjs';
import { fromRoot } from '../../lib/foundation/paths.ts';

/** A source written a minute ago: a build does not publish what was saved while it read (bin/prebuilt.mjs). */
function writeSource(file: string, text: string): void {
  writeFileSync(file, text);
  const past = new Date(Date.now() - 60_000);
  utimesSync(file, past, past);
}

/** A root with a command line of two modules, and esbuild from this repository's node_modules. */
function sourceRoot(withEsbuild = true): string {
  const root = mkdtempSync(path.join(tmpdir(), 'iswc-prebuilt-'));
  mkdirSync(path.join(root, 'lib', 'cli'), { recursive: true });
  mkdirSync(path.join(root, 'node_modules'));
  if (withEsbuild) symlinkSync(fromRoot('node_modules', 'esbuild'), path.join(root, 'node_modules', 'esbuild'));
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}');
  writeSource(path.join(root, 'lib', 'cli', 'entry.ts'), "import { word } from './word.ts';\nconsole.log(word);\n");
  writeSource(path.join(root, 'lib', 'cli', 'word.ts'), "export const word: string = 'first';\n");
  return root;
}

function bundled(entry: string | null): string {
  expect(entry).not.toBeNull();
  const dir = path.dirname(fileURLToPath(entry ?? ''));
  return readdirSync(dir).filter((f) => f.endsWith('.mjs')).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');
}

test('the command line is built on first use, kept while its sources stay, built again when any of them changes', () => {
  const root = sourceRoot();
  try {
    const first = prebuiltEntry(root, {});
    expect(bundled(first)).toContain('"first"');
    // Source maps, for the stack ISWC_DEBUG=1 prints: it names the sources.
    const map = readFileSync(`${fileURLToPath(first ?? '')}.map`, 'utf8');
    expect(JSON.parse(map)).toMatchObject({ sources: expect.arrayContaining([expect.stringContaining('lib/cli/word.ts')]) });
    expect(prebuiltEntry(root, {})).toBe(first);

    // Saved just now: maybe while a build read it. This command takes tsx; once the save is behind, a build.
    writeFileSync(path.join(root, 'lib', 'cli', 'word.ts'), "export const word: string = 'second';\n");
    expect(prebuiltEntry(root, {})).toBeNull();
    writeSource(path.join(root, 'lib', 'cli', 'word.ts'), "export const word: string = 'second';\n");
    const second = prebuiltEntry(root, {});
    expect(second).not.toBe(first);
    expect(bundled(second)).toContain('"second"');
    const run = spawnSync(process.execPath, [fileURLToPath(second ?? '')], { encoding: 'utf8' });
    expect(run.stdout).toBe('second\n');

    // A bundle cut short or missing a file (a cache cleaned by hand half-way) is built again, not run.
    const secondFile = fileURLToPath(second ?? '');
    writeFileSync(secondFile, 'console.log(');
    expect(prebuiltEntry(root, {})).toBe(second);
    expect(spawnSync(process.execPath, [secondFile], { encoding: 'utf8' }).stdout).toBe('second\n');
    rmSync(`${secondFile}.map`);
    expect(prebuiltEntry(root, {})).toBe(second);
    expect(existsSync(`${secondFile}.map`)).toBe(true);

    // Back to the first sources: the first bundle, still there, without a build.
    writeSource(path.join(root, 'lib', 'cli', 'word.ts'), "export const word: string = 'first';\n");
    expect(prebuiltEntry(root, {})).toBe(first);
    expect(readdirSync(cacheDirOf(root)).filter((n) => n.startsWith('.'))).toEqual([]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('what stops a bundle leaves the command to tsx: ISWC_PREBUILT=0, sources that do not build, no esbuild', () => {
  const root = sourceRoot();
  const bare = sourceRoot(false);
  try {
    expect(prebuiltEntry(root, { ISWC_PREBUILT: '0' })).toBeNull();
    writeSource(path.join(root, 'lib', 'cli', 'word.ts'), 'export const word: string = ;\n');
    expect(prebuiltEntry(root, {})).toBeNull();
    expect(prebuiltEntry(bare, {})).toBeNull();
    for (const dir of [root, bare]) expect(existsSync(path.join(cacheDirOf(dir), 'inputs.json'))).toBe(false);
  } finally {
    for (const dir of [root, bare]) rmSync(dir, { recursive: true, force: true });
  }
});

test('the bundled command and the command through tsx answer alike, and the bundle finds the repository from the launcher', () => {
  const cli = fromRoot('bin', 'iswc-conformance.mjs');
  const outside = mkdtempSync(path.join(tmpdir(), 'iswc-prebuilt-cwd-'));
  try {
    for (const argv of [['--version'], ['plan', '--smoke']]) {
      const bundledRun = spawnSync(process.execPath, [cli, ...argv], { cwd: outside, encoding: 'utf8', env: { ...process.env, ISWC_PREBUILT: '' } });
      const tsxRun = spawnSync(process.execPath, [cli, ...argv], { cwd: outside, encoding: 'utf8', env: { ...process.env, ISWC_PREBUILT: '0' } });
      expect(bundledRun.status, bundledRun.stderr).toBe(0);
      expect(bundledRun.stdout).toBe(tsxRun.stdout);
      expect(bundledRun.stderr).toBe(tsxRun.stderr);
    }
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});
