import { expect, test } from '@playwright/test';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { loadWaivers } from '../../lib/report/waivers/load.ts';
import { deviations } from '../../lib/report/deviations.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';

test.describe.configure({ timeout: 5 * 60_000 });

const WAIVERS = fromRoot('fixtures', 'waivers', 'production-as-built.yaml');

/**
 * What production as built breaks of the document, one check × operation each (its deviations, DOMAIN.md
 * "Production as built"): pinned, so that a change to the model or to the checks that moves it is a
 * deliberate one. fixtures/waivers/production-as-built.yaml waives exactly these.
 */
const PINNED = [
  'http.no-5xx × mergeIswcMetadata',
  'limit.rejected × mergeIswcMetadata',
  'limit.rejected × notifyAgentRun',
  'outcome.identity × deleteSubmission',
  'status.documented × mergeIswcMetadata',
  'status.documented × notifyAgentRun',
  'status.item-refused × mergeIswcMetadata',
  'status.not-found × mergeIswcMetadata',
  'status.refused × deleteSubmission',
  'text.bad-request × notifyAgentRun',
  'text.not-authorized × notifyAgentRun',
  'type.rejected × notifyAgentRun',
];

/**
 * Issue 21: the model of production as built (server/models.ts: its choices and its deviations), with a
 * JSON-only profile, is what a team meets on its first day against production. Without waivers the run
 * fails exactly the pinned checks, each a deviation; with the shipped waivers it is green, strict, every
 * waiver used, and no XML request is sent.
 */
test('production as built fails exactly its deviations, and the shipped waivers make a JSON-only run green @selfcheck', async () => {
  const today = '2026-11-27';
  const waivers = loadWaivers(WAIVERS);
  expect(waivers.waivers.map((w) => `${w.check} × ${w.operation ?? '*'}`).sort(), 'the waivers file names the pinned deviations, each once').toEqual(PINNED);

  const bare = await inProcessReport({ model: 'production-as-built', strict: true });
  expect(deviations(bare.executions, 'fail').map((d) => `${d.checkId} × ${d.operation ?? '*'}`), 'the checks production as built fails, by operation').toEqual(PINNED);
  expect(bare.executions.filter((e) => e.format === 'xml' && e.verdict !== 'skip'), 'a JSON-only profile sends no XML').toEqual([]);

  const waived = await inProcessReport({ model: 'production-as-built', strict: true, waivers, today });
  expect(waived.executions.filter((e) => e.verdict === 'fail').map((e) => `${e.checkId} ${e.caseId} ${e.step}`), 'failures the shipped waivers leave').toEqual([]);
  expect(waived.summary.waivers?.entries.filter((w) => w.status !== 'used').map((w) => `${w.check} ${w.operation ?? ''}`), 'waivers that match nothing').toEqual([]);
  expect(deviations(waived.executions, 'waived')).toHaveLength(PINNED.length);
  expect(waived.summary.outcome?.exitCode).toBe(0);
});
