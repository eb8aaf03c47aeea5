import { expect, test } from '@playwright/test';
import type { CheckExecution } from '../../lib/run/execution.ts';
import { applyWaivers, isLive, utcDay } from '../../lib/report/waivers/apply.ts';
import { runDay } from '../../lib/report/waivers/run.ts';
import type { Waiver } from '../../lib/report/waivers/types.ts';

function execution(over: Partial<CheckExecution>): CheckExecution {
  return { checkId: 'status.not-found', level: 'spec', sections: ['4.2'], operation: 'mergeIswcMetadata', format: 'json', caseId: 'merge.unknown-iswc', step: 'merge', verdict: 'fail', expected: '404', received: '400', ...over };
}

function waiver(over: Partial<Waiver>): Waiver {
  return { index: 0, line: 1, check: 'status.not-found', reason: 'known', until: '2026-12-31', ...over };
}

test('matching: the check id must be equal; operation and format only when the waiver gives them', () => {
  const executions = [
    execution({}),
    execution({ format: 'xml' }),
    execution({ operation: 'demergeIswcMetadata' }),
    execution({ checkId: 'limit.accepted' }),
    execution({ operation: null }),
  ];
  const verdicts = (w: Waiver) => applyWaivers(executions, [w], '2026-11-23').executions.map((e) => e.verdict);
  expect(verdicts(waiver({}))).toEqual(['waived', 'waived', 'waived', 'fail', 'waived']);
  expect(verdicts(waiver({ operation: 'mergeIswcMetadata' }))).toEqual(['waived', 'waived', 'fail', 'fail', 'fail']);
  expect(verdicts(waiver({ format: 'xml' }))).toEqual(['fail', 'waived', 'fail', 'fail', 'fail']);
  expect(verdicts(waiver({ operation: 'mergeIswcMetadata', format: 'json' }))).toEqual(['waived', 'fail', 'fail', 'fail', 'fail']);
  expect(verdicts(waiver({ check: 'limit.accepted' }))).toEqual(['fail', 'fail', 'fail', 'waived', 'fail']);
});

test('a waived execution carries the waiver; passes, skips and observations are never touched; the input is not changed', () => {
  const input = [execution({}), execution({ verdict: 'pass' }), execution({ verdict: 'skip', skipReason: 'r' }), execution({ checkId: 'status.not-found', verdict: 'observed', level: 'observed' })];
  const before = JSON.stringify(input);
  const { executions } = applyWaivers(input, [waiver({ index: 3, reason: 'production answers 400', until: '2027-01-31' })], '2026-11-23');
  expect(executions[0]).toMatchObject({ verdict: 'waived', waiver: { reason: 'production answers 400', until: '2027-01-31', index: 3 }, received: '400' });
  expect(executions.slice(1).map((e) => e.verdict)).toEqual(['pass', 'skip', 'observed']);
  expect(JSON.stringify(input)).toBe(before);
  // Applying again (a merge of reports, say) gives the same result.
  expect(applyWaivers(executions, [waiver({ index: 3, reason: 'production answers 400', until: '2027-01-31' })], '2026-11-23').executions).toEqual(executions);
  // ... and with the waiver expired meanwhile, the failure is back, without a waiver.
  const later = applyWaivers(executions, [waiver({ index: 3, until: '2027-01-31' })], '2027-02-01').executions[0];
  expect(later.verdict).toBe('fail');
  expect(later.waiver).toBeUndefined();
});

test('expiry: until = today is live, the day after it is expired (UTC days)', () => {
  expect(isLive({ until: '2026-11-23' }, '2026-11-23')).toBe(true);
  expect(isLive({ until: '2026-11-23' }, '2026-11-22')).toBe(true);
  expect(isLive({ until: '2026-11-23' }, '2026-11-24')).toBe(false);
  const failure = [execution({})];
  expect(applyWaivers(failure, [waiver({ until: '2026-11-23' })], '2026-11-23').uses[0]).toMatchObject({ status: 'used', count: 1 });
  const expired = applyWaivers(failure, [waiver({ until: '2026-11-23' })], '2026-11-24');
  expect(expired.executions[0].verdict).toBe('fail');
  expect(expired.uses[0]).toMatchObject({ status: 'expired', count: 0 });
  // The UTC day, not the local one: 23:30 on 23 November in UTC-5 is already the 24th in UTC.
  expect(utcDay(new Date('2026-11-23T23:30:00-05:00'))).toBe('2026-11-24');
  expect(runDay('2026-11-23T23:59:59.999Z', new Date('2026-11-24T00:10:00Z'))).toBe('2026-11-23');
  expect(runDay(undefined, new Date('2026-11-24T00:10:00Z'))).toBe('2026-11-24');
});

test('status per waiver: used with its count, unused, expired; the most specific live waiver wins', () => {
  const executions = [execution({}), execution({ format: 'xml' }), execution({ checkId: 'limit.accepted' })];
  const waivers = [
    waiver({ index: 0 }),
    waiver({ index: 1, format: 'xml', reason: 'XML only' }),
    waiver({ index: 2, check: 'text.bad-request' }),
    waiver({ index: 3, check: 'limit.accepted', until: '2026-01-01' }),
  ];
  const { executions: out, uses } = applyWaivers(executions, waivers, '2026-11-23');
  expect(out.map((e) => e.waiver?.index ?? e.verdict)).toEqual([0, 1, 'fail']);
  expect(uses.map((u) => [u.index, u.status, u.count])).toEqual([
    [0, 'used', 1],
    [1, 'used', 1],
    [2, 'unused', 0],
    [3, 'expired', 0],
  ]);
});
