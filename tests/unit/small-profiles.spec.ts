/**
 * An agency's first runs, with a profile of its own: the smallest profile (one existing and one unknown
 * ISWC), one with three entries and the README's example each run green and partial against the
 * reference server seeded with that same profile, destructive and not, and every spec check a run does
 * not exercise says why ("needs 4 more merges"), never "no case ran it".
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { allChecks } from '../../lib/check/registry.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot, repoRoot } from '../../lib/foundation/paths.ts';
import { runSuiteInProcess } from '../../lib/engine/pipeline.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { NO_CASE_RAN_IT, specCoverage } from '../../lib/report/verdict.ts';
import { startReferenceServer } from '../../server/index.ts';
import { runCli } from '../support/cli.ts';
import { childEnv } from '../support/run-playwright.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

const KEY = 'small-profile-key';
const PROFILES = ['minimal.json', 'three-entries.json', 'readme-example.json'];

for (const file of PROFILES) {
  for (const destructive of [false, true]) {
    test(`${file}, ${destructive ? 'destructive' : 'not destructive'}: green and partial against a server seeded with it, each check not exercised with its reason`, async () => {
      test.setTimeout(180_000);
      const profile = loadProfile(fromRoot('fixtures', 'targets', file));
      const server = await startReferenceServer({ profile, key: KEY });
      try {
        const executions = await runSuiteInProcess({ baseUrl: server.url, key: KEY, profile, destructive, timeoutMs: REQUEST_TIMEOUT_MS, settings: { runs: 5 } });
        expect(executions.filter((e) => e.verdict === 'fail').map((e) => `${e.caseId} ${e.checkId}: ${e.received ?? ''}`)).toEqual([]);
        const coverage = specCoverage(executions);
        expect(coverage.exercised).toBeLessThan(coverage.specChecks);
        // Checks every run exercises, whatever the profile: the run did happen.
        expect(coverage.exercised).toBeGreaterThanOrEqual(15);
        for (const n of coverage.notExercised) {
          expect(n.reasons, n.checkId).not.toContain(NO_CASE_RAN_IT);
          for (const reason of n.reasons) expect(reason, n.checkId).toMatch(destructive ? /^needs / : /^needs |destructive checks are off/);
        }
      } finally {
        await server.close();
      }
    });
  }
}

/** `npx iswc-conformance server …` started apart; resolves with its URL and a way to stop it. */
async function serverApart(target: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [fromRoot('bin', 'iswc-conformance.mjs'), 'server', '--port', '0', '--target', target, '--key', KEY], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited ${String(code)}: ${out}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, stop };
}

test('the README example through the real command, against a server started apart with it: exit 0, partial, each check not exercised with what it needs', { tag: '@e2e' }, async () => {
  test.setTimeout(300_000);
  const target = 'fixtures/targets/readme-example.json';
  const server = await serverApart(target);
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-small-profile-'));
  try {
    const run = runCli(['run', '--base-url', server.url, '--target', target, '--destructive', '--runs', '3', '--seed', '1', '--report-dir', dir], {
      env: childEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_BASE_URL: undefined, ISWC_TARGET: undefined }),
      timeoutMs: 280_000,
    });
    expect(run.code, run.out.slice(-3000)).toBe(0);
    expect(run.out).not.toContain(KEY);
    const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
    expect(report.summary.verdict).toBe('partial');
    const spec = allChecks().filter((c) => c.level === 'spec').length;
    expect(report.summary.verdictText).toBe(`conformant on ${spec - 4} of ${spec} spec checks`);
    const reasons = Object.fromEntries(report.summary.coverage.notExercised.map((n) => [n.checkId, n.reasons]));
    expect(Object.keys(reasons).sort()).toEqual(['outcome.delete', 'outcome.demerge-one', 'outcome.identity', 'outcome.sequence']);
    expect(reasons['outcome.demerge-one']).toContain('needs a merges entry with at least 2 agencyWorks');
    for (const [id, list] of Object.entries(reasons)) for (const reason of list) expect(reason, id).toMatch(/^needs /);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
