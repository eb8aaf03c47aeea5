import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

/** Debian's chromium: no browser download. `.ci/run` installs it (apt-get install -y chromium). */
export const CHROMIUM = process.env.ISWC_CHROMIUM ?? '/usr/bin/chromium';
/** Offline and quiet: the pages must open from disk with no outside request. */
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Why a browser test is skipped on this machine (what to install), or undefined when Chromium is there. */
export function noChromium(what: string): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set ISWC_CHROMIUM; ${what}`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

export interface OpenedReport {
  page: Page;
  /** Every request that was not the file itself: a self-contained report makes none. */
  requests: string[];
  errors: string[];
  close: () => Promise<void>;
}

/** Opens one of the harness's HTML reports from disk, offline, once its script is ready (window.iswcReady). */
export async function openReportOffline(browser: Browser, file: string, viewport = { width: 1280, height: 900 }): Promise<OpenedReport> {
  const context = await browser.newContext({ viewport, offline: true });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) requests.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => (window as unknown as { iswcReady?: number }).iswcReady !== undefined);
  return { page, requests, errors, close: () => context.close() };
}
