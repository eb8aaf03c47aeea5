/**
 * A plan that learns the target (issue 31, lib/run/steer.ts): under a request budget, what the first
 * answers show steers the rest of the budget away from cases that can tell nothing on this target, to the
 * cases next in the ranking. Its effect on faults the ranking never saw is measured by
 * `npm run plan:heldout -- --steer` (docs/performance.md); here, that it learns from answers only, never
 * leaves a spec check unexercised for it, and keeps to the budget.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { expect, _baseTest as test } from '@playwright/test';
import type { Exchange } from '../../lib/contract/exchange.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { Step } from '../../lib/generate/case.ts';
import { expectCheck } from '../../lib/generate/expectations.ts';
import { bodyRequest, queryRequest } from '../../lib/generate/requests.ts';
import { validAgentRun, queryFor } from '../../lib/generate/templates.ts';
import { runSuiteWithOutcome } from '../../lib/engine/pipeline.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { probesFirst, TargetLearner, tellsNothing } from '../../lib/run/steer.ts';
import { operation } from '../../lib/contract/operations.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

function answered(status: number): Exchange {
  return {
    request: { method: 'POST', url: 'http://t/agent/run', headers: {}, body: '', bodyBytes: 0, bodyTruncated: false, auth: 'key' },
    response: { status, headers: {}, body: '', bodyBytes: 0, truncated: false },
    durationMs: 1,
    attempts: 1,
    waitedMs: 0,
  };
}

const start = (format: 'json' | 'xml'): Step => ({
  label: 'start a run',
  operation: 'notifyAgentRun',
  request: bodyRequest('notifyAgentRun', format, validAgentRun(profile)),
  expect: [expectCheck('status.success', { because: 'a valid run' })],
});

test('traits come from answers the document fixes: a format refused while the other is accepted, 404 before validation', () => {
  const learner = new TargetLearner(profile.unknownIswcs);
  learner.observe(start('xml'), 'xml', answered(415));
  expect(learner.traits().notServed.xml).toBeUndefined();
  learner.observe(start('xml'), 'xml', answered(415));
  // Two refusals are no trait while nothing shows the target accepts anything at all.
  expect(learner.traits().notServed.xml).toBeUndefined();
  learner.observe(start('json'), 'json', answered(200));
  expect(learner.traits().notServed.xml).toMatch(/refused 2 times and none accepted/);
  expect(learner.traits().notServed.json).toBeUndefined();
  // One XML body accepted: the target serves XML after all, whatever it refused.
  learner.observe(start('xml'), 'xml', answered(200));
  expect(learner.traits().notServed.xml).toBeUndefined();

  const lookup = new TargetLearner(profile.unknownIswcs);
  const demerge: Step = {
    label: 'demerge a work code of 21 characters from an unknown preferred ISWC',
    operation: 'demergeIswcMetadata',
    request: queryRequest('demergeIswcMetadata', queryFor('demergeIswcMetadata', { preferredIswc: profile.unknownIswcs[0], agency: '128', workcode: 'X'.repeat(21) })),
    expect: [expectCheck('query.refused', { because: 'test' })],
  };
  lookup.observe(demerge, 'none', answered(404));
  lookup.observe(demerge, 'none', answered(404));
  expect(lookup.traits().looksUpFirst).toMatch(/answered 404/);
  lookup.observe(demerge, 'none', answered(400));
  expect(lookup.traits().looksUpFirst).toBeUndefined();
});

test('a case is steered away only when every spec check it exercises was exercised already, and probes of each format go first', async () => {
  const planned = (await planSuite(profile, { destructive: true, runs: 100 })).filter((p) => !p.skipReason);
  const xml = planned.find((p) => p.key === 'run.start-and-end@xml');
  expect(xml).toBeDefined();
  if (!xml) return;
  const traits = { notServed: { xml: 'valid XML bodies refused' }, habits: new Set<string>() };
  expect(tellsNothing(xml, traits, new Set())).toBeUndefined();
  expect(tellsNothing(xml, traits, new Set(xml.shape.checks))).toMatch(/steered away: valid XML bodies refused: the target serves no XML/);
  const ordered = probesFirst(planned, (p) => [p]);
  expect(ordered.slice(0, 2).map((p) => p.format)).toEqual(['json', 'xml']);
  expect(ordered.slice(0, 2).every((p) => p.shape.checks.includes('status.success'))).toBe(true);
  // Then the first case on each other path: the first answers come from every path (a wrong base path shows on two).
  const paths = ordered.slice(0, 4).map((p) => (p.def.operation ? operation(p.def.operation).path : ''));
  expect(new Set(paths)).toEqual(new Set(['/agent/run', '/iswc/merge', '/submission']));
});

test('against a target that reads no XML, a budget of 60 spends what XML cases would have sent on JSON cases next in the ranking, within the budget', async () => {
  const server = await startReferenceServer({ profile, key: EMBEDDED_KEY, faults: ['xml-bodies-415'] });
  try {
    let sent = 0;
    const count = (): void => {
      sent += 1;
    };
    const run = async (steer: boolean) => {
      sent = 0;
      subscribe('undici:request:create', count);
      try {
        const result = await runSuiteWithOutcome({ baseUrl: server.url, key: EMBEDDED_KEY, profile, destructive: false, concurrency: 1, budget: 60, steer, settings: { seed: 1, runs: 100, strict: false } });
        return { ...result, sent };
      } finally {
        unsubscribe('undici:request:create', count);
      }
    };
    const sentJson = (executions: Awaited<ReturnType<typeof run>>['executions']) => new Set(executions.filter((e) => e.verdict !== 'skip' && e.format === 'json').map((e) => e.caseId)).size;
    const plain = await run(false);
    const steered = await run(true);
    const steeredAway = steered.executions.filter((e) => e.verdict === 'skip' && /steered away: .*the target serves no XML/.test(e.skipReason ?? ''));
    expect(steeredAway.length).toBeGreaterThan(0);
    expect(sentJson(steered.executions)).toBeGreaterThan(sentJson(plain.executions));
    expect(steered.sent).toBeLessThanOrEqual(60);
    // The fault is still shown, by the cases that saw it.
    expect(steered.executions.some((e) => e.verdict === 'fail' && e.format === 'xml')).toBe(true);
    // Every spec check the plain run exercised, the steered one exercises too.
    const spec = (executions: typeof plain.executions) => new Set(executions.filter((e) => e.level === 'spec' && e.verdict !== 'skip').map((e) => e.checkId));
    expect([...spec(plain.executions)].filter((c) => !spec(steered.executions).has(c))).toEqual([]);
  } finally {
    await server.close();
  }
});
