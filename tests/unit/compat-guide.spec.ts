import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { runDocBlocks } from '../support/doc-commands.ts';

/**
 * docs/guides/compatibility.md works as written: three agencies' clients recorded through sandboxes,
 * three builds of the reference server, the plan and the three matrices, in a directory that looks like a
 * fresh clone (tests/support/doc-commands.ts).
 */
test('docs/guides/compatibility.md: three agencies recorded, three builds, the plan, then compatible, changed and broken', async () => {
  test.setTimeout(420_000);
  const run = await runDocBlocks(readFileSync(fromRoot('docs', 'guides', 'compatibility.md'), 'utf8'), {
    label: 'compatibility.md',
    timeoutMs: 400_000,
    inspect: (dir) => {
      for (const build of ['build-1', 'build-2', 'build-3', 'build-4']) for (const file of ['compat.html', 'compat.json', 'compat-junit.xml', 'compat.md']) expect(existsSync(path.join(dir, 'reports', build, file)), `${build}/${file}`).toBe(true);
      for (const agency of ['021', '058', '128']) {
        const session = readFileSync(path.join(dir, 'sessions', agency, 'client-session.jsonl'), 'utf8');
        for (const key of ['imro-sandbox-key', 'bmi-sandbox-key', 'sacem-sandbox-key', 'my-test-key']) expect(session).not.toContain(key);
      }
      for (const build of ['build-1', 'build-2', 'build-3']) expect(readFileSync(path.join(dir, 'reports', build, 'compat.json'), 'utf8')).not.toContain('my-test-key');
    },
  });
  const out = run.output;
  expect(run.status, out.slice(-6000)).toBe(0);
  expect(out).toMatch(/6 sessions\/021\/client-session\.jsonl\n\s*6 sessions\/058\/client-session\.jsonl\n\s*6 sessions\/128\/client-session\.jsonl/);
  expect(out).toContain('compat: 3 session(s) of 3 agencies (021, 058, 128), 15 exchanges in 15 shapes');
  expect(out).toMatch(/15 shapes to replay against http:\/\/127\.0\.0\.1:\d+: 15 request\(s\), about 2 min at 0\.167 requests\/s/);
  expect(out).toContain('compat: every agency compatible (3): each replayed exchange met what its client met');
  expect(out).toContain('compat: no agency broken; 2 of 3 meet something different (021, 128)');
  expect(out).toContain('compat: 1 of 3 agencies broken (058)');
  expect(out).toMatch(/^exit code 1$/m);
  expect(out).toContain('| 058 | · | ❌ 1 broken · 1 not replayed |');
  // Section 5: a key that acts for 128 only; the other agencies not judged, exit 3.
  expect(out).toMatch(/clients wait 30 s \(--client-timeout 30s\)/);
  expect(out).toContain('no agency broken, but 2 of 3 agencies not judged (021, 058)');
  expect(out).toMatch(/agency 058: not judged/);
  expect(out).toMatch(/^exit code 3$/m);
  for (const key of ['imro-sandbox-key', 'bmi-sandbox-key', 'sacem-sandbox-key', 'my-test-key']) expect(out.split('\n').filter((l) => l.includes(key) && !l.includes('export ') && !l.includes('ISWC_SUBSCRIPTION_KEY='))).toEqual([]);
});

test('the README\'s "Will this build break an agency?" works as written: one agency recorded, a build with a fault, the matrix, exit 1', async () => {
  test.setTimeout(300_000);
  const { sectionOf } = await import('../support/doc-commands.ts');
  const run = await runDocBlocks(sectionOf(readFileSync(fromRoot('README.md'), 'utf8'), 'Will this build break an agency?'), { label: 'README, Will this build break an agency?', timeoutMs: 280_000 });
  const out = run.output;
  expect(run.status, out.slice(-4000)).toBe(0);
  expect(out).toContain('compat: 1 of 1 agencies broken (058)');
  expect(out).toMatch(/^exit code 1$/m);
  expect(out).not.toMatch(/my-test-key|sacem-sandbox-key/);
});
