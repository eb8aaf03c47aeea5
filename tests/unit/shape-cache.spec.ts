import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot, repoRoot } from '../../lib/foundation/paths.ts';
import { filesFingerprint, harnessFingerprint } from '../../lib/run/shape-cache.ts';

/**
 * The planner keeps each profile's case shapes on disk (lib/run/shape-cache.ts): a kept shape must be
 * the shape the planner works out, and a plan read from kept shapes the plan worked out afresh.
 */

/** The shapes and the chosen cases of a budgeted plan of the embedded profile, planned in a process of its own. */
function planInChild(env: Record<string, string>): { shapes: unknown; chosen: string[] } {
  const script = `
    const { loadProfile } = await import(${JSON.stringify(fromRoot('lib/contract/profile/load.ts'))});
    const { planSuite } = await import(${JSON.stringify(fromRoot('lib/run/plan.ts'))});
    const profile = loadProfile(${JSON.stringify(fromRoot('fixtures/targets/embedded.json'))});
    const planned = await planSuite(profile, { destructive: true, budget: 60 });
    process.stdout.write(JSON.stringify({ shapes: planned.map((p) => [p.key, p.shape]), chosen: planned.filter((p) => !p.skipReason).map((p) => p.key) }));
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { shapes: unknown; chosen: string[] };
}

test('kept shapes are the shapes the planner works out, and the plan read from them is the same plan', () => {
  const fresh = planInChild({ ISWC_SHAPE_CACHE: '0' });
  // Twice with the cache: the first may write it, the second reads it.
  const first = planInChild({});
  const second = planInChild({});
  expect(first).toEqual(fresh);
  expect(second).toEqual(fresh);
  const kept = fromRoot('node_modules', '.cache', 'iswc-conformance', 'shapes', harnessFingerprint());
  expect(readdirSync(kept).filter((f) => f.endsWith('.json')).length).toBeGreaterThan(0);
});

test("the fingerprint is of the harness's files: the same files the same, any change to one another", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-fingerprint-'));
  try {
    mkdirSync(path.join(dir, 'lib', 'run'), { recursive: true });
    writeFileSync(path.join(dir, 'lib', 'run', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(dir, 'lib', 'b.ts'), 'export const b = 2;\n');
    const at = (): string => filesFingerprint(dir, ['lib', 'schemas', 'package-lock.json']);
    const before = at();
    expect(at()).toBe(before);
    writeFileSync(path.join(dir, 'lib', 'run', 'a.ts'), 'export const a = 3;\n');
    const changed = at();
    expect(changed).not.toBe(before);
    writeFileSync(path.join(dir, 'lib', 'c.ts'), '');
    expect(at()).not.toBe(changed);
    rmSync(path.join(dir, 'lib', 'c.ts'));
    renameSync(path.join(dir, 'lib', 'b.ts'), path.join(dir, 'lib', 'd.ts'));
    expect(at()).not.toBe(changed);
    expect(harnessFingerprint()).toMatch(/^[0-9a-f]{24}$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
