import { expect, _baseTest as test } from '@playwright/test';
import type { AllureData } from '../../lib/report/attachment.ts';
import { allureAttachments, allureDataOf, allureMessages } from '../../reporters/allure-playwright.ts';

/** What the Allure reporter hands Allure for a conformance test (the files of a real run: report-ci.spec.ts). */

test('allureMessages: the title with its format, the labels, and a step per exchange in order, failed with its checks as the message when one failed', () => {
  const data: AllureData = {
    format: 'XML',
    epic: 'merge',
    features: ['status.not-found', 'http.no-5xx'],
    severity: 'critical',
    tag: 'XML',
    sections: ['§4.2'],
    steps: [
      { name: 'POST /iswc/merge → 404 (merge)', request: '{"method":"POST"}', response: '{"status":404}', durationMs: 12.4 },
      { name: 'POST /iswc/merge → 204 (again): status.not-found failed', request: '{}', response: '{"status":204}', failure: 'status.not-found [spec, §4.2]: expected 404; received 204', durationMs: 5 },
    ],
  };
  const messages = allureMessages('merge [merge.unknown-preferred]', data, 1_000);
  expect(messages[0]).toEqual({
    type: 'metadata',
    data: {
      displayName: 'merge [merge.unknown-preferred] · XML',
      labels: [
        { name: 'parentSuite', value: 'XML' },
        { name: 'suite', value: 'merge' },
        { name: 'epic', value: 'merge' },
        { name: 'feature', value: 'status.not-found' },
        { name: 'feature', value: 'http.no-5xx' },
        { name: 'severity', value: 'critical' },
        { name: 'tag', value: 'XML' },
        { name: 'section', value: '§4.2' },
      ],
    },
  });
  expect(messages.slice(1).map((m) => m.type)).toEqual(['step_start', 'attachment_content', 'attachment_content', 'step_stop', 'step_start', 'attachment_content', 'attachment_content', 'step_stop']);
  expect(messages[1]).toEqual({ type: 'step_start', data: { name: 'POST /iswc/merge → 404 (merge)', start: 1_000 } });
  expect(messages[2]).toEqual({ type: 'attachment_content', data: { name: 'request', content: '{"method":"POST"}', encoding: 'utf8', contentType: 'application/json' } });
  expect(messages[4]).toEqual({ type: 'step_stop', data: { stop: 1_012, status: 'passed' } });
  expect(messages[5]).toEqual({ type: 'step_start', data: { name: 'POST /iswc/merge → 204 (again): status.not-found failed', start: 1_012 } });
  expect(messages[8]).toEqual({ type: 'step_stop', data: { stop: 1_017, status: 'failed', statusDetails: { message: 'status.not-found [spec, §4.2]: expected 404; received 204' } } });
  // Any other test hands in no Allure data.
  expect(allureDataOf([{ name: 'trace', contentType: 'application/zip', path: '/nowhere' }])).toBeUndefined();
  expect(allureDataOf([{ name: 'iswc-check-executions', contentType: 'application/json', body: Buffer.from(JSON.stringify({ executions: [], stats: { requests: 0, retries: 0, waitedMs: 0 }, allure: data })) }])).toEqual(data);
});

test('allureAttachments: a file attached twice is kept once; bodies are never merged', () => {
  const file = { name: 'error-context', contentType: 'text/markdown', path: '/tmp/x/error-context.md' };
  const body = { name: 'request', contentType: 'application/json', body: Buffer.from('{}') };
  expect(allureAttachments([file, { ...file }, body, { ...body }, { name: 'iswc-check-executions', contentType: 'application/json', body: Buffer.from('[]') }])).toEqual([file, body, body]);
});
