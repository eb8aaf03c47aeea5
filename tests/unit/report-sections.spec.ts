import { expect, _baseTest as test } from '@playwright/test';
import { executionSections } from '../../lib/check/sections.ts';
import { buildCertificate } from '../../lib/report/certificate.ts';
import { renderHtml } from '../../lib/report/html.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';

/** The verdict of each endpoint section (4.1 to 4.4) and of authentication (5) in a report's certificate. */
function endpointVerdicts(report: ConformanceReport): Record<string, string | undefined> {
  const cert = buildCertificate({ report });
  return Object.fromEntries(['4.1', '4.2', '4.3', '4.4', '5'].map((s) => [s, cert.sections.find((x) => x.section === s)?.verdict]));
}

test('an execution cites the sections of its own operation', () => {
  // auth.required is written for every operation ('5', '4.1'): on a delete it cites 4.3.
  expect(executionSections(['5', '4.1'], 'deleteSubmission')).toEqual(['5', '4.3']);
  // status.not-found ('4.2', '4.4', '7') on a merge: never the demerge's section.
  expect(executionSections(['4.2', '4.4', '7'], 'mergeIswcMetadata')).toEqual(['4.2', '7']);
  // status.success ('4') on a demerge: the demerge's endpoint.
  expect(executionSections(['4'], 'demergeIswcMetadata')).toEqual(['4.4']);
  // Resources of other operations go; limits and HTTP references stay.
  expect(executionSections(['2.1', '2.3', '2.4', '7'], 'notifyAgentRun')).toEqual(['2.1', '7']);
  expect(executionSections(['2.1', '2.3', '2.4', '4.3', '8'], 'mergeIswcMetadata')).toEqual(['2.3', '2.4', '4.2', '8']);
  expect(executionSections(['RFC 9110 §17', 'OWASP XXE'], 'notifyAgentRun')).toEqual(['RFC 9110 §17', 'OWASP XXE']);
  // Outside the documented operations, as given.
  expect(executionSections(['4', '7'], null)).toEqual(['4', '7']);
  // Idempotent: narrowing twice changes nothing.
  for (const op of ['notifyAgentRun', 'mergeIswcMetadata', 'deleteSubmission', 'demergeIswcMetadata'] as const) {
    const once = executionSections(['2.1', '2.5', '3', '4', '4.1', '4.4', '5', '7', '8'], op);
    expect(executionSections(once, op)).toEqual(once);
  }
});

test('a fault in one operation marks only that operation\'s sections', async () => {
  const [merge, del] = await Promise.all([inProcessReport({ faults: ['merge-404-as-400'] }), inProcessReport({ faults: ['auth-missing-delete'] })]);

  const mergeFailures = merge.executions.filter((e) => e.verdict === 'fail');
  expect(mergeFailures.length).toBeGreaterThan(0);
  expect(mergeFailures.every((e) => e.operation === 'mergeIswcMetadata' && !e.sections.some((s) => ['4.1', '4.3', '4.4'].includes(s)))).toBe(true);
  expect(endpointVerdicts(merge)).toEqual({ '4.1': 'conformant', '4.2': 'not conformant', '4.3': 'conformant', '4.4': 'conformant', '5': 'conformant' });

  const deleteFailures = del.executions.filter((e) => e.verdict === 'fail');
  expect(deleteFailures.length).toBeGreaterThan(0);
  expect(deleteFailures.every((e) => e.operation === 'deleteSubmission')).toBe(true);
  expect(endpointVerdicts(del)).toEqual({ '4.1': 'conformant', '4.2': 'conformant', '4.3': 'not conformant', '4.4': 'conformant', '5': 'not conformant' });

  // Every execution of the report, skips included, cites nothing of another endpoint.
  const own = { notifyAgentRun: '4.1', mergeIswcMetadata: '4.2', deleteSubmission: '4.3', demergeIswcMetadata: '4.4' } as const;
  const foreign = merge.executions.filter((e) => e.operation !== null && e.sections.some((s) => s.startsWith('4.') && s !== own[e.operation ?? 'notifyAgentRun']));
  expect(foreign.map((e) => `${e.checkId} ${e.operation} ${e.sections.join(',')}`)).toEqual([]);

  // The matrix shows the sections of the row's executions: merge's status.not-found row cites 4.2 and 7 only.
  const html = renderHtml(merge);
  const row = /<tr class="check[^"]*" data-op="mergeIswcMetadata" data-check="status\.not-found"[^>]*>.*?<\/tr>/s.exec(html)?.[0] ?? '';
  expect(row).toContain('§4.2, §7');
  expect(row).not.toMatch(/§2\.5|§4\.3|§4\.4/);
});
