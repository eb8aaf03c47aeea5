import { expect, _baseTest as test } from '@playwright/test';
import { createJudge } from '../../lib/check/judge.ts';
import { runIdOf } from '../../lib/contract/answer.ts';
import type { RequestSpec } from '../../lib/contract/exchange.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import type { TargetProfile } from '../../lib/contract/profile/types.ts';
import type { CaseDef } from '../../lib/generate/case.ts';
import { expectCheck } from '../../lib/generate/expectations.ts';
import { bodyRequest } from '../../lib/generate/requests.ts';
import { validAgentRun } from '../../lib/generate/templates.ts';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { RunGate } from '../../lib/run/open-runs.ts';
import { carriedRunId, withRunId } from '../../lib/run/run-ids.ts';
import { runPlannedCase } from '../../lib/run/runner.ts';
import { fewestRequestsOf, requestsOf, shapeOf } from '../../lib/run/dry-run.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const RUN = 'notifyAgentRun';

test.describe('runIds "client": a runId of the harness written into every agent run without one', () => {
  test('JSON: inserted, the rest kept byte for byte (padding included)', () => {
    const plain = bodyRequest(RUN, 'json', validAgentRun(profile));
    const padded: RequestSpec = { ...plain, body: `${plain.body as string}   ` };
    const shaped = withRunId(RUN, padded, 'client');
    const runId = carriedRunId(RUN, shaped);
    expect(runId).toMatch(/^iswc-conformance-[0-9a-f-]{36}$/);
    expect((shaped.body as string).endsWith(`${(plain.body as string).slice(1)}   `)).toBe(true);
    expect(JSON.parse(shaped.body as string)).toEqual({ ...validAgentRun(profile), runId });
    expect(carriedRunId(RUN, withRunId(RUN, bodyRequest(RUN, 'json', {}), 'client'))).toMatch(/^iswc-conformance-/);
  });

  test('XML: inserted where the field order puts runId (after agencyCode), indentation kept', () => {
    const plain = bodyRequest(RUN, 'xml', validAgentRun(profile));
    const indented: RequestSpec = { ...plain, body: (plain.body as string).replace(/></g, '>\n  <') };
    const shaped = withRunId(RUN, indented, 'client').body as string;
    expect(shaped).toMatch(new RegExp(`</agencyCode>\\n  <runId>iswc-conformance-[0-9a-f-]{36}</runId><updateRecordCount>`));
    expect(shaped.replace(/<runId>[^<]*<\/runId>/, '')).toBe(indented.body);
  });

  test('left alone: the default (server), a body that carries a runId, a body that is not an agent run, another operation', () => {
    const start = bodyRequest(RUN, 'json', validAgentRun(profile));
    expect(withRunId(RUN, start, 'server')).toBe(start);
    const end = bodyRequest(RUN, 'xml', { ...validAgentRun(profile), runId: 'R-1' });
    expect(withRunId(RUN, end, 'client')).toBe(end);
    for (const body of ['{"agencyCode": "128", ', '[]', '<AgentRun><agencyCode>128</agencyCode>']) {
      const broken: RequestSpec = { ...start, body };
      expect(withRunId(RUN, broken, 'client')).toBe(broken);
    }
    const merge = bodyRequest('mergeIswcMetadata', 'json', { iswcs: [] });
    expect(withRunId('mergeIswcMetadata', merge, 'client')).toBe(merge);
  });
});

test('the run gate lets one holder at a time, in the order they asked', async () => {
  const gate = new RunGate();
  const [a, b, c] = [{}, {}, {}];
  const order: string[] = [];
  await gate.acquire(a);
  await gate.acquire(a);
  const waitB = gate.acquire(b).then(() => order.push('b'));
  const waitC = gate.acquire(c).then(() => order.push('c'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(order).toEqual([]);
  gate.release(b);
  gate.release(a);
  await waitB;
  expect(order).toEqual(['b']);
  gate.release(b);
  await waitC;
  expect(order).toEqual(['b', 'c']);
});

/** A case that starts runs and never ends them itself. */
const leavesRunsOpen = (starts: number, id: string): CaseDef => ({
  id,
  title: `${starts} starts, none ended by the case`,
  operation: RUN,
  formats: ['json'],
  tags: [],
  async run(ctx) {
    for (let i = 0; i < starts; i++) {
      await ctx.send({ label: `start ${i + 1}`, operation: RUN, request: bodyRequest(RUN, 'json', validAgentRun(ctx.profile)), expect: [expectCheck('status.success', { because: 'a valid agent run starts a run' })] });
    }
  },
});

async function runCases(p: TargetProfile, choices: readonly string[], defs: readonly CaseDef[]) {
  const server = await startReferenceServer({ profile: p, key: EMBEDDED_KEY, choices });
  const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: REQUEST_TIMEOUT_MS });
  const judge = createJudge({ strict: true, agency: p.agency });
  try {
    const planned = await Promise.all(defs.map(async (def) => ({ def, format: 'json' as const, project: 'json' as const, key: `${def.id}@json`, entries: {}, shape: await shapeOf(def, 'json', p) })));
    const outcomes = await Promise.all(planned.map((c) => runPlannedCase(c, client, p, { seed: 1, runs: 1, strict: true }, judge)));
    // Every run the cases started was ended: a server that allows one open run takes a new start.
    const after = await client.send(bodyRequest(RUN, 'json', { ...validAgentRun(p), ...(p.runIds === 'client' ? { runId: 'after-the-cases' } : {}) }));
    return { outcomes, after };
  } finally {
    await client.close();
    await server.close();
  }
}

test('every run a case starts is ended when the case ends; with openRuns "one", before it starts another, and cases take turns', async () => {
  const one: TargetProfile = { ...profile, openRuns: 'one' };
  const { outcomes, after } = await runCases(one, ['one-open-run'], [leavesRunsOpen(3, 'a'), leavesRunsOpen(2, 'b'), leavesRunsOpen(1, 'c')]);
  const failures = outcomes.flatMap((o) => o.executions).filter((e) => e.verdict === 'fail');
  expect(failures.map((f) => `${f.caseId} ${f.step} ${f.received}`)).toEqual([]);
  expect(outcomes.map((o) => o.exchanges.filter((e) => e.label.startsWith('end the run')).length)).toEqual([3, 2, 1]);
  expect(after.response?.status).toBe(200);
});

test('with the default (many open runs), runs are left open until the case ends, then ended', async () => {
  const { outcomes, after } = await runCases(profile, ['one-open-run'], [leavesRunsOpen(1, 'single')]);
  expect(outcomes[0]?.exchanges.map((e) => e.label)).toEqual(['start 1', `end the run ${runIdOf(outcomes[0]?.exchanges[0]?.exchange ?? ({} as never)) ?? ''} the case left open`]);
  expect(after.response?.status).toBe(200);
});

test('with runIds "client", starts carry the harness\'s runId and are ended with it', async () => {
  const client: TargetProfile = { ...profile, runIds: 'client', openRuns: 'one' };
  const { outcomes, after } = await runCases(client, ['run-id-client-chosen', 'one-open-run'], [leavesRunsOpen(2, 'named')]);
  expect(outcomes.flatMap((o) => o.executions).filter((e) => e.verdict === 'fail')).toEqual([]);
  expect(outcomes[0]?.exchanges.filter((e) => e.label.startsWith('end the run iswc-conformance-')).length).toBe(2);
  expect(after.response?.status).toBe(200);
});

test('the dry run counts the end the runner sends for every run a case leaves open (request budgets hold)', async () => {
  expect((await shapeOf(leavesRunsOpen(3, 'counted'), 'json', profile)).fixedRequests).toBe(6);
  const endsItsOwn: CaseDef = {
    ...leavesRunsOpen(0, 'ends-its-own'),
    async run(ctx) {
      const start = await ctx.send({ label: 'start', operation: RUN, request: bodyRequest(RUN, 'json', validAgentRun(ctx.profile)), expect: [] });
      await ctx.send({ label: 'end', operation: RUN, request: bodyRequest(RUN, 'json', { ...validAgentRun(ctx.profile), runId: runIdOf(start) ?? 'none' }), expect: [] });
    },
  };
  expect((await shapeOf(endsItsOwn, 'json', profile)).fixedRequests).toBe(2);
});

/** A generated case: one start a run, refused or accepted as `demand` says, none ended by the case. */
const triesStarts = (id: string, demand: 'limit.accepted' | 'limit.rejected'): CaseDef => ({
  id,
  title: `starts demanding ${demand}`,
  operation: RUN,
  formats: ['json'],
  tags: [],
  async run(ctx) {
    for (let i = 0; i < ctx.runs; i++) {
      await ctx.probe({ label: `start ${i + 1}`, operation: RUN, request: bodyRequest(RUN, 'json', validAgentRun(ctx.profile)), expect: [expectCheck(demand, { because: 'a generated start' })] });
    }
  },
});

test("the plan's fewest of a generated case: the runs it may see refused open nothing to end; those it demands accepted are ended", async () => {
  const refusable = await shapeOf(triesStarts('refusable', 'limit.rejected'), 'json', profile);
  expect([requestsOf(refusable, 100), fewestRequestsOf(refusable, 100)]).toEqual([200, 100]);
  expect([requestsOf(refusable, 10), fewestRequestsOf(refusable, 10)]).toEqual([20, 10]);
  const demanded = await shapeOf(triesStarts('demanded', 'limit.accepted'), 'json', profile);
  expect(demanded.fewestSamples).toBeUndefined();
  expect([requestsOf(demanded, 100), fewestRequestsOf(demanded, 100)]).toEqual([200, 200]);
});
