import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { profileDigest } from '../../lib/report/binding.ts';
import { describeFailure } from '../../lib/report/failure-text.ts';
import { pageExamples, renderHtml } from '../../lib/report/html.ts';
import { executionKey, failureId, replayCommand } from '../../lib/report/identity.ts';
import { renderJunit } from '../../lib/report/junit.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { reportViolations } from '../../lib/report/validate.ts';
import { sharedReport } from '../support/shared-report.ts';

let report: ConformanceReport;

// In order, in one worker: the tests share what test.beforeAll makes (whole runs), which every worker
// running one of them would otherwise make again.
test.describe.configure({ mode: 'default' });

test.beforeAll(async () => {
  // Whole runs, made here or by another file's worker while this one waits: a loaded machine takes minutes.
  test.setTimeout(240_000);
  report = await sharedReport({ faults: ['run-bad-request-text', 'merge-404-as-400'] });
});

test('every failure has a short id from its execution key, unique in the run; nothing else has one', () => {
  const failures = report.executions.filter((e) => e.verdict === 'fail');
  expect(failures.length).toBeGreaterThan(3);
  for (const e of failures) {
    expect(e.failureId).toMatch(/^[0-9a-f]{8}$/);
    expect(e.failureId).toBe(failureId(e));
  }
  expect(new Set(failures.map((e) => e.failureId)).size).toBe(failures.length);
  expect(report.executions.filter((e) => e.verdict !== 'fail' && e.verdict !== 'waived').every((e) => e.failureId === undefined)).toBe(true);
  // The same failure, the same id: it depends on the key only (case, format, step, check).
  const one = failures[0];
  expect(failureId({ caseId: one.caseId, format: one.format, step: one.step, checkId: one.checkId })).toBe(one.failureId);
  expect(failureId({ ...one, step: `${one.step} ` })).not.toBe(one.failureId);
  expect(executionKey(one)).toContain(one.caseId);
  expect(reportViolations(JSON.parse(JSON.stringify(report)))).toEqual([]);
  // The schema keeps ids on failures only.
  const bad = JSON.parse(JSON.stringify(report)) as ConformanceReport;
  const passing = bad.executions.find((e) => e.verdict === 'pass');
  if (!passing) throw new Error('fixture: no passing execution');
  passing.failureId = 'deadbeef';
  expect(reportViolations(bad).length).toBeGreaterThan(0);
});

test('the id and its replay command reach the test failure text, JUnit and the HTML report', () => {
  const failure = report.executions.find((e) => e.verdict === 'fail' && e.level === 'spec');
  if (!failure?.failureId) throw new Error('fixture: no spec failure');
  const command = replayCommand(failure.failureId, { report: 'reports/conformance.json' });
  expect(command).toBe(`npx iswc-conformance replay ${failure.failureId} --report reports/conformance.json`);
  expect(replayCommand('abc', { report: 'my reports/c.json' })).toBe("npx iswc-conformance replay abc --report 'my reports/c.json'");
  // Complete, so that it runs as printed: the run's profile when not the default, and the target the key goes to.
  expect(replayCommand('abc', { report: 'c.json', target: 'my.json', baseUrl: 'https://api.example.com/iswc' })).toBe('npx iswc-conformance replay abc --report c.json --target my.json --base-url https://api.example.com/iswc');
  expect(describeFailure(failure, { report: 'reports/conformance.json' })).toContain(`Replay failure ${failure.failureId}: ${command}`);
  // A report that does not record where it was written (built in-process) points at the file next to it.
  expect(renderJunit(report)).toContain(`Failure ${failure.failureId}: npx iswc-conformance replay ${failure.failureId} --report conformance.json (the conformance.json next to this file)`);
  const html = renderHtml(report);
  expect(html).toMatch(/<td class="failure-id"><code>[0-9a-f]{8}<\/code> · replay: <code class="replay">npx iswc-conformance replay [0-9a-f]{8} --report conformance.json<\/code>/);
  // A run that records it (the reporter does) gives the whole command in every file.
  const recorded = { ...report, meta: { ...report.meta, embedded: false, baseUrl: 'https://staging.example/iswc', replay: { report: 'reports/gate/conformance.json', target: 'fixtures/targets/staging-example.json' } } };
  const whole = `npx iswc-conformance replay ${failure.failureId} --report reports/gate/conformance.json --target fixtures/targets/staging-example.json --base-url https://staging.example/iswc`;
  expect(renderJunit(recorded)).toContain(`Failure ${failure.failureId}: ${whole}</failure>`);
  expect(renderHtml(recorded)).toContain(whole);
  expect(renderHtml(recorded)).toContain('<code id="replay-args" data-args="--report reports/gate/conformance.json --target fixtures/targets/staging-example.json --base-url https://staging.example/iswc">');
  const examples = Object.values(pageExamples(html)).flat() as Array<{ i?: string }>;
  expect(examples.filter((x) => x.i !== undefined).length).toBe(report.executions.filter((e) => e.verdict === 'fail').length);
});

test('the report records what a certificate is bound to: the profile by content, its agency, the waivers', () => {
  const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  expect(report.meta.profileDigest).toBe(profileDigest(profile));
  expect(report.meta.profileDigest).toMatch(/^[0-9a-f]{64}$/);
  expect(report.meta.agency).toBe(profile.agency);
  expect(report.meta.waiversDigest).toBeNull();
  // Content, not layout: the same profile reformatted has the same digest; one changed entry does not.
  expect(profileDigest(JSON.parse(JSON.stringify(profile, null, 4)) as typeof profile)).toBe(report.meta.profileDigest);
  expect(profileDigest({ ...profile, agency: '021' })).not.toBe(report.meta.profileDigest);
});
