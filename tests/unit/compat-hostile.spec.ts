import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { CompatReport } from '../../lib/report/compat/model.ts';
import { HOSTILE_KINDS } from '../../server/hostile/targets.ts';
import { recordAgencyDay, THREE_AGENCIES } from '../support/agency-sessions.ts';
import { cliInProcess } from '../support/cli.ts';

/**
 * A build that answers badly (hangs, resets, bytes that are not HTTP, bodies too large or too deep,
 * redirects elsewhere) gives a clear verdict, never a crash or a hang: each exchange broken with what came,
 * or the replay stopped as unusable (exit 3), the reports written either way.
 */

test.describe.configure({ mode: 'parallel', timeout: 180_000 });

let sessions = '';
test.beforeAll(async () => {
  sessions = mkdtempSync(path.join(tmpdir(), 'iswc-compat-hostile-'));
  await recordAgencyDay(sessions, THREE_AGENCIES['128'] ?? { profile: '', format: 'json' }, 'hostile-sandbox-key');
});
test.afterAll(() => {
  if (sessions) rmSync(sessions, { recursive: true, force: true });
});

for (const kind of HOSTILE_KINDS) {
  test(`a build that ${kind.description}: a clear verdict, no crash, no hang`, async () => {
    const target = await kind.start();
    const out = mkdtempSync(path.join(tmpdir(), 'iswc-compat-hostile-out-'));
    try {
      const result = await cliInProcess(['compat', '--sessions', sessions, '--base-url', target.url, '--target', fromRoot('fixtures/targets/sandbox-client.json'), '--report-dir', out], {
        env: { ISWC_SUBSCRIPTION_KEY: 'hostile-build-key-1', ISWC_TIMEOUT_MS: '1500', ISWC_CLIENT_TIMEOUT: '1.5s', ...(kind.maxBodyBytes !== undefined ? { ISWC_MAX_BODY: String(kind.maxBodyBytes) } : {}) },
      });
      expect([1, 3], result.out).toContain(result.code);
      expect(existsSync(path.join(out, 'compat.html'))).toBe(true);
      const report = JSON.parse(readFileSync(path.join(out, 'compat.json'), 'utf8')) as CompatReport;
      const replayed = report.exchanges.filter((e) => e.judgedBy === e.id && e.verdict !== 'skipped');
      for (const e of replayed) expect(e.verdict, `${e.id}: ${e.reasons.join(' | ')}`).toBe('broken');
      if (result.code === 3) expect(report.outcome.halt?.kind).toBe('target-unusable');
      expect(result.out).not.toMatch(/internal error|\n\s+at .*:\d+:\d+\)?\n/);
    } finally {
      await target.close();
      rmSync(out, { recursive: true, force: true });
    }
  });
}
