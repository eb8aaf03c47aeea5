/**
 * Disposable entries that a legitimate reading of the document ties together: the harness must not report
 * a failure a conforming target gives. Metadata one merge request carried into one preferred ISWC may be
 * one set (4.4 "one set of metadata"; choice `demerge-merge-set`): a demerge of one work then removes the
 * others, so a check that expects another work to be left alone must take it from another preferred ISWC.
 */
import { expect, _baseTest as test } from '@playwright/test';
import type { DemergeEntry, TargetProfile } from '../../lib/contract/profile/types.ts';
import { parseProfile } from '../../lib/contract/profile/load.ts';
import { runSuiteInProcess } from '../../lib/engine/pipeline.ts';
import { startReferenceServer } from '../../server/index.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

const KEY = 'entry-interference-key';
const SET = 'T0302332075';
const demerge = (workcode: string, preferredIswc: string): DemergeEntry => ({ preferredIswc, agency: '128', workcode });

function profileWith(demerges: DemergeEntry[]): TargetProfile {
  return parseProfile({ agency: '128', iswcs: ['T0345246801', 'T2010000117', 'T2010000015', SET], unknownIswcs: ['T9999999994', 'T8880000012'], demerges }, 'demerge-sets.json');
}

/** The demerge cases against a server that demerges whole merge sets, after one request merged WSET1 and WSET2 into one preferred ISWC. */
async function demergeCases(profile: TargetProfile) {
  const server = await startReferenceServer({ profile, key: KEY, choices: ['demerge-merge-set'] });
  try {
    const merged = await fetch(`${server.url}/iswc/merge?preferredIswc=${SET}&agency=128`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Ocp-Apim-Subscription-Key': KEY },
      body: JSON.stringify({ iswcs: [], agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'WSET1' }, { agencyCode: '128', agencyWorkCode: 'WSET2' }] }),
    });
    expect(merged.status).toBe(204);
    return await runSuiteInProcess({ baseUrl: server.url, key: KEY, profile, destructive: true, timeoutMs: REQUEST_TIMEOUT_MS, filter: (p) => p.def.id.startsWith('demerge.'), settings: { runs: 3 } });
  } finally {
    await server.close();
  }
}

const failures = (executions: Awaited<ReturnType<typeof demergeCases>>) => executions.filter((e) => e.verdict === 'fail').map((e) => `${e.checkId} ${e.caseId} ${e.step}: ${e.received ?? ''}`);

test('demerge.identity takes the metadata it expects left alone from another preferred ISWC than the one it demerges', async () => {
  const profile = profileWith([demerge('WX0', 'T2010000117'), demerge('WX1', 'T2010000015'), demerge('WSET1', SET), demerge('WSET2', SET), demerge('WY', 'T3200000002')]);
  const executions = await demergeCases(profile);
  expect(failures(executions)).toEqual([]);
  const demergeOne = executions.filter((e) => e.caseId === 'demerge.identity' && e.checkId === 'outcome.demerge-one');
  expect(demergeOne.map((e) => [e.verdict, e.step])).toEqual([['pass', 'demerge the metadata of another preferred ISWC']]);
});

test('with only entries under one preferred ISWC left for it, demerge.identity leaves outcome.demerge-one out and says what it needs', async () => {
  const profile = profileWith([demerge('WX0', 'T2010000117'), demerge('WX1', 'T2010000015'), demerge('WSET1', SET), demerge('WSET2', SET)]);
  const executions = await demergeCases(profile);
  expect(failures(executions)).toEqual([]);
  const demergeOne = executions.filter((e) => e.caseId === 'demerge.identity' && e.checkId === 'outcome.demerge-one');
  expect(demergeOne.map((e) => [e.verdict, e.skipReason])).toEqual([['skip', 'needs a demerges entry under another preferred ISWC']]);
  // The rest of the case still runs on the entries it was given.
  expect(executions.some((e) => e.caseId === 'demerge.identity' && e.checkId === 'outcome.identity' && e.verdict === 'pass')).toBe(true);
});
