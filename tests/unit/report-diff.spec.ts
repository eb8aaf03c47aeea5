import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { executionKey } from '../../lib/report/build.ts';
import { diffReports, renderDiffHtml, renderDiffMarkdown } from '../../lib/report/diff.ts';
import { inProcessReport } from '../support/in-process.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { repoRoot } from '../../lib/paths.ts';

const TSX = path.join(repoRoot, 'node_modules', '.bin', 'tsx');

let base: ConformanceReport;
let head: ConformanceReport;
let again: ConformanceReport;

/** The observed execution whose facts the "head build" changes: an error answer's content type and body. */
function changeObserved(report: ConformanceReport): string {
  const e = report.executions.find((x) => x.verdict === 'observed' && x.checkId === 'observed.error-body' && x.observation);
  if (!e?.observation) throw new Error('fixture: no observed error body');
  e.observation = { ...e.observation, contentType: 'application/problem+json', body: 'json {title: string, status: number}' };
  return e.caseId;
}

test.beforeAll(async () => {
  [base, head, again] = await Promise.all([inProcessReport(), inProcessReport({ faults: ['run-bad-request-text'] }), inProcessReport()]);
});

test('two runs of the same server differ in nothing', () => {
  const d = diffReports(base, again);
  expect([d.newlyFailing, d.newlyPassing, d.newlySkipped, d.observedChanged].map((l) => l.length)).toEqual([0, 0, 0, 0]);
  expect(d.specRegression).toBe(false);
});

test('newly failing, newly passing, newly skipped and changed observations, keyed by case, format, step and check', () => {
  const headCopy = JSON.parse(JSON.stringify(head)) as ConformanceReport;
  const changedCase = changeObserved(headCopy);
  // The faulty build also changes the observed error body of its 400 answers ("Invalid request").
  // (Property cases stop at their first counterexample, so some of their steps exist in one run only: not compared.)
  const baseKeys = new Set(base.executions.map(executionKey));
  const textChanges = head.executions.filter((e) => baseKeys.has(executionKey(e)) && e.verdict === 'observed' && e.checkId === 'observed.error-body' && e.operation === 'notifyAgentRun' && /Invalid request/.test(e.received ?? ''));
  const skipped = headCopy.executions.find((e) => e.verdict === 'pass' && e.checkId === 'outcome.merge');
  if (!skipped) throw new Error('fixture: no outcome.merge');
  skipped.verdict = 'skip';
  skipped.skipReason = 'non-destructive';
  const d = diffReports(base, headCopy);
  const failing = head.executions.filter((e) => e.verdict === 'fail');
  expect(d.newlyFailing).toHaveLength(failing.length);
  expect(d.newlyFailing.every((e) => e.checkId === 'text.bad-request')).toBe(true);
  expect(d.specRegression).toBe(true);
  expect(d.newlySkipped.map((e) => e.checkId)).toEqual(['outcome.merge']);
  expect(textChanges.length).toBeGreaterThan(0);
  const changedKeys = new Set(d.observedChanged.map((e) => e.key));
  expect(textChanges.filter((e) => !changedKeys.has(executionKey(e))).map((e) => `${e.caseId} ${e.received}`)).toEqual([]);
  expect(d.observedChanged.some((e) => e.caseId === changedCase)).toBe(true);

  // Against the same clean server, the one planted change is the only thing listed.
  const cleanCopy = JSON.parse(JSON.stringify(again)) as ConformanceReport;
  const plantedCase = changeObserved(cleanCopy);
  const only = diffReports(base, cleanCopy);
  expect([only.newlyFailing, only.newlyPassing, only.newlySkipped].map((l) => l.length)).toEqual([0, 0, 0]);
  expect(only.observedChanged).toHaveLength(1);
  expect(only.observedChanged[0]?.caseId).toBe(plantedCase);
  expect(only.observedChanged[0]?.changes.map((c) => c.fact).sort()).toEqual(['body', 'contentType']);

  const back = diffReports(headCopy, base);
  expect(back.newlyPassing.length).toBe(failing.filter((e) => baseKeys.has(executionKey(e))).length + 1);
  expect(back.specRegression).toBe(false);

  const markdown = renderDiffMarkdown(d);
  expect(markdown).toContain('## Newly failing');
  expect(markdown).toContain('application/problem+json');
  const html = renderDiffHtml(d);
  expect(html).toContain('<h3>Base</h3>');
  expect(html).toContain('<h3>Head</h3>');
});

test('report:diff writes diff.md and diff.html and exits 1 on a spec regression; report:baseline feeds it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-diff-'));
  try {
    const baseFile = path.join(dir, 'base.json');
    const headFile = path.join(dir, 'head.json');
    writeFileSync(baseFile, JSON.stringify(base));
    writeFileSync(headFile, JSON.stringify(head));
    let code = 0;
    let stdout = '';
    try {
      stdout = execFileSync(TSX, ['scripts/report-diff.ts', baseFile, headFile, '--out', dir], { cwd: repoRoot, encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      const e = err as { status: number; stdout: string };
      code = e.status;
      stdout = e.stdout;
    }
    expect(code).toBe(1);
    expect(stdout).toContain('# ISWC conformance: regression diff');
    expect(readFileSync(path.join(dir, 'diff.md'), 'utf8')).toBe(stdout);
    expect(existsSync(path.join(dir, 'diff.html'))).toBe(true);

    // Baseline, then a diff against it with one argument: the same run, no regression.
    const baseline = path.join(dir, 'baselines', 'conformance.json');
    execFileSync(TSX, ['scripts/report-baseline.ts', baseFile, '--out', baseline], { cwd: repoRoot, stdio: 'pipe' });
    expect(readFileSync(baseline, 'utf8')).toBe(readFileSync(baseFile, 'utf8'));
    const same = execFileSync(TSX, ['scripts/report-diff.ts', baseline, baseFile, '--out', dir], { cwd: repoRoot, encoding: 'utf8', stdio: 'pipe' });
    expect(same).toContain('no `spec` check newly fails');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
