/**
 * Issue 31: the near-neighbour cases (lib/generate/cases/neighbours.ts) as parts a request budget takes one
 * reading at a time, the run notification's counters in one run, and the plans' measurement crediting a part
 * only with what its own steps showed (scripts/plans/measure.ts attributedPart).
 */
import { expect, _baseTest as test } from '@playwright/test';
import { createJudge } from '../../lib/check/judge.ts';
import { keySourceDbs } from '../../lib/contract/agency.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { COUNTERS_CASE_ID, fieldsOfNeighbourCase, neighbourCases } from '../../lib/generate/cases/neighbours.ts';
import { neighbourFields } from '../../lib/generate/neighbours.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { planSuite } from '../../lib/run/plan.ts';
import type { PlannedCase } from '../../lib/run/planned.ts';
import { caughtInSelection } from '../../lib/run/plan-rank.ts';
import { neighbourCoverage } from '../../lib/run/profile-coverage.ts';
import { runPlannedCase } from '../../lib/run/runner.ts';
import { AFTER_PARTS, attributedPart, attributionToVerify } from '../../scripts/plans/measure.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';

const embedded = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

async function neighbourPlans(): Promise<PlannedCase[]> {
  return (await planSuite(embedded, { destructive: true, runs: 100 })).filter((p) => p.def.tags.includes('@neighbours') && !p.skipReason);
}

const coreOf = (p: PlannedCase): number => p.shape.fixedRequests - (p.shape.parts ?? []).reduce((n, part) => n + part.requests, 0);

test('each neighbour is sent in a part of its reading; the core holds only what proves the parts judged real data', async () => {
  const planned = await neighbourPlans();
  expect(planned.length).toBeGreaterThan(0);
  // The cut query ISWC sends one neighbour (its ISWC and one digit more) and names the entry rightly: one
  // reading, nothing to take apart.
  for (const p of planned.filter((q) => !q.def.id.endsWith('.query.preferredIswc'))) {
    const parts = p.shape.parts ?? [];
    expect(parts.length, p.key).toBeGreaterThan(0);
    // What every selection sends: the counters' start and end with the count; a removal's entry named rightly;
    // a merge's demerge of the work no merge named and the entry merged; nothing for the run's agency code (the
    // end of a run a lenient server would open is counted to the part that opened it, at its most: a budget is a cap).
    const core = p.def.id === COUNTERS_CASE_ID ? 2 : p.def.id.includes('agencyWorks[]') ? 2 : p.def.operation === 'notifyAgentRun' ? 0 : 1;
    expect(coreOf(p), p.key).toBe(core);
  }
  const counters = planned.find((p) => p.key === `${COUNTERS_CASE_ID}@json`);
  const counterFields = neighbourFields().filter((c) => c.operation === 'notifyAgentRun' && c.type === 'integer');
  expect(counterFields.length).toBe(7);
  // One part per counter and reading, each one request (Python's underscores and digits of other scripts
  // spell the same number: readings, lib/contract/integer-readings.ts, not neighbours).
  for (const c of counterFields) {
    const mine = (counters?.shape.parts ?? []).filter((part) => part.id.startsWith(`${c.field}.`));
    expect(mine.map((part) => part.id.slice(c.field.length + 1))).toEqual(['strip-separators', 'fraction', 'wraparound']);
    expect(mine.every((part) => part.requests === 1)).toBe(true);
  }
  // The seven counters share one start and one end: 35 requests as seven cases, 23 as one.
  expect(counters?.shape.fixedRequests).toBe(23);
});

test('profile check still counts the counters as fields of their own', () => {
  const near = neighbourCoverage(embedded);
  // Beside the fields with a stated limit, the query preferredIswc of delete and demerge, whose pattern fixes a length.
  const cut = neighbourCases(embedded).filter((c) => c.id.endsWith('.query.preferredIswc')).length;
  expect(cut).toBe(2);
  expect(near.sent.length + near.left.length).toBe(neighbourFields().length + cut);
  expect(fieldsOfNeighbourCase({ id: COUNTERS_CASE_ID, title: 'POST /agent/run body a, b: x' })).toEqual(['POST /agent/run body a', 'POST /agent/run body b']);
});

test('a part taken alone is a complete proof: it catches its reading of its field, and sends only its requests and the core', async () => {
  const planned = await neighbourPlans();
  const counters = planned.find((p) => p.key === `${COUNTERS_CASE_ID}@json`) as PlannedCase;
  const take = 'updateRecordCount.strip-separators';
  const part = counters.shape.parts?.find((x) => x.id === take);
  expect(part).toBeDefined();
  for (const [fault, caught] of [
    ['lenient.run.updateRecordCount.strip-separators', true],
    ['lenient.run.newRecordCount.strip-separators', false],
    [undefined, false],
  ] as const) {
    const server = await startReferenceServer({ profile: embedded, key: EMBEDDED_KEY, faults: fault ? [fault] : [] });
    const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: 10_000 });
    try {
      const judge = createJudge({ strict: false, agency: embedded.agency, sourceDbs: keySourceDbs(embedded) });
      const outcome = await runPlannedCase({ ...counters, parts: [take] }, client, embedded, { seed: 1, runs: 1, strict: false }, judge);
      expect(outcome.stats.requests, String(fault)).toBe(coreOf(counters) + (part?.requests ?? 0));
      const failing = outcome.executions.filter((e) => e.verdict === 'fail');
      expect(failing.length > 0, `${fault}: ${failing.map((e) => `${e.checkId} ${e.step}`).join('; ')}`).toBe(caught);
      if (caught) expect(failing.some((e) => outcome.partOf.get(e) === take)).toBe(true);
    } finally {
      await client.close();
      await server.close();
    }
  }
});

test('what only the core shows after the parts counts for the whole case, never for the core alone', async () => {
  expect(attributedPart([], new Set(['']))).toBe('');
  expect(attributedPart([{ id: 'a', requests: 2 }, { id: 'b', requests: 1 }], new Set(['a', AFTER_PARTS]))).toBe('a');
  // Caught by the own steps of two parts: either taken alone catches it (cheapest first).
  expect(attributedPart([{ id: 'a', requests: 2 }, { id: 'b', requests: 1 }], new Set(['a', 'b', AFTER_PARTS]))).toEqual(['b', 'a']);
  expect(caughtInSelection(['b', 'a'], ['a'])).toBe(true);
  expect(caughtInSelection(['b', 'a'], ['c'])).toBe(false);
  expect(caughtInSelection(undefined, ['a'])).toBe(false);
  expect(caughtInSelection(undefined, undefined)).toBe(true);
  expect(attributedPart([{ id: 'a', requests: 2 }], new Set([AFTER_PARTS]))).toBeUndefined();
  // What the measurement runs again alone before it credits: the first part to fail is sure; a part that failed
  // after it may rest on what it sent, and so may the core's steps after the parts.
  expect(attributionToVerify(['', 'a', AFTER_PARTS])).toEqual({ sure: '', verify: [] });
  expect(attributionToVerify(['b', AFTER_PARTS, 'a'])).toEqual({ sure: 'b', verify: ['a'] });
  expect(attributionToVerify([AFTER_PARTS])).toEqual({ verify: [''] });

  // A server that matches the work code of a delete as a prefix: the neighbour without its last character is
  // taken (its part fails), and the entry named rightly afterwards is gone (the core fails, after the parts):
  // credited to the part.
  const planned = await neighbourPlans();
  const del = planned.find((p) => p.key === 'neighbours.deleteSubmission.query.workcode@none') as PlannedCase;
  const server = await startReferenceServer({ profile: embedded, key: EMBEDDED_KEY, faults: ['lenient.delete.workcode.prefix'] });
  const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: 10_000 });
  try {
    const judge = createJudge({ strict: false, agency: embedded.agency, sourceDbs: keySourceDbs(embedded) });
    const outcome = await runPlannedCase(del, client, embedded, { seed: 1, runs: 1, strict: false }, judge);
    const failing = outcome.executions.filter((e) => e.verdict === 'fail');
    const parts = new Set(failing.map((e) => outcome.partOf.get(e) ?? (outcome.afterParts.has(e) ? AFTER_PARTS : '')));
    expect(parts.has(AFTER_PARTS)).toBe(true);
    expect(parts.has('')).toBe(false);
    // Credited to the part that showed it, never to the core. (No trailing space is sent on this query: the
    // document states no limit for it, and a database ignores trailing spaces, docs/readings.md "Characters".)
    expect(attributedPart(del.shape.parts ?? [], parts)).toBe('prefix');
    expect((del.shape.parts ?? []).map((p) => p.id)).not.toContain('trim');
  } finally {
    await client.close();
    await server.close();
  }
});

test('a part that fails only on what an earlier part sent is not credited with the fault: the merge\'s key-works after key-shapes', async () => {
  // A key filter that reads the query once serves a merge whose preferredIswc is given twice without the key
  // (part key-shapes, which fails): the entry's works are then merged, and the demerge that part key-works
  // demands refused (nothing merged yet) succeeds, so key-works fails too, on what key-shapes sent. Run alone,
  // key-works sends no such merge and catches nothing: the measurement credits key-shapes only.
  const planned = (await planSuite(embedded, { destructive: true, runs: 1 })).find((p) => p.key === 'merge.success-then-demerge@json') as PlannedCase;
  const failingParts = async (parts: string[] | undefined): Promise<string[]> => {
    const server = await startReferenceServer({ profile: embedded, key: EMBEDDED_KEY, faults: ['key-skipped-param-twice'] });
    const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: 10_000 });
    try {
      const outcome = await runPlannedCase({ ...planned, ...(parts ? { parts } : {}) }, client, embedded, { seed: 1, runs: 1, strict: false }, createJudge({ strict: false, agency: embedded.agency, sourceDbs: keySourceDbs(embedded) }));
      return [...new Set(outcome.executions.filter((e) => e.verdict === 'fail').map((e) => outcome.partOf.get(e) ?? (outcome.afterParts.has(e) ? AFTER_PARTS : '')))];
    } finally {
      await client.close();
      await server.close();
    }
  };
  const whole = await failingParts(undefined);
  expect(whole.slice(0, 2)).toEqual(['key-shapes', 'key-works']);
  expect(attributionToVerify(whole)).toEqual({ sure: 'key-shapes', verify: whole.slice(1).filter((id) => id !== AFTER_PARTS) });
  expect(await failingParts(['key-works'])).toEqual([]);
  expect(await failingParts(['key-shapes'])).toEqual(['key-shapes']);
});
