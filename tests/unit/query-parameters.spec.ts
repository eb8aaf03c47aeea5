/**
 * The query's shapes (issue 38): each parameter of merge, delete and demerge left out, present but empty,
 * and given twice with the same value, recorded (observed.requiredness), on data that does not exist.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { createJudge } from '../../lib/check/judge.ts';
import { keySourceDbs } from '../../lib/contract/agency.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { operation } from '../../lib/contract/operations.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { runPlannedCase } from '../../lib/run/runner.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';

const embedded = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

for (const choices of ['reference', 'production-as-built'] as const) {
  test(`each query parameter of the delete sent absent, empty and twice, each recorded, none a failure (${choices} choices)`, async () => {
    const planned = (await planSuite(embedded, { destructive: false, runs: 1 })).find((p) => p.key === 'delete.query-parameters@none');
    if (!planned) throw new Error('no delete.query-parameters case in the plan');
    const server = await startReferenceServer({ profile: embedded, key: EMBEDDED_KEY, choices });
    const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: 10_000 });
    try {
      const judge = createJudge({ strict: true, agency: embedded.agency, sourceDbs: keySourceDbs(embedded) });
      const outcome = await runPlannedCase(planned, client, embedded, { seed: 1, runs: 1, strict: true }, judge);
      expect(outcome.executions.filter((e) => e.verdict === 'fail').map((e) => `${e.checkId} ${e.step}`)).toEqual([]);
      const params = operation('deleteSubmission').params.map((p) => p.name);
      const twice = outcome.exchanges.filter(({ label }) => label.includes('given twice'));
      expect(twice.map(({ label }) => label.split(' ')[0])).toEqual(params);
      for (const { label, exchange } of twice) {
        const name = label.split(' ')[0] ?? '';
        const values = new URL(exchange.request.url).searchParams.getAll(name);
        expect(values, label).toHaveLength(2);
        expect(values[0], label).toBe(values[1]);
      }
      const recorded = outcome.executions.filter((e) => e.checkId === 'observed.requiredness' && e.verdict === 'observed');
      expect(recorded.map((e) => (e.observation as { request?: { sent?: string } } | undefined)?.request?.sent).filter((s) => s === 'twice')).toHaveLength(params.length);
    } finally {
      await client.close();
      await server.close();
    }
  });
}
