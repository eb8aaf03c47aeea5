/**
 * The run's summary, level by level (reporters/conformance-reporter.ts levelLines): counts of check
 * executions whose skipped ones add up to the figure the summary's last line gives (issue 40: "797 skipped
 * check executions and 998 not run in one summary").
 */
import { expect, _baseTest as test } from '@playwright/test';
import { levelLines } from '../../reporters/conformance-reporter.ts';
import { emptyTally } from '../../lib/report/model.ts';

const byLevel = {
  spec: { ...emptyTally(), pass: 351, fail: 13, skip: 739 },
  http: { ...emptyTally(), pass: 626, skip: 4 },
  observed: { ...emptyTally(), observed: 177, skip: 196 },
};

test('every level says its skipped check executions, and they add up to the run\'s', () => {
  const lines = levelLines(byLevel, false);
  expect(lines).toEqual([
    '  spec      351 passed, 13 failed, 739 skipped check executions',
    '  http      626 passed, 0 failed, 4 skipped check executions',
    '  observed  177 recorded (never a failure), 196 skipped check executions',
  ]);
  const said = lines.reduce((n, line) => n + Number(/(\d+) skipped check executions/.exec(line)?.[1] ?? 0), 0);
  expect(said).toBe(739 + 4 + 196);
});

test('an observed level with nothing skipped says only what it recorded; an http failure says it does not gate unless strict', () => {
  const none = { ...byLevel, http: { ...byLevel.http, fail: 2 }, observed: { ...emptyTally(), observed: 5 } };
  expect(levelLines(none, false)).toEqual([
    '  spec      351 passed, 13 failed, 739 skipped check executions',
    '  http      626 passed, 2 failed, 4 skipped check executions (not gating: set ISWC_STRICT=1)',
    '  observed  5 recorded (never a failure)',
  ]);
  expect(levelLines(none, true)[1]).toBe('  http      626 passed, 2 failed, 4 skipped check executions');
});
