/**
 * Removing a check is one deletion and `npm run generate`: the generated registries that still name the
 * removed file are written again before anything that imports them is loaded, so the generation starts
 * and ends (CONTRIBUTING.md, "A check"). In a copy of the repository, a server check and a client check are
 * deleted, and the generation runs as a contributor runs it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';

test('npm run generate after deleting a check file (server and client): it runs, and the registries and docs no longer name them', () => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-generate-removal-'));
  try {
    for (const entry of ['lib', 'server', 'scripts', 'schemas', 'docs', 'fixtures', 'package.json', 'tsconfig.json']) cpSync(fromRoot(entry), path.join(dir, entry), { recursive: true });
    symlinkSync(fromRoot('node_modules'), path.join(dir, 'node_modules'));
    // Checks no code names (only tests and pinned expectations, which a contributor updates after).
    rmSync(path.join(dir, 'lib', 'check', 'checks', 'http.no-internals.ts'));
    rmSync(path.join(dir, 'lib', 'check', 'client', 'checks', 'client.characters.ts'));
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/generate.ts', '--no-plans'], { cwd: dir, encoding: 'utf8', timeout: 170_000 });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('wrote lib/check/registry.generated.ts');
    expect(run.stdout).toContain('wrote lib/check/client/registry.generated.ts');
    for (const file of ['lib/check/registry.generated.ts', 'lib/generate/checks.generated.ts', 'docs/checks.md']) expect(readFileSync(path.join(dir, file), 'utf8'), file).not.toContain('http.no-internals');
    for (const file of ['lib/check/client/registry.generated.ts', 'docs/client-checks.md']) expect(readFileSync(path.join(dir, file), 'utf8'), file).not.toContain('client.characters');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
