import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { inProcessReport } from '../support/in-process.ts';
import { writeConformanceReports } from '../../lib/report/write.ts';
import { fromRoot } from '../../lib/paths.ts';

/** Debian's chromium: no browser download. `.ci/run` installs it (apt-get install -y chromium). */
const CHROMIUM = process.env.ISWC_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

test.describe.configure({ mode: 'serial', timeout: 60_000 });

let browser: Browser | undefined;
let dir = '';
let htmlFile = '';

test.beforeAll(async () => {
  test.skip(!existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set ISWC_CHROMIUM; the HTML report is not rendered in a browser in this run`);
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-html-'));
  const report = await inProcessReport({
    faults: ['run-bad-request-text', 'merge-404-as-400'],
    mutate: (executions) => {
      const fail = executions.find((e) => e.verdict === 'fail' && e.exchange?.response);
      if (fail?.exchange?.response) fail.exchange.response.body = '<script>window.__pwned = true</script><b>hostile</b>';
      return executions;
    },
  });
  htmlFile = writeConformanceReports(report, dir).html;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

test.afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the HTML report renders its matrix, a failure and the chart offline; hostile bodies stay text', async () => {
  if (!browser) throw new Error('no browser');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) requests.push(r.url());
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(pathToFileURL(htmlFile).href);

  await expect(page.locator('#verdict')).toHaveText('not conformant');
  const matrix = page.locator('#matrix');
  await expect(matrix).toBeVisible();
  expect(await matrix.locator('tr.check').count()).toBeGreaterThan(20);
  await expect(matrix.locator('td.v-fail').first()).toBeVisible();
  await expect(matrix.locator('tr.check[data-check="text.bad-request"] td.v-fail').first()).toBeVisible();

  const chart = page.locator('svg#chart');
  await expect(chart).toBeVisible();
  expect(await chart.locator('rect.bar-fail').count()).toBeGreaterThan(0);
  const box = await chart.boundingBox();
  expect(box?.width ?? 0).toBeGreaterThan(300);

  // Open a failure from the matrix: its exchange, expected vs received and curl line show.
  await matrix.locator('tr.check[data-check="text.bad-request"] td.v-fail a').first().click();
  const failure = page.locator('details.failure[open]').first();
  await expect(failure.locator('.expected')).toContainText('Bad Request');
  await expect(failure.locator('.received')).toContainText('Invalid request');
  await expect(failure.locator('pre.curl')).toContainText('curl ');
  await expect(failure.locator('pre.curl')).toContainText('$ISWC_SUBSCRIPTION_KEY');

  // The hostile body is shown as text and never ran.
  await page.locator('#expand-all').click();
  await expect(page.locator('pre.response', { hasText: '<script>window.__pwned = true</script>' }).first()).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();

  // Filter: only failing checks remain.
  await page.locator('#only-failures').click();
  expect(await matrix.locator('tr.check:visible').count()).toBe(await matrix.locator('tr.check.has-fail').count());
  await page.locator('#only-failures').click();

  expect(requests).toEqual([]);
  expect(errors).toEqual([]);

  await page.setViewportSize({ width: 1280, height: 1500 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.locator('details.failure').first().evaluate((d) => ((d as HTMLDetailsElement).open = false));
  // The README's picture is refreshed on request (ISWC_UPDATE_SCREENSHOT=1), so a test run leaves the tree clean.
  const shot = await page.screenshot({ fullPage: false });
  expect(shot.byteLength).toBeGreaterThan(10_000);
  if (process.env.ISWC_UPDATE_SCREENSHOT === '1') writeFileSync(fromRoot('docs', 'report-screenshot.png'), shot);
  await context.close();
});
