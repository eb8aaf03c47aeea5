import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { launchChromium, noChromium, openReportOffline } from '../support/chromium.ts';
import type { Browser } from 'playwright-core';
import type { ClientReport } from '../../lib/report/client/model.ts';
import { CATALOGUE_KEY, TARGET, session } from '../../examples/agency-client/catalogue.ts';
import { loadAgencyData } from '../../examples/agency-client/data.ts';
import { agencyDay } from '../../examples/agency-client/flow.ts';

const HOSTILE = '<script>window.__pwned = true</script>';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

let browser: Browser | undefined;
let dir = '';
let report: ClientReport;

test.beforeAll(async () => {
  const missing = noChromium('the client report is not rendered in a browser in this run');
  test.skip(missing !== undefined, missing ?? '');
  // A client with several faults at once, and a work code carrying markup: violations of spec checks,
  // observations, and text the page must keep as text.
  const data = loadAgencyData(TARGET);
  const hostile = { ...data, merge: { ...data.merge, agencyWorks: [{ agencyCode: data.agency, agencyWorkCode: HOSTILE }] } };
  const outcome = await session(['--inject', '429@2'], 'json', (client) => agencyDay(client, hostile, true).then(() => undefined), {
    keep: true,
    clientOptions: { faults: ['agency-code-4', 'workcode-21', 'extra-field', 'no-reason-code', 'merge-without-key'] },
  });
  dir = outcome.dir;
  report = outcome.report;
  browser = await launchChromium();
});

test.afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('client-conformance.html opens offline: verdict, checks, trouble, violations grouped by check × operation × format, search and level filter', async () => {
  if (!browser) throw new Error('no browser');
  const file = path.join(dir, 'client-conformance.html');
  expect(readFileSync(file, 'utf8')).not.toContain(CATALOGUE_KEY);
  const { page, requests, errors, close } = await openReportOffline(browser, file);

  await expect(page.locator('#verdict')).toHaveAttribute('data-verdict', 'not conformant');
  await expect(page.locator('#verdict')).toContainText('not conformant');
  await expect(page.locator('#session')).toContainText('example-agency-client/1.0 (catalogue)');
  await expect(page.locator('#checks tr.check')).toHaveCount(report.checks.exercised.length);
  // The 429 met the merge; the same merge (sent without its key) never succeeded after it.
  await expect(page.locator('#trouble tr[data-kind="429"]')).toContainText('not survived');
  // What the client exercised, and why the declared operations that never succeeded did not.
  await expect(page.locator('#coverage tr.cell')).toHaveCount(report.coverage.cells.length + report.coverage.missing.filter((m) => m.format === 'any').length);
  await expect(page.locator('#coverage tr.cell[data-operation="mergeIswcMetadata"]')).toContainText('401');
  await expect(page.locator('#missing')).toContainText('merge JSON: sent 2 times, never succeeded (401 ×1, 429 ×1)');

  const violationGroups = new Set(report.violations.map((v) => `${v.check} ${v.operation} ${v.format}`));
  const groups = page.locator('#violations details.failure-group');
  await expect(groups).toHaveCount(violationGroups.size);
  const limits = page.locator('#violations details.failure-group[data-check="client.body.limits"][data-op="mergeIswcMetadata"][data-format="json"]');
  await expect(limits).toHaveCount(1);
  await limits.locator(':scope > summary').click();
  await expect(limits.locator('details.example[open] pre.request')).toContainText(HOSTILE);
  // The merge went without its key (merge-without-key); the run's request shows the key redacted.
  await expect(limits.locator('details.example[open] pre.request')).not.toContainText('ocp-apim-subscription-key');
  const run = page.locator('#violations details.failure-group[data-check="client.body.limits"][data-op="notifyAgentRun"]');
  await run.locator(':scope > summary').click();
  await expect(run.locator('details.example[open] pre.request')).toContainText('ocp-apim-subscription-key: $ISWC_SANDBOX_KEY');
  expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
  await expect(page.locator('#observations details.observed-group[data-check="client.query.open"]')).toHaveCount(1);

  // Search and level filter narrow the groups; expand all opens what is shown.
  await page.locator('#search').fill('query workcode');
  await expect(page.locator('#violations details.group:not([hidden])')).toHaveCount(1);
  await expect(page.locator('#filter-status')).toContainText('of');
  await page.locator('#search').fill('');
  await page.locator('#filter-level').selectOption('observed');
  await expect(page.locator('#violations details.group:not([hidden])')).toHaveCount(0);
  await page.locator('#filter-level').selectOption('');
  await page.locator('#expand-all').click();
  expect(await page.locator('details.group[open]').count()).toBe(await page.locator('details.group').count());
  await page.locator('#collapse-all').click();
  expect(await page.locator('details.group[open]').count()).toBe(0);

  // The matrix links a failing cell to its group.
  await page.locator('#matrix td.v-fail a').first().click();
  const hash = await page.evaluate(() => location.hash);
  expect(hash).toMatch(/^#f\d+$/);
  await expect(page.locator(`details.group${hash}`)).toHaveAttribute('open', '');

  expect(requests).toEqual([]);
  expect(errors).toEqual([]);
  await close();
});
