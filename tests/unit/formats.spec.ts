import { _baseTest as test, expect } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { plannedRequests } from '../../lib/run/estimate.ts';
import { profileDigest } from '../../lib/report/binding.ts';
import { specCoverage } from '../../lib/report/verdict.ts';
import { deviations, deviationsHeadline } from '../../lib/report/deviations.ts';
import type { CheckExecution } from '../../lib/run/execution.ts';

const embedded = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

test('a JSON-only profile plans no XML request and claims no entry for XML; the JSON cases plan as before', async () => {
  const both = await planSuite(embedded, { destructive: true });
  const json = await planSuite({ ...embedded, formats: ['json'] }, { destructive: true });
  const xml = json.filter((p) => p.format === 'xml');
  expect(xml.length).toBeGreaterThan(0);
  expect(xml.filter((p) => p.skipReason !== 'the target serves no XML (profile formats: json)').map((p) => p.key)).toEqual([]);
  expect(xml.filter((p) => Object.keys(p.entries).length > 0).map((p) => p.key)).toEqual([]);
  const sent = (plan: typeof both) => plan.filter((p) => p.format !== 'xml').map((p) => [p.key, p.skipReason]);
  expect(sent(json)).toEqual(sent(both));
  expect(plannedRequests(json, 25)).toBeLessThan(plannedRequests(both, 25));
  expect(json.filter((p) => p.skipReason === undefined && p.format === 'xml')).toEqual([]);
});

test('formats at its default leaves the profile digest as it was before the setting existed', () => {
  const { formats: _formats, ...before } = embedded;
  expect(profileDigest(embedded)).toBe(profileDigest(before as typeof embedded));
  expect(profileDigest({ ...embedded, formats: ['json'] })).not.toBe(profileDigest(embedded));
});

test('deviations: one per check × operation, however many executions show it', () => {
  const e = (checkId: string, operation: CheckExecution['operation'], verdict: CheckExecution['verdict']) => ({ checkId, operation, verdict, level: 'spec' }) as CheckExecution;
  const executions = [e('status.refused', 'deleteSubmission', 'fail'), e('status.refused', 'deleteSubmission', 'fail'), e('status.refused', 'demergeIswcMetadata', 'fail'), e('text.bad-request', 'notifyAgentRun', 'waived'), e('status.success', 'mergeIswcMetadata', 'pass')];
  expect(deviations(executions, 'fail').map((d) => [d.checkId, d.operation, d.count])).toEqual([
    ['status.refused', 'deleteSubmission', 2],
    ['status.refused', 'demergeIswcMetadata', 1],
  ]);
  expect(deviationsHeadline(executions)).toBe('2 deviations (a check failing on one operation counts once, however many requests show it); 1 waiver used');
  expect(deviationsHeadline([])).toBe('no deviation (a check failing on one operation counts once, however many requests show it)');
  expect(deviationsHeadline(executions.filter((e) => e.verdict !== 'fail'))).toBe('no deviation left: 1 waiver used');
});

test('a spec check left out in the format the target does not serve and for want of data in the other says only what the profile lacks', () => {
  const skip = (skipReason: string) => ({ checkId: 'outcome.sequence', operation: 'mergeIswcMetadata', verdict: 'skip', level: 'spec', skipReason }) as CheckExecution;
  const noXml = 'the target serves no XML (profile formats: json)';
  const sequence = (executions: CheckExecution[]) => specCoverage(executions).notExercised.find((n) => n.checkId === 'outcome.sequence')?.reasons;
  expect(sequence([skip(noXml), skip('needs 2 more merges')])).toEqual(['needs 2 more merges']);
  expect(sequence([skip(noXml)])).toEqual([noXml]);
});
