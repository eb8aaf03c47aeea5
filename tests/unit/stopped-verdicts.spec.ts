import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { fromRoot, repoRoot } from '../../lib/foundation/paths.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { childEnv } from '../support/run-playwright.ts';

/**
 * A run stopped (a signal, its time limit) before Playwright ended a test its engine had already run and
 * judged: the reporter writes what that test's requests showed, never "not sent", and never twice for a
 * test that did end. Deterministic, without a real run or a signal: the reporter of the run is given a
 * suite of two conformance tests, the first ended by Playwright with its executions, the second only in
 * the engine's verdicts (lib/engine/progress.ts engineVerdicts), and an interrupted end. signals.spec.ts
 * shows the same on a real run stopped mid-way (second tier).
 *
 * In a process of its own: the reporter reads the run's settings (its report directory) once per process.
 */
function reportOfStoppedRun(dir: string): { report: ConformanceReport; out: string } {
  const execution = (caseId: string) => ({ checkId: 'status.success', level: 'spec', sections: ['4.1'], operation: 'notifyAgentRun', format: 'json', caseId, step: 'start', verdict: 'pass' });
  const attachment = (caseId: string) => JSON.stringify({ executions: [execution(caseId)], stats: { requests: 2, retries: 0, waitedMs: 0 } });
  const script = `
    const { default: Reporter } = await import(${JSON.stringify(fromRoot('reporters/conformance-reporter.ts'))});
    const { VERDICTS_SLOT } = await import(${JSON.stringify(fromRoot('lib/engine/progress.ts'))});
    const test = (title) => ({ title, parent: { project: () => ({ name: 'json' }) }, outcome: () => 'expected', annotations: [] });
    const [ended, aheadOfPlaywright] = [test('ended by Playwright'), test('judged by the engine only')];
    const reporter = new Reporter();
    reporter.onBegin({}, { allTests: () => [ended, aheadOfPlaywright] });
    reporter.onTestEnd(ended, { status: 'passed', errors: [], annotations: [], attachments: [{ name: 'iswc-check-executions', contentType: 'application/json', body: Buffer.from(${JSON.stringify(attachment('case.ended'))}) }] });
    // The engine ran both tests ahead: the verdict of the one Playwright ended is in its attachment already.
    globalThis[VERDICTS_SLOT] = () => [
      { project: 'json', title: 'ended by Playwright', attachmentBody: ${JSON.stringify(attachment('case.ended'))} },
      { project: 'json', title: 'judged by the engine only', attachmentBody: ${JSON.stringify(attachment('case.ahead'))} },
    ];
    await reporter.onEnd({ status: 'interrupted', startTime: new Date(), duration: 1000 });
  `;
  const env = childEnv({ ISWC_REPORT_DIR: dir, ISWC_BASE_URL: undefined, ISWC_TARGET: undefined, ISWC_RUN_CONTEXT: undefined, ISWC_WAIVERS: undefined });
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, env, encoding: 'utf8', timeout: 60_000 });
  expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
  expect(run.stderr, 'the reporter wrote its reports').not.toContain('could not write');
  return { report: JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as ConformanceReport, out: run.stdout };
}

test('a run stopped before Playwright ended a test the engine had judged: the report keeps that verdict, once, and the run reads interrupted', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-stopped-verdicts-'));
  try {
    const { report, out } = reportOfStoppedRun(dir);
    expect(report.executions.map((e) => `${e.caseId} ${e.checkId}: ${e.verdict}`).sort()).toEqual(['case.ahead status.success: pass', 'case.ended status.success: pass']);
    expect(report.summary.outcome?.status).toBe('interrupted');
    expect(out).toContain('INTERRUPTED');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
