import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { CheckExecution } from '../../lib/run/execution.ts';
import { pageExamples, renderHtml } from '../../lib/report/html.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';
import { renderJunit } from '../../lib/report/junit.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { executionViolations, reportViolations } from '../../lib/report/validate.ts';
import { writeConformanceReports } from '../../lib/report/write.ts';
import { DEEPER_THAN_RECORDED, createRedactor } from '../../lib/foundation/redact.ts';

const HOSTILE = '<script>alert("x")</script>]]>&amp;\u0000\u0007\ud800 | `tick`';
const KEY = 'planted-Key/+=with&odd?chars-9f8e7d6c5b4a';

/** A faulty server's report with one failure's received text and response body made hostile. */
let report: ConformanceReport;

// In order, in one worker: the tests share what test.beforeAll makes (whole runs), which every worker
// running one of them would otherwise make again.
test.describe.configure({ mode: 'default' });

test.beforeAll(async () => {
  report = await inProcessReport({
    faults: ['run-bad-request-text', 'stack-trace-in-error'],
    mutate: (executions: CheckExecution[]) => {
      const fail = executions.find((e) => e.verdict === 'fail' && e.exchange?.response);
      if (!fail?.exchange?.response) throw new Error('fixture: no failure with a response');
      fail.received = `${HOSTILE} ${fail.received ?? ''}`;
      fail.exchange.response.body = `${HOSTILE}<img src=x onerror=alert(1)> key ${KEY}`;
      return executions;
    },
  });
  // One skipped execution, as a non-destructive run against a remote target gives.
  const passing = report.executions.find((e) => e.verdict === 'pass');
  if (passing) report.executions.push({ ...passing, step: 'skipped step', verdict: 'skip', skipReason: 'consumes disposable profile entries; set ISWC_DESTRUCTIVE=1' });
});

test('a real report matches schemas/report.schema.json; broken ones do not', () => {
  expect(reportViolations(JSON.parse(JSON.stringify(report)))).toEqual([]);
  const noSeed = JSON.parse(JSON.stringify(report)) as { meta: Record<string, unknown> };
  delete noSeed.meta.seed;
  expect(reportViolations(noSeed).join('\n')).toContain('seed');
  const badVerdict = JSON.parse(JSON.stringify(report)) as { executions: Array<Record<string, unknown>> };
  badVerdict.executions[0].verdict = 'maybe';
  expect(reportViolations(badVerdict).length).toBeGreaterThan(0);
  const credentials = JSON.parse(JSON.stringify(report)) as { meta: Record<string, unknown> };
  credentials.meta.baseUrl = 'https://user:pw@api.example.org/v1';
  expect(reportViolations(credentials).length).toBeGreaterThan(0);
  const skipWithoutReason = JSON.parse(JSON.stringify(report)) as { executions: Array<Record<string, unknown>> };
  const skip = skipWithoutReason.executions.find((e) => e.verdict === 'skip');
  if (skip) delete skip.skipReason;
  expect(reportViolations(skipWithoutReason).length).toBeGreaterThan(0);
});

test('one execution is judged by the same schema: a decoded answer keeps how it was decoded, an unknown field is refused', () => {
  const judged = report.executions.find((e) => e.exchange?.response);
  if (!judged?.exchange?.response) throw new Error('fixture: no execution with a response');
  const decoded = JSON.parse(JSON.stringify(judged)) as CheckExecution;
  if (decoded.exchange?.response) decoded.exchange.response.encoding = 'utf-16le (byte order mark)';
  expect(executionViolations(decoded)).toEqual([]);
  const unknown = JSON.parse(JSON.stringify(judged)) as { exchange: { response: Record<string, unknown> } };
  unknown.exchange.response.colour = 'blue';
  expect(executionViolations(unknown)).toEqual(['/exchange/response: must NOT have additional properties']);
});

test('JUnit: one testcase per judged check execution and one per spec check not exercised, failures with section, expected, received and curl', () => {
  const xml = renderJunit(report);
  expect(XMLValidator.validate(xml)).toBe(true);
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml) as {
    testsuites: { tests: string; failures: string; testsuite: Array<{ name: string; testcase: Array<Record<string, unknown>> }> };
  };
  const cases = parsed.testsuites.testsuite.flatMap((s) => s.testcase);
  // Skipped executions are not listed one by one: one skipped testcase per spec check not exercised instead.
  expect(cases).toHaveLength(report.executions.filter((e) => e.verdict !== 'skip').length + report.summary.coverage.notExercised.length);
  const failures = report.executions.filter((e) => e.verdict === 'fail');
  expect(failures.length).toBeGreaterThan(0);
  const failing = cases.filter((c) => c.failure);
  expect(failing).toHaveLength(failures.length);
  expect(Number(parsed.testsuites.failures)).toBe(failures.length);
  expect(cases.filter((c) => c.skipped)).toHaveLength(report.executions.filter((e) => e.verdict === 'waived').length + report.summary.coverage.notExercised.length);
  expect(cases.filter((c) => c['system-out'])).toHaveLength(report.executions.filter((e) => e.verdict === 'observed').length);
  const first = failures[0];
  const suite = parsed.testsuites.testsuite.find((s) => s.name === `${first.operation ?? 'other'}.${first.format}`);
  const tc = suite?.testcase.find((c) => c.name === `${first.checkId} · ${first.caseId} · ${first.step}`);
  const failure = tc?.failure as { message: string; '#text': string } | undefined;
  expect(failure?.message).toContain(`[${first.level}, ${first.sections.map((s) => (/^\d/.test(s) ? `§${s}` : s)).join(', ')}]`);
  expect(failure?.message).toContain('expected:');
  expect(failure?.['#text']).toContain('Reproduce with: curl ');
  // Hostile text survives as text: XML-invalid characters become visible escapes.
  expect(xml).toContain('&lt;script&gt;');
  expect(xml).toContain('\\u0000');
  expect(xml).not.toContain('\u0000');
});

test('HTML: self-contained, failures grouped by check × operation × format, every one of them in the page, hostile bodies rendered as text', () => {
  // The hostile failure first: it is then the first example of its group, rendered in the page itself.
  const hostile = report.executions.find((e) => e.received?.includes('<script>alert'));
  if (!hostile) throw new Error('fixture: no hostile failure');
  const html = renderHtml({ ...report, executions: [hostile, ...report.executions.filter((e) => e !== hostile)] });
  expect(html).not.toMatch(/<script>alert/);
  expect(html).not.toMatch(/<img src=x/);
  expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  // One script runs, ours, inline; the other holds the examples as data (a type no browser runs).
  expect(html.match(/<script>/g)).toHaveLength(1);
  expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script id="iswc-examples" type="application/gzip+base64">', '<script>']);
  expect(html).not.toMatch(/<(link|img|iframe)\b|\bsrc=["']?https?:|@import|url\(/i);
  expect(html).toContain("default-src 'none'");
  expect(html).toContain('id="matrix"');
  expect(html).toContain('<svg id="chart"');
  expect(html).toContain('consumes disposable profile entries');

  // One group per check × operation × format, with its count; the counts add up to the failures.
  const failures = report.executions.filter((e) => e.verdict === 'fail');
  const keys = new Set(failures.map((e) => `${e.checkId} ${e.operation ?? 'other'} ${e.format}`));
  const groups = [...html.matchAll(/<details class="group item failure-group" id="(f\d+)" data-check="([^"]+)" data-count="(\d+)" data-level="[^"]*" data-op="([^"]*)" data-format="([^"]*)"/g)];
  expect(groups).toHaveLength(keys.size);
  expect(new Set(groups.map((g) => `${g[2]} ${g[4]} ${g[5]}`))).toEqual(keys);
  expect(groups.reduce((n, g) => n + Number(g[3]), 0)).toBe(failures.length);
  // Each group opens on its first example, in full; the page carries every failure of the group.
  expect(html.match(/<details class="example first-example" open>/g)).toHaveLength(keys.size);
  const examples = pageExamples(html);
  const listed = groups.flatMap((g) => (examples[g[1] ?? ''] ?? []).map((x) => `${g[2]} ${String(x.c)} ${String(x.s)}`));
  expect(listed.sort()).toEqual(failures.map((e) => `${e.checkId} ${e.caseId} ${e.step}`).sort());
  // Hostile text reaches the page's data as data: the script writes it with textContent.
  expect(JSON.stringify(examples)).toContain('<img src=x onerror=alert(1)>');
  // Observed behaviour: merged by point (check × operation), each distinct answer with how often it came.
  const observed = report.executions.filter((e) => e.verdict === 'observed');
  const points = new Set(observed.map((e) => `${e.checkId} ${e.operation ?? 'other'}`));
  const observedGroups = [...html.matchAll(/<details class="group item observed-group" id="o\d+" data-check="[^"]+" data-count="(\d+)"/g)];
  expect(observedGroups).toHaveLength(points.size);
  expect(observedGroups.reduce((n, g) => n + Number(g[1]), 0)).toBe(observed.length);
  expect(html.match(/<tr class="fact"/g)?.length ?? 0).toBeLessThan(observed.length);
});

test('the writers redact: a planted key reaches none of the three files', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-writers-'));
  try {
    const written = writeConformanceReports(report, dir, createRedactor([KEY]));
    expect(written.violations).toEqual([]);
    for (const file of [written.json, written.junit, written.html]) {
      const raw = readFileSync(file, 'utf8');
      // The page's examples are compressed: read them unpacked too.
      const text = file === written.html ? `${raw}${JSON.stringify(pageExamples(raw))}` : raw;
      expect(text, file).not.toContain(KEY);
      expect(text, file).not.toContain(encodeURIComponent(KEY));
      expect(text, file).not.toContain(Buffer.from(KEY).toString('base64').replace(/=+$/, ''));
      expect(text, file).toContain('$ISWC_SUBSCRIPTION_KEY');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the writers survive values nested a million levels deep: JSON, JUnit and HTML are written, the deep part left out', () => {
  let deep: unknown = KEY;
  for (let i = 0; i < 1_000_000; i += 1) deep = [deep];
  const found = report.executions.find((e) => e.verdict === 'fail' && e.exchange?.response);
  if (!found?.exchange?.response) throw new Error('fixture: no failure with a response');
  // An observation carries no failure id (schemas/report.schema.json).
  const { failureId: _id, ...failure } = found;
  if (!failure.exchange?.response) throw new Error('fixture: no failure with a response');
  const body = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
  const withDeep: ConformanceReport = {
    ...report,
    executions: [
      ...report.executions,
      { ...failure, step: 'deep observation', level: 'observed', verdict: 'observed', observation: { body: 'json', value: deep } },
      { ...found, step: 'deep body', exchange: { ...failure.exchange, response: { ...failure.exchange.response, body, bodyBytes: body.length } } },
    ],
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-writers-deep-'));
  try {
    const written = writeConformanceReports(withDeep, dir, createRedactor([KEY]));
    expect(written.violations).toEqual([]);
    const json = readFileSync(written.json, 'utf8');
    expect(json).toContain(DEEPER_THAN_RECORDED);
    expect(json).not.toContain(KEY);
    expect(XMLValidator.validate(readFileSync(written.junit, 'utf8'))).toBe(true);
    expect(JSON.stringify(pageExamples(readFileSync(written.html, 'utf8')))).toContain('deep body');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
