/**
 * outcome.run-end-same-id: the end of a run the server started is answered that run's runId (2.2, 4.1). A new
 * runId names another run (fault run-end-new-run-id); the same GUID written back otherwise (a GUID parsed and
 * formatted again: case, braces, hyphens) names the same run and passes.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { sameRunId } from '../../lib/check/checks/outcome.run-end-same-id.ts';
import { createJudge } from '../../lib/check/judge.ts';
import type { Exchange } from '../../lib/contract/exchange.ts';
import type { Step } from '../../lib/generate/case.ts';
import { expectCheck } from '../../lib/generate/expectations.ts';

const STARTED = '3f2c1a9e-5b7d-4e21-9c0a-00000000beef';

function endAnswered(body: string, contentType = 'application/json'): Exchange {
  const sent = JSON.stringify({ agencyCode: '128', runId: STARTED });
  return {
    request: { method: 'POST', url: 'http://127.0.0.1:1/agent/run', headers: {}, body: sent, bodyBytes: sent.length, bodyTruncated: false, auth: 'key' },
    response: { status: 200, headers: { 'content-type': contentType }, body, bodyBytes: body.length, truncated: false },
    durationMs: 1,
    attempts: 1,
    waitedMs: 0,
  };
}

function verdictOf(started: string, body: string, contentType?: string): string | undefined {
  const judge = createJudge({ strict: true, agency: '128' });
  const step: Step = {
    label: 'end run',
    operation: 'notifyAgentRun',
    request: { method: 'POST', path: '/agent/run', body: '{}' },
    expect: [expectCheck('outcome.run-end-same-id', { runId: started, because: 'the answer to the end of a run identifies that run (sections 2.2, 4.1)' })],
  };
  return judge(step, endAnswered(body, contentType), 'json').find((j) => j.checkId === 'outcome.run-end-same-id')?.verdict;
}

test('the run\'s own runId passes, in JSON and in XML', () => {
  expect(verdictOf(STARTED, JSON.stringify({ runId: STARTED }))).toBe('pass');
  expect(verdictOf(STARTED, `<CsnNotification><runId>${STARTED}</runId></CsnNotification>`, 'application/xml')).toBe('pass');
});

test('the same GUID written back otherwise passes: upper case, braces, parentheses, no hyphens', () => {
  for (const spelled of [STARTED.toUpperCase(), `{${STARTED.toUpperCase()}}`, `(${STARTED})`, STARTED.replaceAll('-', '')]) {
    expect(sameRunId(spelled, STARTED), spelled).toBe(true);
    expect(verdictOf(STARTED, JSON.stringify({ runId: spelled })), spelled).toBe('pass');
  }
});

test('another runId fails: a new GUID, another run\'s, one digit changed, and a non-GUID runId in another case', () => {
  expect(verdictOf(STARTED, JSON.stringify({ runId: '9d1e0c4a-2222-4bbb-8ccc-000000000001' }))).toBe('fail');
  expect(verdictOf(STARTED, JSON.stringify({ runId: `${STARTED.slice(0, -1)}0` }))).toBe('fail');
  expect(verdictOf('run-42', JSON.stringify({ runId: 'RUN-42' }))).toBe('fail');
  expect(verdictOf('run-42', JSON.stringify({ runId: 'run-42' }))).toBe('pass');
});

test('nothing to compare is a skip, never a failure: no runId in the answer, or a start that answered an empty one', () => {
  expect(verdictOf(STARTED, '{}')).toBe('skip');
  expect(verdictOf('', JSON.stringify({ runId: STARTED }))).toBe('skip');
});
