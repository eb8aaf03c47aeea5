/**
 * Read back (issue 38): the run's last requests prove again what its first steps changed, so that an
 * effect that lapses after its 204 is seen whatever the pace. The repeats of the delete and the demerges
 * are sent again once every other case has ended; under a budget, or a case run alone, at once.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { createJudge } from '../../lib/check/judge.ts';
import { keySourceDbs } from '../../lib/contract/agency.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { runSuiteInProcess } from '../../lib/engine/pipeline.ts';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { runPlannedCase } from '../../lib/run/runner.ts';
import { READ_BACK } from '../../lib/generate/cases/read-back.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';

const embedded = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const AT_END = "at the run's end";

test('a whole run sends its read-backs last, each the repeat it proves again, each passing on the clean server', async () => {
  const seen: string[] = [];
  const server = await startReferenceServer({ profile: embedded, key: EMBEDDED_KEY, hook: { received: (req) => seen.push(`${req.method ?? ''} ${req.url ?? ''}`) } });
  try {
    const executions = await runSuiteInProcess({ baseUrl: server.url, key: EMBEDDED_KEY, profile: embedded, destructive: true, settings: { seed: 7, runs: 2 } });
    const readBacks = executions.filter((e) => e.step.endsWith(AT_END));
    // The delete, the demerge, and the merge's demerge in each body format.
    expect([...new Set(readBacks.map((e) => `${e.caseId} ${e.format}`))].sort()).toEqual(['delete.success-then-repeat json', 'demerge.success-then-repeat json', 'merge.success-then-demerge json', 'merge.success-then-demerge xml']);
    expect(readBacks.filter((e) => e.verdict === 'fail').map((e) => `${e.checkId} ${e.caseId}: ${e.received ?? ''}`)).toEqual([]);
    expect(readBacks.filter((e) => e.checkId === 'outcome.delete' || e.checkId === 'outcome.demerge').map((e) => e.verdict)).toEqual(['pass', 'pass', 'pass', 'pass']);
    // The merge's work, merged once more on its own, is still merged at the run's end.
    expect(readBacks.filter((e) => e.checkId === 'outcome.merge').map((e) => `${e.format} ${e.verdict}`).sort()).toEqual(['json pass', 'xml pass']);
    // The run's last six requests are the read-backs: DELETEs of what the cases deleted or demerged before.
    const last = seen.slice(-6);
    expect(last.every((r) => r.startsWith('DELETE '))).toBe(true);
    for (const r of last) expect(seen.slice(0, -6), r).toContain(r);
  } finally {
    await server.close();
  }
});

for (const fault of ['delete-lapses', 'demerge-lapses'] as const) {
  test(`${fault}: the repeat right after the 204 is refused, and the read-back among the run's last requests catches the lapse`, async () => {
    const server = await startReferenceServer({ profile: embedded, key: EMBEDDED_KEY, faults: [fault] });
    try {
      const executions = await runSuiteInProcess({ baseUrl: server.url, key: EMBEDDED_KEY, profile: embedded, destructive: true, settings: { seed: 7, runs: 2 } });
      const check = fault === 'delete-lapses' ? 'outcome.delete' : 'outcome.demerge';
      // The read-backs fail (the model test's sequences, which repeat as they go, may see it too).
      const readBacks = executions.filter((e) => e.step.endsWith(AT_END) && e.verdict === 'fail');
      expect(readBacks.length).toBeGreaterThan(0);
      expect(readBacks.map((e) => e.checkId).every((id) => id === check)).toBe(true);
      // The repeats right after the 204 pass: only the read-back shows the lapse.
      expect(executions.filter((e) => e.checkId === check && e.step.startsWith('repeat the') && !e.step.endsWith(AT_END)).map((e) => e.verdict)).not.toContain('fail');
    } finally {
      await server.close();
    }
  });
}

test('a case run alone (a measurement, a replay) or under a budget sends its read-back at once, in its part; a budget may leave the part out', async () => {
  const planned = (await planSuite(embedded, { destructive: true, runs: 1 })).find((p) => p.key === 'delete.success-then-repeat@none');
  if (!planned) throw new Error('no delete.success-then-repeat case in the plan');
  expect(planned.shape.parts?.map((p) => [p.id, p.requests])).toEqual([[READ_BACK, 1]]);
  const judge = createJudge({ strict: true, agency: embedded.agency, sourceDbs: keySourceDbs(embedded) });
  for (const parts of [undefined, [] as string[]]) {
    const server = await startReferenceServer({ profile: embedded, key: EMBEDDED_KEY, faults: ['delete-lapses'] });
    const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: 10_000 });
    try {
      const outcome = await runPlannedCase({ ...planned, ...(parts ? { parts } : {}) }, client, embedded, { seed: 1, runs: 1, strict: true }, judge);
      expect(outcome.atRunEnd).toBeUndefined();
      const readBack = outcome.executions.filter((e) => e.step.endsWith(AT_END));
      if (parts) expect(readBack, 'the part left out: no read-back').toEqual([]);
      else {
        expect(outcome.exchanges.at(-1)?.label).toBe("repeat the delete at the run's end");
        expect(readBack.filter((e) => e.verdict === 'fail').map((e) => e.checkId)).toEqual(['outcome.delete']);
        expect([...outcome.partOf.values()]).toContain(READ_BACK);
      }
    } finally {
      await client.close();
      await server.close();
    }
  }
});

/**
 * A merge that lapses a while after its 204, played by a hook in front of the reference server: a work
 * merged on its own is demerged (404) once 200 more requests have come since that merge. Only a whole
 * run, whose read-back comes among its last requests, sees it; a case run alone sends its read-back at once.
 */
function lapsingMerges(after: number) {
  let count = 0;
  const mergedAt = new Map<string, number>();
  return {
    received: () => {
      count += 1;
    },
    before(req: { method?: string; url?: string }, body: { kind: 'ok'; bytes: Buffer } | { kind: 'too-large' }) {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname !== '/iswc/merge') return undefined;
      const preferred = url.searchParams.get('preferredIswc') ?? '';
      if (req.method === 'POST' && body.kind === 'ok') {
        // JSON and XML alike: a body naming one agency work code, and no ISWC.
        const text = body.bytes.toString('utf8');
        const codes = [...text.matchAll(/"agencyWorkCode"\s*:\s*"([^"]+)"|<AgencyWorkCode>([^<]+)</gi)].map((m) => m[1] ?? m[2]);
        if (codes.length === 1 && !/T\d{10}/.test(text.replace(preferred, ''))) mergedAt.set(`${preferred} ${codes[0] ?? ''}`, count);
        return undefined;
      }
      if (req.method !== 'DELETE') return undefined;
      const key = `${preferred} ${url.searchParams.get('workcode') ?? ''}`;
      const at = mergedAt.get(key);
      if (at === undefined || count - at <= after) return undefined;
      mergedAt.delete(key);
      return { status: 404, body: { kind: 'json' as const, text: '{"code":"NOT_FOUND","message":"ISWC not found"}' }, headers: { 'content-type': 'application/json' } };
    },
  };
}

test('a merge that lapses a while after its 204 is seen by the read-back of a whole run, not by a case run alone', async () => {
  const server = await startReferenceServer({ profile: embedded, key: EMBEDDED_KEY, hook: lapsingMerges(200) });
  try {
    const executions = await runSuiteInProcess({ baseUrl: server.url, key: EMBEDDED_KEY, profile: embedded, destructive: true, settings: { seed: 7, runs: 2 } });
    const readBack = executions.filter((e) => e.step === "demerge the work merged once more, at the run's end");
    expect(readBack.filter((e) => e.checkId === 'outcome.merge').map((e) => `${e.format} ${e.verdict}`).sort()).toEqual(['json fail', 'xml fail']);
  } finally {
    await server.close();
  }
  const planned = (await planSuite(embedded, { destructive: true, runs: 1 })).find((p) => p.key === 'merge.success-then-demerge@json');
  if (!planned) throw new Error('no merge.success-then-demerge case in the plan');
  const alone = await startReferenceServer({ profile: embedded, key: EMBEDDED_KEY, hook: lapsingMerges(200) });
  const client = createHttpClient({ baseUrl: alone.url, key: EMBEDDED_KEY, timeoutMs: 10_000 });
  try {
    const outcome = await runPlannedCase(planned, client, embedded, { seed: 1, runs: 1, strict: true }, createJudge({ strict: true, agency: embedded.agency, sourceDbs: keySourceDbs(embedded) }));
    expect(outcome.executions.filter((e) => e.verdict === 'fail').map((e) => `${e.checkId} ${e.step}`)).toEqual([]);
  } finally {
    await client.close();
    await alone.close();
  }
});
