import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { Certificate } from '../../lib/report/certificate.ts';
import { readReport } from '../../lib/report/validate.ts';
import { waiverFigures, waiverFiguresText } from '../../lib/report/waivers/figures.ts';
import type { WaiverFigures } from '../../lib/report/waivers/types.ts';
import { startReferenceServer } from '../../server/index.ts';
import type { ModelName } from '../../server/index.ts';
import { cliInProcess, runCliAsync } from '../support/cli.ts';
import { childEnv } from '../support/run-playwright.ts';

/**
 * Issue 30, "one figure for waivers everywhere", on the runs that showed two (issue 29's production gate:
 * "7 waived" in the headline and "with 6 waivers" in the verdict, 10 and 9 destructive): the gate with the
 * narrowed waivers against the model of production as built, destructive and not, and the README's CI gate
 * against a stand-in for staging. The console summary, conformance.json, the HTML, JUnit, the certificate
 * and what `certify` prints all give the same figures (used, not exercised, unused, expired, and the
 * failures a waiver of their check did not cover), and every "N waivers" they say is the waivers used.
 */

test.describe.configure({ timeout: 420_000 });

const KEY = 'figures-test-key';
const PRODUCTION_PROFILE = 'fixtures/targets/production-example.json';
const PRODUCTION_WAIVERS = 'fixtures/waivers/production-as-built.yaml';
const STAGING_PROFILE = 'fixtures/targets/staging-example.json';
const STAGING_WAIVERS = 'fixtures/waivers/production-deviations.yaml';

let dir = '';
test.beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'iswc-waiver-figures-'));
});
test.afterAll(() => {
  if (dir && !process.env.KEEP_FIGURES) rmSync(dir, { recursive: true, force: true });
});

interface Gate {
  name: string;
  profile: string;
  waivers: string;
  model?: ModelName;
  destructive: boolean;
}

interface GateOutputs {
  console: string;
  certify: string;
  reports: string;
  figures: WaiverFigures;
}

/** The gate as a CI job runs it (the smoke plan, strict), against a target started apart, then `certify --report`. */
async function runGate(gate: Gate): Promise<GateOutputs> {
  const profile = loadProfile(fromRoot(gate.profile));
  const server = await startReferenceServer({ profile, key: KEY, ...(gate.model ? { model: gate.model } : {}) });
  const reports = path.join(dir, gate.name);
  const env = childEnv({ ISWC_BASE_URL: server.url, ISWC_SUBSCRIPTION_KEY: KEY, ISWC_DESTRUCTIVE: gate.destructive ? '1' : '0', ISWC_WORKERS: '1' });
  try {
    const options = ['--target', gate.profile, '--smoke', '--strict', '--seed', '7', '--waivers', gate.waivers];
    const run = await runCliAsync([...options, '--report-dir', reports], { env, timeoutMs: 360_000 });
    expect(run.code, run.out.slice(-4000)).toBe(0);
    // certify in this process (the guides run it as a user does): it reads the report the real run wrote.
    const certify = await cliInProcess(['certify', '--report', path.join(reports, 'conformance.json'), ...options, '--out', reports], { env });
    expect([0, 1], certify.out).toContain(certify.code);
    const report = readReport(path.join(reports, 'conformance.json'));
    const figures = report.summary.waivers?.figures;
    if (!figures) throw new Error('conformance.json has no waiver figures');
    // The figures are those of the entries and the executions, not a count kept apart.
    expect(figures).toEqual(waiverFigures(report.summary.waivers?.entries ?? [], report.executions));
    expect(figures.used, 'used: the waivers that waived an execution').toBe(new Set(report.executions.filter((e) => e.verdict === 'waived').map((e) => e.waiver?.index)).size);
    return { console: run.out, certify: certify.out, reports, figures };
  } finally {
    await server.close();
  }
}

/** Every output says the same figures, and every "N waivers" anywhere is the waivers used. */
function expectOneFigure(gate: Gate, out: GateOutputs): void {
  const { figures } = out;
  const text = waiverFiguresText(figures);
  const used = figures.used;
  const file = gate.waivers;
  const report = readReport(path.join(out.reports, 'conformance.json'));
  const html = readFileSync(path.join(out.reports, 'conformance.html'), 'utf8');
  const junit = readFileSync(path.join(out.reports, 'conformance-junit.xml'), 'utf8');
  const certificate = JSON.parse(readFileSync(path.join(out.reports, 'certificate.json'), 'utf8')) as Certificate;
  const certificateHtml = readFileSync(path.join(out.reports, 'certificate.html'), 'utf8');

  // The figures line, word for word, in each output.
  expect(out.console).toContain(`waivers of ${file}: ${text}`);
  expect(html).toContain(`<p id="waiver-figures">Waivers of ${file}: ${text}</p>`);
  expect(html).toContain(`${file}: ${text} (expiry judged on`);
  expect(junit).toContain(`<property name="waivers" value="${file}: ${text}"/>`);
  expect(certificate.waivers?.figures).toEqual(figures);
  expect(certificateHtml).toContain(`<p id="waiver-figures">Waivers of ${file}: ${text}</p>`);
  expect(out.certify).toContain(`  waivers: ${text}`);

  // Each entry's status, counted in each output, gives the same figures.
  const statuses = (report.summary.waivers?.entries ?? []).map((w) => w.status);
  const count = (list: readonly string[], status: string): number => list.filter((s) => s === status).length;
  const htmlStatuses = [...html.matchAll(/<tr class="waiver-entry status-[^"]+"[^>]*>.*?data-status="([^"]+)"/g)].map((m) => m[1] ?? '');
  // Every testsuite of the JUnit file carries the run's properties: one block says it.
  const junitProperties = /<properties>[\s\S]*?<\/properties>/.exec(junit)?.[0] ?? '';
  const junitStatuses = [...junitProperties.matchAll(/<property name="waiver\.\d+" value="(used|unused|not exercised|expired)[ :]/g)].map((m) => m[1] ?? '');
  const certifyStatuses = [...out.certify.matchAll(/^ {2}waiver \d+ \(.*\): (used|unused|not exercised|expired)/gm)].map((m) => m[1] ?? '');
  const lists: Record<string, string[]> = { 'conformance.json': statuses, 'conformance.html': htmlStatuses, 'conformance-junit.xml': junitStatuses, certify: certifyStatuses, 'certificate.json': (certificate.waivers?.entries ?? []).map((w) => w.status) };
  for (const [where, list] of Object.entries(lists)) {
    expect({ used: count(list, 'used'), notExercised: count(list, 'not exercised'), unused: count(list, 'unused'), expired: count(list, 'expired') }, where).toEqual({
      used: figures.used,
      notExercised: figures.notExercised,
      unused: figures.unused,
      expired: figures.expired,
    });
  }

  // Every "N waivers" said is the waivers used: the verdict, the headline, the certificate's verdict.
  const said = [out.console, html, junit, report.summary.verdictText, certificate.verdictText, out.certify, certificateHtml].flatMap((t) =>
    [...t.matchAll(/\bwith (\d+) waivers?\b|\b(\d+) waivers? used\b/g)].map((m) => Number(m[1] ?? m[2])),
  );
  if (used > 0) {
    expect(said.length, 'the verdict and the headline count the waivers used').toBeGreaterThan(0);
    expect(out.console).toMatch(new RegExp(`^no deviation left: ${used} waivers? used$`, 'm'));
    expect(out.console).toMatch(new RegExp(`^verdict: .* with ${used} waivers?\\b`, 'm'));
  }
  expect(new Set(said), 'one figure for waivers everywhere').toEqual(new Set(used > 0 ? [used] : []));
  // Counts of check executions say so, and are the executions waived.
  const waivedExecutions = report.executions.filter((e) => e.verdict === 'waived').length;
  expect(html).toContain(`<h2 id="waived-title">Waived (${waivedExecutions} check execution${waivedExecutions === 1 ? '' : 's'})</h2>`);
  expect(out.certify).toContain(`${waivedExecutions} waived check execution${waivedExecutions === 1 ? '' : 's'}`);
}

const PRODUCTION_ENTRIES = { runLimit: 0, runType: 1, runStatus: 2, runText: 3, runKey: 4, deleteRefused: 5, deleteIdentity: 6, mergeNotFound: 7 } as const;

for (const destructive of [false, true]) {
  test(`the production gate with the narrowed waivers (${destructive ? 'destructive' : 'non-destructive'}): every output gives one figure for waivers, each used or not exercised`, { tag: '@e2e' }, async () => {
    const gate: Gate = { name: destructive ? 'production-destructive' : 'production', profile: PRODUCTION_PROFILE, waivers: PRODUCTION_WAIVERS, model: 'production-as-built', destructive };
    const out = await runGate(gate);
    expectOneFigure(gate, out);
    const report = readReport(path.join(out.reports, 'conformance.json'));
    const status = new Map((report.summary.waivers?.entries ?? []).map((w) => [w.index, w.status]));
    // The gate tells no one to remove a waiver production needs: each is used, or not exercised by this run.
    expect(out.figures).toMatchObject({ unused: 0, expired: 0, missed: 0 });
    expect([...status.values()].every((s) => s === 'used' || s === 'not exercised')).toBe(true);
    // The delete's deviation needs a destructive run; the run notification's and the merge's any gate shows.
    expect(status.get(PRODUCTION_ENTRIES.deleteRefused)).toBe(destructive ? 'used' : 'not exercised');
    expect(status.get(PRODUCTION_ENTRIES.deleteIdentity)).toBe(destructive ? 'used' : 'not exercised');
    for (const index of [PRODUCTION_ENTRIES.runLimit, PRODUCTION_ENTRIES.runText, PRODUCTION_ENTRIES.runKey, PRODUCTION_ENTRIES.mergeNotFound]) expect(status.get(index), `entry ${index}`).toBe('used');
    expect(out.console).not.toContain('unused waivers in');
  });
}

test('the README\'s CI gate against a stand-in for staging: the waiver production needs is unused there, and every output says so alike', { tag: '@e2e' }, async () => {
  const gate: Gate = { name: 'staging', profile: STAGING_PROFILE, waivers: STAGING_WAIVERS, destructive: false };
  const out = await runGate(gate);
  expectOneFigure(gate, out);
  expect(out.figures).toEqual({ entries: 1, used: 0, notExercised: 0, unused: 1, expired: 0, missed: 0 });
  expect(out.console).toContain(`unused waivers in ${STAGING_WAIVERS}`);
});
