import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

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
