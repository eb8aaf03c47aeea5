/**
 * The key on another spelling of an operation's path (a trailing slash, capitals), sent without the key: a
 * router may take it for the operation's path or not route it at all. Only the operation's own success shows
 * the key skipped (faults key-skipped-trailing-slash, key-skipped-path-case); a path not routed passes whatever
 * it answers, and a server answering every unknown path 200 is http.unknown-path's fault, not the key's.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { createJudge } from '../../lib/check/judge.ts';
import type { OperationId } from '../../lib/contract/operations.ts';
import type { Exchange } from '../../lib/contract/exchange.ts';
import type { Step } from '../../lib/generate/case.ts';
import { expectCheck } from '../../lib/generate/expectations.ts';

function answered(status: number, body = '', contentType = 'application/json'): Exchange {
  return {
    request: { method: 'POST', url: 'http://127.0.0.1:1/agent/run/', headers: {}, body: '{}', bodyBytes: 2, bodyTruncated: false, auth: 'none' },
    response: { status, headers: body === '' ? {} : { 'content-type': contentType }, body, bodyBytes: body.length, truncated: false },
    durationMs: 1,
    attempts: 1,
    waitedMs: 0,
  };
}

function verdictOf(operation: OperationId, check: 'auth.required' | 'auth.key-checked', exchange: Exchange): string | undefined {
  const judge = createJudge({ strict: true, agency: '128' });
  const step: Step = {
    label: 'without the key, on the path with a trailing slash',
    operation,
    probe: 'outside-document',
    request: { method: 'POST', path: '/agent/run/', body: '{}', auth: 'none' },
    expect: [expectCheck(check, { shape: 'the path with a trailing slash', otherPath: true, because: 'test' })],
  };
  return judge(step, exchange, 'json').find((j) => j.checkId === check)?.verdict;
}

test('the operation served without the key fails: a run opened (200 with a runId), a delete or a merge done (204)', () => {
  expect(verdictOf('notifyAgentRun', 'auth.required', answered(200, JSON.stringify({ runId: 'run-1' })))).toBe('fail');
  expect(verdictOf('deleteSubmission', 'auth.key-checked', answered(204))).toBe('fail');
  expect(verdictOf('mergeIswcMetadata', 'auth.key-checked', answered(204))).toBe('fail');
});

test('a refusal or a path not routed passes, whatever its status; an unknown path answered 200 without a run is not the key\'s', () => {
  for (const status of [400, 401, 403, 404, 405, 406, 415]) {
    expect(verdictOf('notifyAgentRun', 'auth.required', answered(status, '{"message":"no"}')), String(status)).toBe('pass');
    expect(verdictOf('deleteSubmission', 'auth.key-checked', answered(status, '{"message":"no"}')), String(status)).toBe('pass');
  }
  expect(verdictOf('notifyAgentRun', 'auth.required', answered(200, '{}'))).toBe('pass');
  expect(verdictOf('deleteSubmission', 'auth.key-checked', answered(200, '{}'))).toBe('pass');
});

test('no answer at all fails, as every key proof does', () => {
  const lost: Exchange = { ...answered(404), error: { code: 'TIMEOUT', message: 'no answer within 30 s' } };
  delete (lost as { response?: unknown }).response;
  expect(verdictOf('notifyAgentRun', 'auth.required', lost)).toBe('fail');
});
