import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import type { CheckExecution } from '../../lib/run/execution.ts';
import { runPlannedCase } from '../../lib/run/runner.ts';
import { shapeOf } from '../../lib/run/dry-run.ts';
import { planSuite } from '../../lib/run/plan.ts';
import { createJudge } from '../../lib/check/judge.ts';
import type { PlannedCase } from '../../lib/run/plan.ts';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { partition } from '../../lib/run/claims.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { buildStep, scenarioCases, scenarioCasesFrom } from '../../lib/generate/scenarios/cases.ts';
import type { Scope } from '../../lib/generate/scenarios/cases.ts';
import { ScenarioError, loadScenarios, parseScenarioFile } from '../../lib/generate/scenarios/load.ts';
import { parseTemplate } from '../../lib/generate/scenarios/refs.ts';
import type { ScenarioProblem } from '../../lib/generate/scenarios/types.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../../server/index.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

/** The problems a scenario text gives when loaded as a file of a temporary directory. */
function problemsOf(text: string, file = 'broken.yaml'): ScenarioProblem[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-scenarios-'));
  try {
    writeFileSync(path.join(dir, file), text);
    loadScenarios(dir);
    return [];
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems;
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const RUN_BODY = `
      body:
        agentVersion: x
        agencyCode: '\${profile.agency}'
        updateRecordCount: 1
        newRecordCount: 1
        overallRejected: 0
        overallSent: 1
        successfulCount: 1
        businessRejectionCount: 0
        technicalRejectionCount: 0`;

test('every shipped scenario loads, with unique ids, tags and the flows of the issue', async () => {
  const scenarios = loadScenarios();
  expect(scenarios.length).toBeGreaterThanOrEqual(20);
  expect(new Set(scenarios.map((s) => s.id)).size).toBe(scenarios.length);
  for (const s of scenarios) {
    expect(s.id).toMatch(/^scenario\.[a-z0-9-]+\.[a-z0-9-]+$/);
    expect(s.allTags).toContain('@scenario');
    if (s.uses) expect(s.allTags).toContain('@destructive');
  }
  const cases = scenarioCases(profile);
  const ops = new Set(cases.flatMap((c) => (c.operation ? [c.operation] : [])));
  expect([...ops].sort()).toEqual(['deleteSubmission', 'demergeIswcMetadata', 'mergeIswcMetadata', 'notifyAgentRun']);
  const checks = new Set((await Promise.all(cases.map((c) => shapeOf(c, c.formats[0] ?? 'json', profile)))).flatMap((shape) => shape.checks));
  for (const id of ['status.success', 'status.refused', 'limit.rejected', 'auth.required', 'outcome.merge', 'outcome.demerge', 'outcome.delete', 'outcome.identity']) expect(checks, id).toContain(id);
  expect(cases.filter((c) => c.tags.includes('@smoke')).length).toBeGreaterThan(5);
  // Body scenarios have their XML twin; bodiless ones run once.
  const run = cases.find((c) => c.id === 'scenario.run.start-then-end');
  expect(run?.formats).toEqual(['json', 'xml']);
  expect(cases.find((c) => c.id === 'scenario.submission.delete-then-repeat')?.formats).toEqual(['none']);
  // Disposable entries claimed across both formats stay within the budget (~8 of each kind).
  const demand = { merges: 0, demerges: 0, submissions: 0 };
  for (const c of cases) for (const claim of c.claims ?? []) demand[claim.kind] += claim.count * c.formats.length;
  for (const n of Object.values(demand)) expect(n).toBeLessThanOrEqual(8);
});

test('malformed scenario files fail at load with the file, the path inside it and the reason', () => {
  const head = `- name: one\n  description: d\n  tags: ['@x']\n  steps:\n`;
  const cases: Array<{ what: string; text: string; path: string; message: RegExp; line?: number }> = [
    { what: 'YAML syntax', text: 'name: [unclosed\n', path: '', message: /YAML/ },
    { what: 'not a scenario', text: '42\n', path: '', message: /scenario/ },
    { what: 'missing steps', text: '- name: one\n  description: d\n', path: '/0', message: /missing property "steps"/ },
    { what: 'tag without @', text: `- name: one\n  description: d\n  tags: [smoke]\n  steps: []\n`, path: '/0/tags/0', message: /pattern/ },
    {
      what: 'unknown check id',
      text: `${head}    - name: a\n      operation: deleteSubmission\n      expect:\n        - check: status.sucess\n          because: x\n`,
      path: '/0/steps/0/expect/0/check',
      message: /unknown check id "status.sucess"/,
      line: 8,
    },
    {
      what: 'every-exchange check',
      text: `${head}    - name: a\n      operation: deleteSubmission\n      expect:\n        - check: response.schema\n          because: x\n`,
      path: '/0/steps/0/expect/0/check',
      message: /every exchange/,
    },
    {
      what: 'missing because',
      text: `${head}    - name: a\n      operation: deleteSubmission\n      expect:\n        - check: status.not-found\n`,
      path: '/0/steps/0/expect/0',
      message: /missing property "because"/,
    },
    {
      what: 'unknown operation',
      text: `${head}    - name: a\n      operation: mergeIswc\n      expect:\n        - check: status.not-found\n          because: x\n`,
      path: '/0/steps/0/operation',
      message: /must be one of "notifyAgentRun"/,
    },
    {
      what: 'unknown generator',
      text: `${head}    - name: a\n      operation: deleteSubmission\n      query:\n        preferredIswc: { generate: iswc.nope }\n      expect:\n        - check: status.not-found\n          because: x\n`,
      path: '/0/steps/0/query/preferredIswc/generate',
      message: /unknown generator "iswc.nope"/,
    },
    {
      what: 'reference to a step not yet run',
      text: `${head}    - name: a\n      operation: notifyAgentRun${RUN_BODY}\n        runId: '\${steps.b.runId}'\n      expect:\n        - check: status.success\n          because: x\n    - name: b\n      operation: notifyAgentRun${RUN_BODY}\n      expect:\n        - check: status.success\n          because: x\n`,
      path: '/0/steps/0/body/runId',
      message: /no step "b" runs before this one/,
    },
    {
      what: 'entry not claimed',
      text: `${head}    - name: a\n      operation: demergeIswcMetadata\n      query:\n        preferredIswc: '\${entry.demerges[0].preferredIswc}'\n      expect:\n        - check: status.not-found\n          because: x\n`,
      path: '/0/steps/0/query/preferredIswc',
      message: /does not claim demerges/,
    },
    {
      what: 'success on shared data',
      text: `${head}    - name: a\n      operation: deleteSubmission\n      query:\n        preferredIswc: T0345246801\n      expect:\n        - check: status.success\n          because: x\n`,
      path: '/0/steps/0/expect/0/check',
      message: /claimed disposable entries/,
    },
    {
      what: 'missing check parameter',
      text: `${head}    - name: a\n      method: PUT\n      path: /agent/run\n      expect:\n        - check: http.method-not-allowed\n          because: x\n`,
      path: '/0/steps/0/expect/0',
      message: /needs the parameter "path"/,
    },
    {
      what: 'body on a bodiless operation',
      text: `${head}    - name: a\n      operation: demergeIswcMetadata\n      body: {}\n      expect:\n        - check: status.not-found\n          because: x\n`,
      path: '/0/steps/0/body',
      message: /takes no body/,
    },
    {
      what: 'malformed reference',
      text: `${head}    - name: a\n      operation: demergeIswcMetadata\n      query:\n        agency: '\${profile.agency'\n      expect:\n        - check: status.not-found\n          because: x\n`,
      path: '/0/steps/0/query/agency',
      message: /unclosed/,
    },
    {
      what: 'key in headers',
      text: `${head}    - name: a\n      operation: demergeIswcMetadata\n      headers:\n        Ocp-Apim-Subscription-Key: secret\n      expect:\n        - check: status.not-found\n          because: x\n`,
      path: '/0/steps/0/headers/Ocp-Apim-Subscription-Key',
      message: /never written in a scenario/,
    },
  ];
  for (const c of cases) {
    const problems = problemsOf(c.text);
    const hit = problems.find((p) => p.path === c.path && c.message.test(p.message));
    expect(hit, `${c.what}: got ${JSON.stringify(problems)}`).toBeTruthy();
    expect(hit?.file).toMatch(/broken\.yaml$/);
    if (c.line !== undefined) expect(hit?.line, c.what).toBe(c.line);
  }
  // The error message itself names file, line and path.
  try {
    parseScenarioFile('/tmp/x/bad.yaml', cases[4]?.text ?? '');
    throw new Error('no error');
  } catch (e) {
    expect((e as Error).message).toContain('/tmp/x/bad.yaml:8:');
    expect((e as Error).message).toContain('at /0/steps/0/expect/0/check: unknown check id');
  }
});

test('a reference to a field no profile has is refused at load; an index a profile lacks is a need, planned as a skip', async () => {
  const scenario = (ref: string) =>
    `name: p\ndescription: d\nsteps:\n  - name: a\n    operation: demergeIswcMetadata\n    query:\n      preferredIswc: '\${${ref}}'\n    expect:\n      - check: status.not-found\n        because: x\n`;
  expect(() => parseScenarioFile('p.yaml', scenario('profile.iswc[0]'))).toThrow(/p\.yaml:7:\d+ at \/steps\/0\/query\/preferredIswc: \$\{profile\.iswc\[0\]\}: the target profile has no field "iswc"; did you mean "iswcs"\?/);
  expect(() => parseScenarioFile('p.yaml', scenario('profile.merges[0].agencyWork'))).toThrow(/a merges entry has no field "agencyWork"; did you mean "agencyWorks"\?/);
  const [s] = parseScenarioFile('p.yaml', scenario('profile.iswcs[99]'));
  if (!s) throw new Error('no scenario');
  const [def] = scenarioCasesFrom([s]);
  if (!def) throw new Error('no case');
  expect(def.needs).toEqual([{ list: 'iswcs', atLeast: 100 }]);
  const [planned] = await planSuite(profile, { destructive: false }, [def]);
  expect(planned?.skipReason).toBe(`needs ${100 - profile.iswcs.length} more iswcs`);
});

test('references resolve: whole strings keep their type, longer strings interpolate, generators replay from the seed', () => {
  expect(parseTemplate('a $${b} ${format}')).toEqual(['a ${b} ', { text: 'format', root: 'format', path: [] }]);
  const scope = (): Scope => ({
    profile,
    entries: { merges: [profile.merges[3]] },
    format: 'json',
    steps: new Map([['start', { status: 200, runId: 'run-42', body: '{"runId":"run-42"}' }]]),
    baseSeed: 7,
    generated: [],
  });
  const step = buildStep(
    {
      name: 'x',
      operation: 'mergeIswcMetadata',
      query: { preferredIswc: '${entry.merges[0].preferredIswc}', agency: '${profile.agency}', extra: null },
      body: { iswcs: '${entry.merges[0].iswcs}', agencyWorks: [], note: 'run ${steps.start.runId} in ${format}' },
      expect: [{ check: 'status.success', because: 'status was ${steps.start.status}' }],
    },
    scope(),
  );
  const entry = profile.merges[3];
  expect(step.request.query).toEqual([
    ['preferredIswc', entry?.preferredIswc],
    ['agency', profile.agency],
  ]);
  expect(JSON.parse(String(step.request.body))).toEqual({ iswcs: entry?.iswcs, agencyWorks: [], note: 'run run-42 in json' });
  expect(step.expect[0]?.params).toEqual({ because: 'status was 200' });

  const generated = { name: 'g', operation: 'deleteSubmission' as const, query: { sourceDb: { generate: 'int32.valid' }, preferredIswc: { generate: 'iswc.unknown', seed: 3 } }, expect: [{ check: 'status.not-found', because: 'x' }] };
  const first = buildStep(generated, scope());
  const again = buildStep(generated, scope());
  expect(first.request.query).toEqual(again.request.query);
  expect(first.label).toBe('g [generated int32.valid, iswc.unknown seed 3; replay with ISWC_SEED=7]');
  expect(profile.unknownIswcs).toContain(first.request.query?.find(([k]) => k === 'preferredIswc')?.[1]);

  const other = buildStep({ name: 'o', operation: 'deleteSubmission', query: { sourceDb: { firstOf: [128, 300], except: '${profile.submissions[0].sourceDb}' } }, expect: [{ check: 'status.not-found', because: 'x' }] }, scope());
  expect(other.request.query).toEqual([['sourceDb', '300']]);
});

test('every scenario passes against the embedded reference server, in every format', async () => {
  const server = await startReferenceServer({ profile, key: EMBEDDED_KEY });
  const client = createHttpClient({ baseUrl: server.url, key: EMBEDDED_KEY, timeoutMs: REQUEST_TIMEOUT_MS });
  try {
    const cases = scenarioCases(profile);
    const planned: PlannedCase[] = await Promise.all(cases.flatMap((def) => def.formats.map(async (format) => ({ def, format, project: format === 'xml' ? ('xml' as const) : ('json' as const), key: `${def.id}@${format}`, entries: {}, shape: await shapeOf(def, format, profile) }))));
    const allocation = partition(
      profile,
      planned.flatMap((p) => (p.def.claims ?? []).map((c) => ({ key: `${p.key}#${c.kind}`, kind: c.kind, count: c.count }))),
    );
    for (const p of planned) {
      for (const claim of p.def.claims ?? []) {
        const got = allocation.get(`${p.key}#${claim.kind}`);
        if (!got?.ok) throw new Error(`no ${claim.kind} for ${p.key}`);
        p.entries[claim.kind] = got.entries;
      }
    }
    const executions: CheckExecution[] = (await Promise.all(planned.map(async (p) => (await runPlannedCase(p, client, profile, { seed: 4242, runs: 1, strict: true }, createJudge({ strict: true, agency: profile.agency }))).executions))).flat();
    const failures = executions.filter((e) => e.verdict === 'fail').map((e) => `${e.caseId} / ${e.step} (${e.format}) ${e.checkId}: ${e.received ?? ''}`);
    expect(failures).toEqual([]);
    // Every planned case ran every step, and the targeted checks it declares were applied.
    for (const p of planned) {
      const own = executions.filter((e) => e.caseId === p.def.id && e.format === (p.format === 'none' ? 'json' : p.format));
      for (const id of p.shape.checks) expect(own.some((e) => e.checkId === id), `${p.key} ${id}`).toBe(true);
    }
    const generated = executions.filter((e) => e.step.includes('replay with ISWC_SEED=4242'));
    expect(generated.length).toBeGreaterThan(0);
    expect(generated.every((e) => e.seed === 4242)).toBe(true);
  } finally {
    await client.close();
    await server.close();
  }
});
