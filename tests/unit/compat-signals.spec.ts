/**
 * A signal stops a replay as it stops a run: sent to npx alone (never to the group), the replay sends
 * nothing more, writes its reports marked interrupted and exits 130; no process of the tool is left.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot, repoRoot } from '../../lib/foundation/paths.ts';
import type { CompatReport } from '../../lib/report/compat/model.ts';
import { startReferenceServer } from '../../server/index.ts';
import { recordAgencyDay, THREE_AGENCIES } from '../support/agency-sessions.ts';
import { killMarked, markedProcesses, MARKER_VARIABLE } from '../support/launch.ts';
import { childEnv } from '../support/run-playwright.ts';

test.describe.configure({ mode: 'parallel', timeout: 240_000 });

const BUILD_KEY = 'compat-signals-build-key-71';

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`compat: ${signal} to npx alone stops sending, the reports say interrupted, exit 130, nothing left`, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'iswc-compat-signals-'));
    const arrivals: number[] = [];
    const server = await startReferenceServer({ profile: loadProfile(fromRoot('fixtures/targets/sandbox-client.json')), key: BUILD_KEY, hook: { received: () => void arrivals.push(Date.now()) } });
    const marker = randomUUID();
    try {
      for (const [agency, standIn] of Object.entries(THREE_AGENCIES)) await recordAgencyDay(path.join(dir, 'sessions', agency), standIn, 'agency-key-of-the-sandbox');
      const out = path.join(dir, 'reports');
      // One request a second: 15 shapes take 15 s, time enough to be stopped on the way.
      const args = ['iswc-conformance', 'compat', '--sessions', path.join(dir, 'sessions'), '--base-url', server.url, '--target', fromRoot('fixtures/targets/sandbox-client.json'), '--rate', '1/s', '--report-dir', out];
      const child = spawn('npx', args, { cwd: repoRoot, env: { ...childEnv({ ISWC_SUBSCRIPTION_KEY: BUILD_KEY, ISWC_BASE_URL: undefined, ISWC_TARGET: undefined, ISWC_RATE: undefined, ISWC_REPORT_DIR: undefined }), [MARKER_VARIABLE]: marker }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
      const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await expect.poll(() => arrivals.length, { timeout: 120_000, intervals: [100] }).toBeGreaterThanOrEqual(3);
      const signalledAt = Date.now();
      process.kill(child.pid ?? -1, signal);
      const code = await done;
      expect(code, output).toBe(130);
      // Nothing reaches the build a second after the signal (it travels through npx to the command).
      expect(arrivals.filter((t) => t > signalledAt + 1_000), output).toEqual([]);
      await expect.poll(() => markedProcesses(marker), { timeout: 30_000, intervals: [200] }).toEqual([]);
      const report = JSON.parse(readFileSync(path.join(out, 'compat.json'), 'utf8')) as CompatReport;
      expect(report.outcome.halt?.kind).toBe('interrupted');
      expect(report.outcome.exitCode).toBe(130);
      expect(report.outcome.halt?.reason).toMatch(new RegExp(`^interrupted by ${signal}$|^interrupted: the process that started it`));
      // What reached the build is what the report counts; the shapes left say why they were not sent.
      expect(report.figures.requests.sent).toBe(arrivals.length);
      expect(report.exchanges.some((e) => e.reasons[0]?.startsWith('not sent: interrupted'))).toBe(true);
      expect(readFileSync(path.join(out, 'compat-junit.xml'), 'utf8')).toContain('<testcase classname="compat" name="the replay ended on its own"><error message="interrupted');
      expect(output).toContain('stopping; no new request is sent');
    } finally {
      killMarked(marker);
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
