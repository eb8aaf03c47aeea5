import { runCli } from '../support/cli.ts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { CheckExecution } from '../../lib/run/execution.ts';
import { runSuiteInProcess } from '../../lib/engine/pipeline.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { buildConformanceReport } from '../../lib/report/build.ts';
import type { Certificate } from '../../lib/report/certificate.ts';
import { buildCertificate, renderCertificateHtml, verifyCertificate } from '../../lib/report/certificate.ts';
import { diffReports, renderDiffMarkdown } from '../../lib/report/diff.ts';
import { VERDICT_COLOUR, renderHtml } from '../../lib/report/html.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';
import { renderJunit } from '../../lib/report/junit.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { reportViolations } from '../../lib/report/validate.ts';
import { loadWaivers, parseWaivers } from '../../lib/report/waivers/load.ts';
import type { WaiverSet } from '../../lib/report/waivers/types.ts';
import { startReferenceServer } from '../../server/index.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

test.describe.configure({ timeout: 120_000 });

const EXAMPLE = fromRoot('fixtures', 'waivers', 'production-deviations.yaml');
const KEY = 'local-dev-key';
/** A day before the example's `until`: the tests do not depend on the calendar. */
const LIVE_DAY = '2026-11-23';

let raw: CheckExecution[];
let example: WaiverSet;

/** A report of the faulty server's run, as the reporter builds it, with these waivers on this day. */
function reportWith(waivers?: WaiverSet, date = LIVE_DAY): ConformanceReport {
  const now = new Date();
  return buildConformanceReport({
    executions: raw,
    stats: { requests: 0, retries: 0, waitedMs: 0 },
    baseUrl: 'http://127.0.0.1:1',
    embedded: true,
    profile: 'embedded',
    targetProfile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')),
    seed: 1,
    runs: 25,
    strict: false,
    destructive: true,
    startedAt: now,
    finishedAt: now,
    ...(waivers ? { waivers: { set: waivers, date } } : {}),
  });
}

function keysOf(executions: readonly CheckExecution[]): string[] {
  return executions.map((e) => `${e.caseId} ${e.format} ${e.step} ${e.checkId}`).sort();
}

// In order, in one worker: the tests share the whole run test.beforeAll makes, which every worker running
// one of them would otherwise make again.
test.describe.configure({ mode: 'default' });

test.beforeAll(async () => {
  // Production answers a merge into an unknown ISWC with 400 instead of 404 (docs/production.md): the
  // reference server's fault merge-404-as-400 does the same.
  const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  const server = await startReferenceServer({ profile, key: KEY, faults: ['merge-404-as-400'] });
  try {
    raw = await runSuiteInProcess({ baseUrl: server.url, key: KEY, profile, destructive: true, timeoutMs: REQUEST_TIMEOUT_MS });
  } finally {
    await server.close();
  }
  example = loadWaivers(EXAMPLE);
});

test('without waivers the deviation fails the run; the example waives exactly its failures; expired, they gate again', () => {
  const plain = reportWith();
  const failures = plain.executions.filter((e) => e.verdict === 'fail');
  expect(plain.summary.gatingFailures).toBeGreaterThan(0);
  expect(plain.summary.verdictText).toBe('not conformant');
  expect(plain.summary.waivers).toBeUndefined();
  // The one deviation fails this check on the merge, and nothing else: acceptance at a limit is judged
  // against a nominal request, which gets the same 400.
  expect([...new Set(failures.map((e) => `${e.checkId} ${e.operation}`))].sort()).toEqual(['status.not-found mergeIswcMetadata']);

  const waived = reportWith(example);
  expect(waived.summary.gatingFailures).toBe(0);
  expect(waived.summary.verdict).toBe('conformant');
  expect(waived.summary.verdictText).toBe('conformant with 1 waiver');
  expect(waived.executions.filter((e) => e.verdict === 'fail')).toEqual([]);
  expect(keysOf(waived.executions.filter((e) => e.verdict === 'waived'))).toEqual(keysOf(failures));
  expect(waived.summary.byLevel.spec.waived).toBe(failures.length);
  expect(waived.summary.waivers).toMatchObject({ file: path.join('fixtures', 'waivers', 'production-deviations.yaml'), date: LIVE_DAY });
  const entries = waived.summary.waivers?.entries ?? [];
  expect(entries.map((e) => [e.check, e.status])).toEqual([['status.not-found', 'used']]);
  expect(entries.reduce((n, e) => n + e.count, 0)).toBe(failures.length);
  const notFound = waived.executions.find((e) => e.verdict === 'waived' && e.checkId === 'status.not-found');
  expect(notFound?.waiver).toEqual({ reason: example.waivers[0].reason, until: '2027-06-30', index: 0 });

  // The last day is still covered; the day after, nothing is waived.
  expect(reportWith(example, '2027-06-30').summary.gatingFailures).toBe(0);
  const expired = reportWith(example, '2027-07-01');
  expect(expired.summary.gatingFailures).toBe(plain.summary.gatingFailures);
  expect(expired.summary.verdictText).toBe('not conformant');
  expect(expired.summary.waivers?.entries.map((e) => [e.status, e.count])).toEqual([['expired', 0]]);

  // The same file with an until in the past, judged today.
  const past = parseWaivers(EXAMPLE, readFileSync(EXAMPLE, 'utf8').replaceAll('until: 2027-06-30', 'until: 2026-01-31'));
  const today = new Date().toISOString().slice(0, 10);
  expect(reportWith(past, today).summary.waivers?.entries.every((e) => e.status === 'expired')).toBe(true);
  expect(reportWith(past, today).summary.gatingFailures).toBe(plain.summary.gatingFailures);
});

test('a live waiver that matched nothing is unused; the report stays valid against its schema', () => {
  const extra = parseWaivers(EXAMPLE, `${readFileSync(EXAMPLE, 'utf8')}\n- check: text.bad-request\n  statuses: [400]\n  reason: fixed since\n  until: 2027-01-01\n- check: outcome.delete\n  statuses: [400]\n  reason: long gone\n  until: 2025-01-01\n`);
  const report = reportWith(extra);
  expect(report.summary.waivers?.entries.map((e) => [e.index, e.status, e.count > 0])).toEqual([
    [0, 'used', true],
    [1, 'unused', false],
    [2, 'expired', false],
  ]);
  expect(reportViolations(JSON.parse(JSON.stringify(report)))).toEqual([]);
  // A waived execution must carry its waiver, and only a waived one.
  const copy = JSON.parse(JSON.stringify(report)) as { executions: Array<Record<string, unknown>>; summary: { waivers: { entries: Array<Record<string, unknown>> } } };
  const waived = copy.executions.find((e) => e.verdict === 'waived');
  if (!waived) throw new Error('fixture: nothing waived');
  delete waived.waiver;
  expect(reportViolations(copy).join('\n')).toContain('waiver');
  const bad = JSON.parse(JSON.stringify(report)) as typeof copy;
  bad.summary.waivers.entries[0].status = 'forgotten';
  expect(reportViolations(bad).length).toBeGreaterThan(0);
});

test('inProcessReport applies waivers as the reporter does', async () => {
  const report = await inProcessReport({ faults: ['merge-404-as-400'], waivers: example, today: LIVE_DAY, filter: (p) => p.def.id === 'merge.unknown-preferred' });
  // Two steps (ISWCs, agency works only) in JSON and XML: each 400 of the deviation is waived.
  expect(report.executions.filter((e) => e.checkId === 'status.not-found').map((e) => e.verdict)).toEqual(['waived', 'waived', 'waived', 'waived']);
  expect(report.summary.gatingFailures).toBe(0);
  expect(report.summary.waivers?.entries.map((e) => e.status)).toEqual(['used']);
});

test('JUnit: a waived execution is a skipped testcase "waived: <reason> (until …)", never a failure', () => {
  const report = reportWith(example);
  const xml = renderJunit(report);
  expect(XMLValidator.validate(xml)).toBe(true);
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(xml) as {
    testsuites: { failures: string; skipped: string; testsuite: Array<{ name: string; properties: { property: Array<{ name: string; value: string }> }; testcase: Array<{ name: string; failure?: unknown; skipped?: { message: string } }> }> };
  };
  expect(parsed.testsuites.failures).toBe('0');
  const cases = parsed.testsuites.testsuite.flatMap((s) => s.testcase);
  const waived = report.executions.filter((e) => e.verdict === 'waived');
  const skippedAsWaived = cases.filter((c) => c.skipped?.message.startsWith('waived: '));
  expect(skippedAsWaived).toHaveLength(waived.length);
  expect(Number(parsed.testsuites.skipped)).toBe(report.executions.filter((e) => e.verdict === 'skip' || e.verdict === 'waived').length);
  const first = waived.find((e) => e.checkId === 'status.not-found');
  const tc = cases.find((c) => c.name === `${first?.checkId} · ${first?.caseId} · ${first?.step}`);
  expect(tc?.skipped?.message).toBe(`waived: ${example.waivers[0].reason} (until 2027-06-30)`);
  expect(tc?.failure).toBeUndefined();
  const props = new Map(parsed.testsuites.testsuite[0].properties.property.map((p) => [p.name, p.value]));
  expect(props.get('verdict')).toBe('conformant with 1 waiver');
  expect(props.get('waiver.0')).toMatch(/^used ×\d+: status\.not-found on mergeIswcMetadata in case merge\.unknown-preferred or scenario\.merge\.unknown-preferred-iswc answering 400: Production answers/);
});

test('HTML: waived cells in their own colour, labelled "waived" with the reason; the waivers with their status', () => {
  const extra = parseWaivers(EXAMPLE, `${readFileSync(EXAMPLE, 'utf8')}\n- check: text.bad-request\n  statuses: [400]\n  reason: fixed <since> 2026\n  until: 2027-01-01\n`);
  const html = renderHtml(reportWith(extra));
  const colours = Object.values(VERDICT_COLOUR);
  expect(new Set(colours).size).toBe(colours.length);
  expect(html).toContain(`.waived{background:${VERDICT_COLOUR.waived}}`);
  expect(html).toContain('<span id="verdict" class="badge waived" data-verdict="conformant">conformant with 1 waiver</span>');
  expect(html).toMatch(/<td class="cell v-waived" data-verdict="waived" data-format="json"><a href="#w\d+">\d+ waived/);
  expect(html).toMatch(/<tr class="check item" data-op="mergeIswcMetadata" data-check="status\.not-found"/);
  // Waived failures are grouped like failures (check × operation × format), each group with its count.
  const groups = [...html.matchAll(/<details class="group item waived-group" id="w\d+" data-check="[^"]+" data-count="(\d+)"/g)];
  expect(groups.length).toBeGreaterThan(0);
  expect(groups.reduce((n, g) => n + Number(g[1]), 0)).toBe(reportWith(extra).executions.filter((e) => e.verdict === 'waived').length);
  expect(html).toContain('<span class="label-waived">waived</span>');
  expect(html).toContain('waived: Production answers a merge into an ISWC that does not exist with 400');
  expect(html).toContain('<h2 id="failures-title">Failures (0 in 0 groups)</h2>');
  expect(html).toMatch(/<tr class="waiver-entry status-used" data-index="0">/);
  expect(html).toMatch(/<tr class="waiver-entry status-unused" data-index="1">.*fixed &lt;since&gt; 2026.*unused: its check ran on the operation and cases it names, and nothing matched/);
});

test('certificate: "conformant with 1 waiver", sections with only waived failures say so, the digest still verifies', () => {
  const report = reportWith(example);
  const cert = buildCertificate({ report });
  expect(cert.verdict).toBe('conformant');
  expect(cert.verdictText).toBe('conformant with 1 waiver');
  expect(cert.failures).toEqual([]);
  expect(cert.waived).toHaveLength(report.executions.filter((e) => e.verdict === 'waived').length);
  expect(cert.waivers?.entries.map((e) => e.status)).toEqual(['used']);
  const s42 = cert.sections.find((s) => s.section === '4.2');
  expect(s42?.verdict).toBe('conformant with waivers');
  expect(s42?.reason).toMatch(/^only waived failures: /);
  expect(s42?.reason).toMatch(/status\.not-found ×\d+: Production answers .* \(until 2027-06-30\)/);
  expect(verifyCertificate(JSON.parse(JSON.stringify(cert))).ok).toBe(true);
  const html = renderCertificateHtml(cert);
  expect(html).toContain('>conformant with 1 waiver</span>');
  expect(html).toContain('Waived failures (');
  expect(html).toContain('conformant with waivers');

  // Without the waivers, or with them expired, the same run is not conformant.
  expect(buildCertificate({ report: reportWith() }).verdictText).toBe('not conformant');
  expect(buildCertificate({ report: reportWith(example, '2027-07-01') }).verdict).toBe('not conformant');

  // A waived result turned into a pass, or a section claiming plain conformance, is detected.
  const flipped: Certificate = { ...cert, results: cert.results.map((r) => (r[4] === 'waived' ? ([r[0], r[1], r[2], r[3], 'pass'] as typeof r) : r)) };
  const check = verifyCertificate(JSON.parse(JSON.stringify(flipped)));
  expect(check.ok).toBe(false);
  expect(check.problems.join('\n')).toContain('waived');
  const sectionEdited = { ...cert, sections: cert.sections.map((s) => (s.section === '4.2' ? { ...s, verdict: 'conformant' as const } : s)) };
  expect(verifyCertificate(JSON.parse(JSON.stringify(sectionEdited))).problems.join('\n')).toContain('section 4.2 is "conformant"');
});

test('certify: a report whose only failures are waived certifies (exit 0) and says so', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-cert-waived-'));
  try {
    const reportFile = path.join(dir, 'conformance.json');
    writeFileSync(reportFile, JSON.stringify(reportWith(example)));
    const issued = runCli(['certify', '--target', 'fixtures/targets/embedded.json', '--report', reportFile, '--out', dir]);
    expect(issued.code, issued.out).toBe(0);
    const out = issued.stdout;
    expect(out).toContain('certificate: conformant with 1 waiver');
    const cert = JSON.parse(readFileSync(path.join(dir, 'certificate.json'), 'utf8')) as Certificate;
    expect(verifyCertificate(cert).ok).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('diff: a waiver that expires makes its failures newly failing; a waived check that passes is newly passing', () => {
  const live = reportWith(example);
  const expired = reportWith(example, '2027-07-01');
  const d = diffReports(live, expired);
  expect(d.newlyFailing).toHaveLength(live.executions.filter((e) => e.verdict === 'waived').length);
  expect(d.specRegression).toBe(true);
  expect(renderDiffMarkdown(d)).toContain('waived: Production answers a merge');

  const fixed = JSON.parse(JSON.stringify(live)) as ConformanceReport;
  for (const e of fixed.executions) {
    if (e.verdict !== 'waived') continue;
    e.verdict = 'pass';
    delete e.waiver;
  }
  const back = diffReports(live, fixed);
  expect(back.newlyPassing).toHaveLength(live.executions.filter((e) => e.verdict === 'waived').length);
  expect(back.specRegression).toBe(false);
});
