import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { startReferenceServer } from '../../server/index.ts';
import { recordAgencyDay, THREE_AGENCIES } from '../support/agency-sessions.ts';
import { launchChromium, noChromium, openReportOffline } from '../support/chromium.ts';
import { cliInProcess } from '../support/cli.ts';

/**
 * compat.html opens offline and reads at a glance: the matrix coloured by verdict, each cell a link to its
 * exchanges with what the client met beside what the build answered; text a recording holds (markup in an
 * answer) stays text.
 */

const HOSTILE = '<script>window.__pwned = true</script>';

test.describe.configure({ mode: 'serial', timeout: 180_000 });

let browser: Browser | undefined;
let dir = '';

test.beforeAll(async () => {
  const missing = noChromium('the compatibility report is not rendered in a browser in this run');
  test.skip(missing !== undefined, missing ?? '');
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-compat-html-'));
  for (const [agency, standIn] of Object.entries(THREE_AGENCIES)) await recordAgencyDay(path.join(dir, 'sessions', agency), standIn, 'compat-html-sandbox-key');
  // A gateway's line whose recorded answer carries markup.
  mkdirSync(path.join(dir, 'sessions', 'gateway'), { recursive: true });
  writeFileSync(path.join(dir, 'sessions', 'gateway', 'log.jsonl'), `${JSON.stringify({ agency: '052', method: 'GET', url: '/agent/run', status: 405, responseHeaders: { 'content-type': 'text/html' }, responseBody: HOSTILE })}\n`);
  const server = await startReferenceServer({ profile: loadProfile(fromRoot('fixtures/targets/sandbox-client.json')), key: 'compat-html-build-key', faults: ['xml-bodies-415'] });
  try {
    const result = await cliInProcess(['compat', '--sessions', path.join(dir, 'sessions'), '--base-url', server.url, '--target', fromRoot('fixtures/targets/sandbox-client.json'), '--report-dir', path.join(dir, 'reports')], { env: { ISWC_SUBSCRIPTION_KEY: 'compat-html-build-key' }, cwd: dir });
    expect(result.code, result.out).toBe(1);
  } finally {
    await server.close();
  }
  browser = await launchChromium();
});

test.afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('compat.html opens offline: the matrix by colour, a broken cell leads to its exchanges side by side, markup stays text', async () => {
  if (!browser) throw new Error('no browser');
  const { page, requests, errors, close } = await openReportOffline(browser, path.join(dir, 'reports', 'compat.html'));
  try {
    const matrix = page.locator('table.matrix');
    await expect(matrix.locator('tbody tr')).toHaveCount(4);
    await expect(matrix.locator('td.c-broken')).toHaveCount(3);
    const broken = matrix.locator('td.cell.c-broken a').first();
    const colour = await matrix.locator('td.cell.c-broken').first().evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(colour).toBe('rgb(239, 154, 154)');
    await broken.click();
    await expect(page).toHaveURL(/#cell-058-notifyAgentRun-xml$/);
    const section = page.locator('#cell-058-notifyAgentRun-xml');
    await expect(section).toBeVisible();
    await expect(page.locator('.exchange.x-broken').first()).toContainText('a success became a refusal: 200 → 415');
    await expect(page.locator('.exchange.x-broken details[open] h4').first()).toHaveText('What the client met (recorded)');
    await expect(page.getByText(HOSTILE).first()).toBeAttached();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
