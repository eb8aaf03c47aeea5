import { expect, _baseTest as test } from '@playwright/test';
import type { CheckExecution } from '../../lib/run/execution.ts';
import { applyWaivers, isLive, utcDay } from '../../lib/report/waivers/apply.ts';
import { runDay } from '../../lib/report/waivers/run.ts';
import type { Waiver } from '../../lib/report/waivers/types.ts';

/** An exchange answered with this status and body (what a waiver looks at). */
function answered(status: number, body = ''): CheckExecution['exchange'] {
  return {
    request: { method: 'POST', url: 'http://127.0.0.1:1/iswc/merge', headers: {}, body: '', bodyBytes: 0, bodyTruncated: false, auth: 'key' },
    response: { status, headers: {}, body, bodyBytes: body.length, truncated: false },
    durationMs: 1,
    attempts: 1,
    waitedMs: 0,
  };
}

function noAnswer(): CheckExecution['exchange'] {
  const { response: _none, ...rest } = answered(400) as NonNullable<CheckExecution['exchange']>;
  return { ...rest, error: { code: 'TIMEOUT', message: 'no answer' } };
}

function execution(over: Partial<CheckExecution>): CheckExecution {
  return { checkId: 'status.not-found', level: 'spec', sections: ['4.2'], operation: 'mergeIswcMetadata', format: 'json', caseId: 'merge.unknown-iswc', step: 'merge', verdict: 'fail', expected: '404', received: '400', exchange: answered(400, '{"code":"132","message":"m"}'), ...over };
}

function waiver(over: Partial<Waiver>): Waiver {
  return { index: 0, line: 1, check: 'status.not-found', statuses: [400], reason: 'known', until: '2026-12-31', ...over };
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
  expect(executions[0]?.exchange).toBe(input[0]?.exchange);
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
    [2, 'not exercised', 0],
    [3, 'expired', 0],
  ]);
});

test('issue 29: a narrowed waiver does not waive a failure of its check that looks otherwise, and that failure says what the waiver covers', () => {
  const documented = (status: number, body = ''): CheckExecution =>
    execution({ checkId: 'status.documented', sections: ['4.1'], operation: 'notifyAgentRun', caseId: 'run.end-other-agency', expected: '200, 400 or 401', received: String(status), exchange: answered(status, body) });
  const narrow = waiver({ index: 4, check: 'status.documented', operation: 'notifyAgentRun', statuses: [404], text: 'Agent Run not found' });
  const { executions, uses } = applyWaivers([documented(404, 'Agent Run not found'), documented(500), documented(404, 'Not Found'), documented(415)], [narrow], '2026-11-23');
  expect(executions.map((e) => e.verdict)).toEqual(['waived', 'fail', 'fail', 'fail']);
  expect(executions[1]?.received).toBe('500 — not waived: waiver 4 covers status.documented on notifyAgentRun answering 404 holding "Agent Run not found"; this answered 500');
  expect(executions[2]?.received).toMatch(/not waived: waiver 4 covers .*; this answered 404$/);
  expect(uses[0]).toMatchObject({ status: 'used', count: 1, missed: 3, covers: 'status.documented on notifyAgentRun answering 404 holding "Agent Run not found"' });
  // A business code narrows it too; a failure with no answer at all is never waived.
  const coded = waiver({ code: '132' });
  const outcome = applyWaivers([execution({}), execution({ exchange: answered(400, '{"code":"202","message":"m"}') }), execution({ exchange: noAnswer() })], [coded], '2026-11-23');
  expect(outcome.executions.map((e) => e.verdict)).toEqual(['waived', 'fail', 'fail']);
  expect(outcome.executions[1]?.received).toMatch(/waiver 0 covers status\.not-found on any operation answering 400 with code "132"; this answered 400 with code "202"$/);
  expect(outcome.executions[2]?.received).toMatch(/this got no answer$/);
  // Applying again gives the same executions: the note is not written twice.
  expect(applyWaivers(outcome.executions, [coded], '2026-11-23').executions).toEqual(outcome.executions);
  // A case narrows a waiver to one case: the same failure in another case is not waived.
  const oneCase = waiver({ case: ['merge.unknown-preferred'] });
  const cased = applyWaivers([execution({ caseId: 'merge.unknown-preferred' }), execution({ caseId: 'merge.other' })], [oneCase], '2026-11-23');
  expect(cased.executions.map((e) => e.verdict)).toEqual(['waived', 'fail']);
  // ... and says so: what the waiver covers, and the case it came in.
  expect(cased.executions[1]?.received).toMatch(/not waived: waiver 0 covers status\.not-found on any operation in case merge\.unknown-preferred answering 400; this in case merge\.other answered 400 with code "132"$/);
  expect(cased.uses[0]).toMatchObject({ status: 'used', count: 1, missed: 1 });
});

test('issue 29: a step narrows a waiver within a case: a property that breaks one field at random is waived only where it broke the field the deviation concerns', () => {
  // Production's run notification validates no agencyCode (200), but a counter past int32 still does not bind (400):
  // property.run.invalid draws both, and only the first is the deviation.
  const run = (step: string, status: number): CheckExecution =>
    execution({ checkId: 'limit.rejected', sections: ['2.1', '8'], operation: 'notifyAgentRun', caseId: 'property.run.invalid', step, expected: '400', received: String(status), exchange: answered(status, '{"runId":"r"}') });
  const agency = waiver({ index: 0, check: 'limit.rejected', operation: 'notifyAgentRun', case: ['property.run.invalid'], step: 'agencyCode', statuses: [200, 404] });
  const { executions, uses } = applyWaivers([run('agent run with agencyCode broken', 200), run('agent run with updateRecordCount broken', 200)], [agency], '2026-11-23');
  expect(executions.map((e) => e.verdict)).toEqual(['waived', 'fail']);
  expect(executions[1]?.received).toBe(
    '200 — not waived: waiver 0 covers limit.rejected on notifyAgentRun in case property.run.invalid at a step naming "agencyCode" answering 200 or 404; this in case property.run.invalid at step "agent run with updateRecordCount broken" answered 200',
  );
  expect(uses[0]).toMatchObject({ status: 'used', count: 1, missed: 1 });
  // A run that reached no step naming it says nothing of the deviation: not exercised, not unused.
  expect(applyWaivers([{ ...run('agent run with newRecordCount broken', 400), verdict: 'pass' }], [agency], '2026-11-23').uses[0]?.status).toBe('not exercised');
});

test('issue 29: "not exercised" (its check never ran on its operation) is distinct from "unused" (it ran, nothing matched)', () => {
  const ran = [execution({ verdict: 'pass' }), execution({ checkId: 'limit.rejected', operation: 'notifyAgentRun', verdict: 'skip', skipReason: 'needs --destructive' })];
  const { uses } = applyWaivers(
    ran,
    [waiver({ index: 0 }), waiver({ index: 1, check: 'limit.rejected', operation: 'notifyAgentRun' }), waiver({ index: 2, check: 'text.bad-request', operation: 'notifyAgentRun' }), waiver({ index: 3, format: 'xml' })],
    '2026-11-23',
  );
  expect(uses.map((u) => [u.index, u.status])).toEqual([
    [0, 'unused'],
    [1, 'not exercised'],
    [2, 'not exercised'],
    [3, 'not exercised'],
  ]);
  // A waiver naming cases is exercised only by its cases: its check passing in another case says nothing of it.
  const inCases = applyWaivers(ran, [waiver({ index: 0, case: ['merge.unknown-preferred'] }), waiver({ index: 1, case: [ran[0]?.caseId ?? ''] })], '2026-11-23');
  expect(inCases.uses.map((u) => [u.index, u.status])).toEqual([
    [0, 'not exercised'],
    [1, 'unused'],
  ]);
});
