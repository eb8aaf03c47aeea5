import { runCli } from '../support/cli.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { launchChromium, noChromium } from '../support/chromium.ts';
import { runAgainstFaultyServer } from '../support/faulty-run.ts';


test.describe.configure({ timeout: 300_000 });

/**
 * `npm run report:allure` writes one file that opens from disk, in Debian's Chromium, offline: it shows the
 * run (no endless spinner) and requests nothing, no analytics script included.
 */
test('the Allure report opens from disk, offline, shows the run and requests nothing outside itself', { tag: '@e2e' }, async () => {
  const missing = noChromium('the Allure report is not opened in a browser in this run');
  test.skip(missing !== undefined, missing ?? '');
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-allure-'));
  try {
    const run = await runAgainstFaultyServer({ faults: ['merge-404-as-400'], grep: 'merge\\.unknown-preferred\\]|run\\.start-and-end\\]', dir });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const allure = runCli(['allure'], { env: { ...process.env, ISWC_REPORT_DIR: dir } });
    expect(allure.code, allure.out).toBe(0);
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
      const page = await context.newPage();
      const requests: string[] = [];
      page.on('request', (r) => {
        if (!/^(file|data|blob):/.test(r.url())) requests.push(r.url());
      });
      await page.goto(pathToFileURL(path.join(dir, 'allure-report', 'index.html')).href);
      // The overview: the report's name and its four tests, not a spinner.
      await expect(page.getByText('ISWC conformance').first()).toBeVisible({ timeout: 30_000 });
      await expect(page.getByText('test cases').first()).toBeVisible();
      await expect(page.locator('.spinner')).toHaveCount(0);
      // The suites: JSON and XML, each with its operation.
      await page.goto(`${pathToFileURL(path.join(dir, 'allure-report', 'index.html')).href}#suites`);
      await expect(page.getByText('JSON', { exact: true }).first()).toBeVisible();
      await expect(page.getByText('XML', { exact: true }).first()).toBeVisible();
      expect(requests).toEqual([]);
      await context.close();
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
