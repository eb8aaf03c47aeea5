/**
 * outcome.run-ids-distinct compares the runId of a second start with the first one's, whatever the
 * server answered to the first: an empty runId is a runId to compare (two empty ones are the same run),
 * never a parameter that stops the run (a sweep met it: a check given "" threw, and the run crashed).
 */
import { expect, _baseTest as test } from '@playwright/test';
import { createJudge } from '../../lib/check/judge.ts';
import type { Exchange } from '../../lib/contract/exchange.ts';
import type { Step } from '../../lib/generate/case.ts';
import { expectCheck } from '../../lib/generate/expectations.ts';

function startAnswered(runId: string): Exchange {
  const body = JSON.stringify({ runId });
  return {
    request: { method: 'POST', url: 'http://127.0.0.1:1/agent/run', headers: {}, body: '{}', bodyBytes: 2, bodyTruncated: false, auth: 'key' },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body, bodyBytes: body.length, truncated: false },
    durationMs: 1,
    attempts: 1,
    waitedMs: 0,
  };
}

test('a first runId answered empty is compared like any other: the same empty one fails, another passes, nothing throws', () => {
  const judge = createJudge({ strict: true, agency: '128' });
  const step: Step = {
    label: 'start another run',
    operation: 'notifyAgentRun',
    request: { method: 'POST', path: '/agent/run', body: '{}' },
    expect: [expectCheck('outcome.run-ids-distinct', { otherRunId: '', because: 'the answer to a run start identifies that run (sections 2.2, 4.1)' })],
  };
  const verdictOf = (runId: string) => judge(step, startAnswered(runId), 'json').find((j) => j.checkId === 'outcome.run-ids-distinct')?.verdict;
  expect(verdictOf('')).toBe('fail');
  expect(verdictOf('3f2c1a9e-0000-4000-8000-000000000001')).toBe('pass');
});
