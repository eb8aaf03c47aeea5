/**
 * A test of the harness that is skipped says why, in the console of the run (npm test's last lines): the
 * browser checks on a machine without Chromium name what is missing and how to install it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { childEnv, runPlaywright } from '../support/run-playwright.ts';

test('without Chromium the browser checks are skipped, and the run\'s last lines say why', { tag: '@e2e' }, async () => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-skip-reasons-'));
  try {
    const run = await runPlaywright(['test', '--project=browser', '--output', path.join(dir, 'test-results')], childEnv({ ISWC_CHROMIUM: path.join(dir, 'no-chromium'), ISWC_REPORT_DIR: dir, ISWC_BASE_URL: undefined }), { timeoutMs: 170_000 });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\ntests: 0 passed, 0 failed, \d+ skipped\n/);
    expect(run.stdout).toMatch(new RegExp(`\\n {2}skipped ×\\d+: \\[browser\\] no Chromium at ${path.join(dir, 'no-chromium').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: install it \\(apt-get install -y chromium\\) or set ISWC_CHROMIUM; the HTML report is not rendered in a browser in this run\\n`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
