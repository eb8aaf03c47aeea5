import { expect, test } from '@playwright/test';
import { diffReports } from '../../lib/report/diff.ts';
import { inProcessReport } from '../../lib/report/in-process.ts';

test.describe.configure({ timeout: 5 * 60_000 });

/**
 * Principle 1: the harness never fails a server for a choice the document leaves open. The reference
 * server can make another choice on every such point (answer format, 401 or 403, error bodies, a
 * malformed preferredIswc, reasonCode, nulls, extra fields, 415 or 400); the suite must stay green
 * against both, in strict mode, and a regression diff of the two runs must list only observed changes.
 */
test('the suite passes a server that makes other choices where the document says "not shown" (strict) @selfcheck', async () => {
  const reference = await inProcessReport({ strict: true });
  const alternative = await inProcessReport({ strict: true, choices: 'alternative' });
  const failures = (r: typeof reference) => r.executions.filter((e) => e.verdict === 'fail').map((e) => `${e.checkId} ${e.caseId} ${e.step}: ${e.received ?? ''}`);
  expect(failures(reference)).toEqual([]);
  expect(failures(alternative)).toEqual([]);

  const diff = diffReports(reference, alternative);
  expect(diff.newlyFailing.map((d) => d.key)).toEqual([]);
  expect(diff.newlyPassing.map((d) => d.key)).toEqual([]);
  expect(diff.newlySkipped.map((d) => d.key)).toEqual([]);
  expect(diff.specRegression).toBe(false);
  const changed = new Set(diff.observedChanged.map((c) => c.checkId));
  for (const id of ['observed.auth-answer', 'observed.error-body', 'observed.iswc-handling', 'observed.reason-code', 'observed.requiredness', 'observed.response-format']) {
    expect(changed, `the diff lists the changed ${id}`).toContain(id);
  }
  expect(diff.observedChanged.every((c) => c.level === 'observed')).toBe(true);
});
