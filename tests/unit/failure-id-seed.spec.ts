import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { runSuiteInProcess } from '../../lib/engine/pipeline.ts';
import { buildConformanceReport } from '../../lib/report/build.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

/**
 * A generated failure's id (lib/report/identity.ts) is a function of its case, format, step and check:
 * what fast-check did to find it (runs, shrinks, the values it generated) changes with the seed, so it
 * is kept in `generated`, never in the step's label. The same fault found with two seeds has one id.
 */

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

async function propertyFailure(seed: number): Promise<{ id: string | undefined; step: string; generated: string | undefined }> {
  const target = await startReferenceServer({ profile, key: EMBEDDED_KEY, faults: ['array-tail-unchecked'] });
  try {
    const executions = await runSuiteInProcess({ baseUrl: target.url, key: EMBEDDED_KEY, profile, destructive: true, timeoutMs: REQUEST_TIMEOUT_MS, settings: { seed, runs: 60, strict: false }, filter: (p) => p.key === 'property.merge.invalid@json' });
    const report = buildConformanceReport({ executions, stats: { requests: 0, retries: 0, waitedMs: 0 }, baseUrl: target.url, embedded: false, profile: profile.name, targetProfile: profile, seed, runs: 60, strict: false, destructive: true, startedAt: new Date(), finishedAt: new Date(), plan: { name: 'full', budget: null } });
    const failure = report.executions.find((e) => e.verdict === 'fail' && e.checkId === 'limit.rejected');
    if (!failure) throw new Error(`seed ${seed}: the fault was not found`);
    return { id: failure.failureId, step: failure.step, generated: failure.generated };
  } finally {
    await target.close();
  }
}

test('a property failure keeps its id whatever the seed: runs and shrinks are kept out of the step', async () => {
  const [a, b] = [await propertyFailure(7), await propertyFailure(8)];
  expect(a.step).toBe(b.step);
  expect(a.step).not.toMatch(/\d+ runs|\d+ shrinks/);
  expect(a.generated).toMatch(/^minimal failing input after \d+ runs and \d+ shrinks$/);
  expect(a.id).toBeDefined();
  expect(a.id).toBe(b.id);
});
