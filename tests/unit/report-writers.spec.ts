import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { CheckExecution } from '../../lib/run/execution.ts';
import { renderHtml } from '../../lib/report/html.ts';
import { inProcessReport } from '../support/in-process.ts';
import { renderJunit } from '../../lib/report/junit.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { reportViolations } from '../../lib/report/validate.ts';
import { writeConformanceReports } from '../../lib/report/write.ts';
import { createRedactor } from '../../lib/redact.ts';

const HOSTILE = '<script>alert("x")</script>]]>&amp;\u0000\u0007\ud800 | `tick`';
const KEY = 'planted-Key/+=with&odd?chars-9f8e7d6c5b4a';

/** A faulty server's report with one failure's received text and response body made hostile. */
let report: ConformanceReport;

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

test('JUnit: one testcase per check execution, failures with section, expected, received and curl', () => {
  const xml = renderJunit(report);
  expect(XMLValidator.validate(xml)).toBe(true);
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml) as {
    testsuites: { tests: string; failures: string; testsuite: Array<{ name: string; testcase: Array<Record<string, unknown>> }> };
  };
  const cases = parsed.testsuites.testsuite.flatMap((s) => s.testcase);
  expect(cases).toHaveLength(report.executions.length);
  const failures = report.executions.filter((e) => e.verdict === 'fail');
  expect(failures.length).toBeGreaterThan(0);
  const failing = cases.filter((c) => c.failure);
  expect(failing).toHaveLength(failures.length);
  expect(Number(parsed.testsuites.failures)).toBe(failures.length);
  expect(cases.filter((c) => c.skipped)).toHaveLength(report.executions.filter((e) => e.verdict === 'skip').length);
  expect(cases.filter((c) => c['system-out'])).toHaveLength(report.executions.filter((e) => e.verdict === 'observed').length);
  const first = failures[0];
  const suite = parsed.testsuites.testsuite.find((s) => s.name === `${first.operation ?? 'other'}.${first.format}`);
  const tc = suite?.testcase.find((c) => c.name === `${first.checkId} · ${first.caseId} · ${first.step}`);
  const failure = tc?.failure as { message: string; '#text': string } | undefined;
  expect(failure?.message).toContain(`section ${first.sections.map((s) => (/^\d/.test(s) ? `§${s}` : s)).join(', ')}`);
  expect(failure?.message).toContain('expected:');
  expect(failure?.['#text']).toContain('Reproduce with: curl ');
  // Hostile text survives as text: XML-invalid characters become visible escapes.
  expect(xml).toContain('&lt;script&gt;');
  expect(xml).toContain('\\u0000');
  expect(xml).not.toContain('\u0000');
});

test('HTML: self-contained, every failure expandable, hostile bodies rendered as text', () => {
  const html = renderHtml(report);
  expect(html).not.toMatch(/<script>alert/);
  expect(html).not.toMatch(/<img src=x/);
  expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  // Only one script element: ours, inline.
  expect(html.match(/<script/g)).toHaveLength(1);
  expect(html).not.toMatch(/<(link|img|iframe)\b|\bsrc=["']?https?:|@import|url\(/i);
  expect(html).toContain("default-src 'none'");
  const failures = report.executions.filter((e) => e.verdict === 'fail');
  expect(html.match(/<details class="failure"/g)).toHaveLength(failures.length);
  expect(html).toContain('id="matrix"');
  expect(html).toContain('<svg id="chart"');
  expect(html).toContain('consumes disposable profile entries');
});

test('the writers redact: a planted key reaches none of the three files', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-writers-'));
  try {
    const written = writeConformanceReports(report, dir, createRedactor([KEY]));
    expect(written.violations).toEqual([]);
    for (const file of [written.json, written.junit, written.html]) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toContain(KEY);
      expect(text, file).not.toContain(encodeURIComponent(KEY));
      expect(text, file).not.toContain(Buffer.from(KEY).toString('base64').replace(/=+$/, ''));
      expect(text, file).toContain('$ISWC_SUBSCRIPTION_KEY');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
