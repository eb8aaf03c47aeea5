import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { CpuLine } from '../../scripts/cpu/summary.ts';
import { renderSummary, summarize } from '../../scripts/cpu/summary.ts';

/**
 * npm run test:cpu (CONTRIBUTING.md, "Where the time goes"): every process's CPU, by the test file that
 * started it, and each file's CPU in the worker of npm test that ran it.
 */

const worker = '/w/node_modules/playwright/lib/worker/workerProcessEntry.js';

test('the CPU of a run is added up by test file: its own in the outer worker, and what its tests started; nested runs counted', () => {
  const lines: CpuLine[] = [
    { kind: 'process', pid: 1, ppid: 0, test: null, cpu: 60, wallMs: 1, argv: '/w/node_modules/.bin/playwright test' },
    { kind: 'process', pid: 2, ppid: 1, test: null, cpu: 100, wallMs: 1, argv: worker },
    { kind: 'group', pid: 2, test: null, file: '/tmp/clone/tests/unit/a.spec.ts', cpu: 30 },
    { kind: 'group', pid: 2, test: null, file: '/tmp/clone/tests/unit/b.spec.ts', cpu: 50 },
    { kind: 'process', pid: 3, ppid: 2, test: 'tests/unit/a.spec.ts', cpu: 2, wallMs: 1, argv: '/w/bin/iswc-conformance.mjs run' },
    { kind: 'process', pid: 4, ppid: 3, test: 'tests/unit/a.spec.ts', cpu: 5, wallMs: 1, argv: '/w/node_modules/@playwright/test/cli.js test -c playwright.config.ts --project=json' },
    // The nested run's worker: its process line counts for the test that started the run, its groups not again.
    { kind: 'process', pid: 5, ppid: 4, test: 'tests/unit/a.spec.ts', cpu: 1.5, wallMs: 1, argv: worker },
    { kind: 'group', pid: 5, test: 'tests/unit/a.spec.ts', file: '/w/lib/suite/json.spec.ts', cpu: 1 },
    { kind: 'process', pid: 6, ppid: 0, test: null, cpu: 0.5, wallMs: 1, argv: '/usr/bin/npm test' },
  ];
  const s = summarize(lines);
  expect(s).toMatchObject({ total: 169, processes: 6, runner: 60, workers: 100, other: 0.5 });
  expect(s.files).toEqual([
    { file: 'tests/unit/b.spec.ts', own: 50, children: 0, processes: 0, runs: 0 },
    { file: 'tests/unit/a.spec.ts', own: 30, children: 8.5, processes: 3, runs: 1 },
  ]);
  const table = renderSummary(s, 10);
  expect(table).toContain('CPU of every process (user + system): 169 s in 6 processes');
  expect(table).toContain('1 nested Playwright runs');
  expect(table).toContain('   39 s    30 s     9 s          3 (1)  tests/unit/a.spec.ts');
});

test('the hook tags what a test starts with the test file, its children inherit the tag, and promisify(execFile) still answers as Node\'s does', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-test-cpu-'));
  try {
    const log = path.join(dir, 'cpu.jsonl');
    // A file standing for a test (CommonJS under a .spec.ts name): it starts a child through promisify(execFile), which starts one with spawnSync.
    const spec = path.join(dir, 'tests', 'unit', 'fake.spec.ts');
    mkdirSync(path.dirname(spec), { recursive: true });
    writeFileSync(
      spec,
      [
        "const { execFile } = require('node:child_process');",
        "const { promisify } = require('node:util');",
        "promisify(execFile)(process.execPath, ['-e', \"require('node:child_process').spawnSync(process.execPath, ['-e', '1'])\"]).then((r) => console.log('ok', typeof r.stdout, typeof r.stderr));",
      ].join('\n'),
    );
    const { CPU_HOOK_TEST: _inherited, ...env } = process.env;
    const run = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(spec)})`], { env: { ...env, NODE_OPTIONS: `--import ${fromRoot('scripts', 'cpu-hook.mjs')}`, CPU_HOOK_LOG: log }, encoding: 'utf8' });
    expect(run.stdout.trim(), run.stderr).toBe('ok string string');
    const lines = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as CpuLine);
    // The child and the grandchild (they exit first) carry the file's tag; the process this test started
    // carries none, or this test's when npm run test:cpu measures it.
    const tags = lines.map((l) => (l.kind === 'process' ? l.test : l.kind));
    expect(tags.slice(0, 2)).toEqual(['tests/unit/fake.spec.ts', 'tests/unit/fake.spec.ts']);
    expect([null, 'tests/unit/test-cpu.spec.ts']).toContain(tags[2]);
    expect(lines.every((l) => l.cpu > 0)).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
