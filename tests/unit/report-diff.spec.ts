import { cliInProcess, runCli, runCliAsync } from '../support/cli.ts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { diffReports, groupByCheckAndOperation, renderDiffHtml, renderDiffMarkdown } from '../../lib/report/diff.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';
import { sharedReport } from '../support/shared-report.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { readReport } from '../../lib/report/validate.ts';
import { parseRunArgs } from '../../lib/cli/run-args.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { childEnv } from '../support/run-playwright.ts';


let base: ConformanceReport;
let head: ConformanceReport;
let again: ConformanceReport;

/** The observed execution whose facts the "head build" changes: an error answer of the merge (a request whose verdicts stay). */
function changeObserved(report: ConformanceReport): string {
  const e = report.executions.find((x) => x.verdict === 'observed' && x.checkId === 'observed.error-body' && x.operation === 'mergeIswcMetadata' && x.observation);
  if (!e?.observation) throw new Error('fixture: no observed error body');
  e.observation = { ...e.observation, contentType: 'application/problem+json', body: 'json {title: string, status: number}' };
  return e.caseId;
}

// In order, in one worker: the tests share what test.beforeAll makes (whole runs), which every worker
// running one of them would otherwise make again.
test.describe.configure({ mode: 'default' });

test.beforeAll(async () => {
  // Three whole runs at once: a loaded machine takes minutes (the default 60 s timed out while other suites ran).
  test.setTimeout(240_000);
  // `again` is a run of its own: two runs of the same server must differ in nothing.
  [base, head, again] = await Promise.all([sharedReport(), inProcessReport({ faults: ['run-bad-request-text'] }), inProcessReport()]);
});

test('two runs of the same server differ in nothing, settings included', () => {
  const d = diffReports(base, again);
  expect([d.newlyFailing, d.newlyPassing, d.newlySkipped, d.observedChanged].map((l) => l.length)).toEqual([0, 0, 0, 0]);
  expect(d.settings).toEqual([]);
  expect(d.specRegression).toBe(false);
});

test('newly failing, passing and skipped, grouped by check × operation, with both exchanges; observed echoes of a failure are not listed again', () => {
  const headCopy = JSON.parse(JSON.stringify(head)) as ConformanceReport;
  const changedCase = changeObserved(headCopy);
  const skipped = headCopy.executions.find((e) => e.verdict === 'pass' && e.checkId === 'outcome.merge');
  if (!skipped) throw new Error('fixture: no outcome.merge');
  skipped.verdict = 'skip';
  skipped.skipReason = 'non-destructive';
  const d = diffReports(base, headCopy);
  const failing = head.executions.filter((e) => e.verdict === 'fail');
  expect(d.newlyFailing).toHaveLength(failing.length);
  expect(d.newlyFailing.every((e) => e.checkId === 'text.bad-request')).toBe(true);
  expect(d.specRegression).toBe(true);
  expect(d.newlySkipped.map((e) => e.checkId)).toEqual(['outcome.merge']);

  // The faulty build also changes the observed error body of the very answers that newly fail ("Invalid
  // request"): echoes, folded into the failing entries, not listed as observed changes.
  const request = (e: { caseId: string; format: string; step: string }) => `${e.caseId} ${e.format} ${e.step}`;
  const failingRequests = new Set(d.newlyFailing.map(request));
  const echoes = head.executions.filter((e) => e.verdict === 'observed' && e.checkId === 'observed.error-body' && failingRequests.has(request(e)) && /Invalid request/.test(e.received ?? ''));
  expect(echoes.length).toBeGreaterThan(0);
  expect(d.echoes).toBeGreaterThanOrEqual(echoes.length);
  expect(d.observedChanged.filter((o) => failingRequests.has(request(o))).map((o) => o.key)).toEqual([]);
  expect(d.newlyFailing.some((e) => e.echoes.some((c) => c.fact === 'observed.error-body: body'))).toBe(true);
  // What is left: changes on requests whose verdicts did not change (probes of open points, judged by
  // observed checks only, answer "Invalid request" too), and the change planted on a merge answer.
  expect(d.observedChanged.length).toBeGreaterThan(0);
  expect(d.observedChanged.every((o) => o.level === 'observed')).toBe(true);
  expect(d.observedChanged.find((o) => o.caseId === changedCase)?.changes.map((c) => c.fact).sort()).toEqual(['body', 'contentType']);
  // Against the same clean server, the one planted change is the only thing listed.
  const cleanCopy = JSON.parse(JSON.stringify(again)) as ConformanceReport;
  const plantedCase = changeObserved(cleanCopy);
  const only = diffReports(base, cleanCopy);
  expect([only.newlyFailing, only.newlyPassing, only.newlySkipped].map((l) => l.length)).toEqual([0, 0, 0]);
  expect(only.observedChanged.map((o) => o.caseId)).toEqual([plantedCase]);
  expect(only.echoes).toBe(0);

  // Both exchanges: the base side's passing check kept none, another check of the same request did.
  const baseRequests = new Set(base.executions.filter((e) => e.exchange).map(request));
  const withBase = d.newlyFailing.filter((e) => baseRequests.has(request(e)));
  expect(withBase.length).toBeGreaterThan(0);
  expect(withBase.every((e) => e.baseExchange && e.headExchange)).toBe(true);
  expect(withBase.every((e) => e.base?.exchange === undefined)).toBe(true);

  // Grouped by check × operation: one group here, in the Markdown and the HTML.
  expect(groupByCheckAndOperation(d.newlyFailing).map((g) => `${g.checkId} ${g.operation} ${g.entries.length}`)).toEqual([`text.bad-request notifyAgentRun ${failing.length}`]);
  const markdown = renderDiffMarkdown(d);
  expect(markdown).toContain('## Newly failing');
  expect(markdown.match(/### `text\.bad-request` \[spec, §4\.1, §7\] — run notification/g)).toHaveLength(1);
  expect(markdown).toContain('application/problem+json');
  expect(markdown).toContain('observed with it: observed.error-body: body');
  const html = renderDiffHtml(d);
  expect(html.match(/<details class="group" data-check="text\.bad-request" data-op="notifyAgentRun"/g)).toHaveLength(1);
  expect(html).toContain('<h4>Base</h4>');
  expect(html).toContain('<h4>Head</h4>');
  const shownBoth = (html.match(/<details class="entry"/g) ?? []).length;
  expect(shownBoth).toBe(d.newlyFailing.length + d.newlySkipped.length + d.observedChanged.length);

  const back = diffReports(headCopy, base);
  // Each failure passes again, where the base has the check for that case at all: a property that probes an
  // open point judges "Bad Request" only on the 400s it happened to get, and the base's last input may be a 200.
  const judgedInBase = new Set(base.executions.map((e) => `${e.caseId} ${e.format} ${e.checkId}`));
  expect(back.newlyPassing.length).toBe(failing.filter((e) => judgedInBase.has(`${e.caseId} ${e.format} ${e.checkId}`)).length + 1);
  expect(back.specRegression).toBe(false);
});

test('a property failure that went away is newly passing, not "only in base"; one that appears is newly failing', () => {
  const withFailure = JSON.parse(JSON.stringify(base)) as ConformanceReport;
  const property = withFailure.executions.find((e) => e.caseId.startsWith('property.') && e.verdict === 'pass' && e.level === 'spec');
  if (!property) throw new Error('fixture: no passing property check');
  const passedAt = property.step;
  // The run that found a counterexample records the check under the counterexample's step.
  property.step = 'counterexample after 3 runs (shrunk)';
  property.verdict = 'fail';
  property.received = '422 text/plain "Unprocessable"';
  const fixed = diffReports(withFailure, base);
  expect(fixed.newlyPassing.map((e) => `${e.checkId} ${e.caseId} ${e.base?.step} -> ${e.head?.step}`)).toEqual([`${property.checkId} ${property.caseId} ${property.step} -> ${passedAt}`]);
  expect(fixed.newlyPassing[0]?.note).toContain('head passes this check of the case');
  expect(fixed.onlyInBase).toBe(0);
  expect(fixed.newlyFailing).toEqual([]);

  const broken = diffReports(base, withFailure);
  expect(broken.newlyFailing.map((e) => `${e.checkId} ${e.caseId}`)).toEqual([`${property.checkId} ${property.caseId}`]);
  expect(broken.newlyFailing[0]?.base?.step).toBe(passedAt);
  expect(broken.specRegression).toBe(true);
});

test('settings that differ (strict, plan, profile, harness version) are flagged at the top', () => {
  const other = JSON.parse(JSON.stringify(again)) as ConformanceReport;
  other.meta = { ...other.meta, strict: true, profile: 'staging-imro', harnessVersion: '0.2.0', plan: { name: 'smoke', budget: 15 } };
  const d = diffReports(base, other);
  expect(d.settings.map((s) => s.setting)).toEqual(['profile', 'harness version', 'strict (ISWC_STRICT)', 'plan (ISWC_PLAN, ISWC_BUDGET)']);
  expect(d.settings.find((s) => s.setting.startsWith('plan'))).toMatchObject({ base: 'full', head: 'smoke, budget 15' });
  const markdown = renderDiffMarkdown(d);
  expect(markdown.indexOf('⚠ The runs differ in 4 settings')).toBeGreaterThan(0);
  expect(markdown.indexOf('⚠ The runs differ')).toBeLessThan(markdown.indexOf('newly failing'));
  expect(renderDiffHtml(d)).toContain('<tr class="setting"><td>strict (ISWC_STRICT)</td><td>false</td><td>true</td></tr>');
});

test('report:diff writes diff.md and diff.html and exits 1 on a spec regression; report:baseline feeds it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-diff-'));
  try {
    const baseFile = path.join(dir, 'base.json');
    const headFile = path.join(dir, 'head.json');
    writeFileSync(baseFile, JSON.stringify(base));
    writeFileSync(headFile, JSON.stringify(head));
    const { code, stdout } = runCli(['diff', baseFile, headFile, '--out', dir]);
    expect(code).toBe(1);
    expect(stdout).toContain('# ISWC conformance: regression diff');
    expect(readFileSync(path.join(dir, 'diff.md'), 'utf8')).toBe(stdout);
    // The verdict line of diff.md is in diff.html too, at the top.
    expect(stdout).toContain('**Result: a `spec` check newly fails (exit status 1).**');
    expect(readFileSync(path.join(dir, 'diff.html'), 'utf8')).toContain('<span id="result" class="badge bad" data-spec-regression="yes">Result: a spec check newly fails (exit status 1).</span></h1>');

    // Baseline, then a diff against it with one argument: the same run, no regression (in this process:
    // the guide of regressions runs both commands as a user does).
    const baseline = path.join(dir, 'baselines', 'conformance.json');
    expect((await cliInProcess(['baseline', baseFile, '--out', baseline])).code).toBe(0);
    expect(readFileSync(baseline, 'utf8')).toBe(readFileSync(baseFile, 'utf8'));
    const same = (await cliInProcess(['diff', baseline, baseFile, '--out', dir])).stdout;
    expect(same).toContain('Result: no `spec` check newly fails (exit status 0).');
    expect(readFileSync(path.join(dir, 'diff.html'), 'utf8')).toContain('<span id="result" class="badge ok" data-spec-regression="no">Result: no spec check newly fails (exit status 0).</span>');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two runs with their own seeds: generated inputs are compared by case and check, never listed as observed changes', async () => {
  const [one, two] = await Promise.all([inProcessReport({ seed: 1 }), inProcessReport({ seed: 2 })]);
  const generatedKeys = (r: ConformanceReport) => new Set(r.executions.filter((e) => e.seed !== undefined).map((e) => `${e.caseId} ${e.format} ${e.step} ${e.checkId}`));
  const [a, b] = [generatedKeys(one), generatedKeys(two)];
  // The noise of the issue: many executions of generated inputs exist in one report only.
  expect([...a].filter((k) => !b.has(k)).length).toBeGreaterThan(20);
  const d = diffReports(one, two, { baseFile: 'base.json' });
  expect(d.settings.map((s) => s.setting)).toEqual(['seed (ISWC_SEED)']);
  expect(d.generatedInputs.differ).toEqual(['seed (ISWC_SEED)']);
  expect(d.generatedInputs.notCompared).toBe(new Set([...a, ...b]).size);
  expect([d.newlyFailing, d.newlyPassing, d.newlySkipped, d.observedChanged].map((l) => l.length)).toEqual([0, 0, 0, 0]);
  expect([d.onlyInBase, d.onlyInHead]).toEqual([0, 0]);
  const markdown = renderDiffMarkdown(d);
  expect(markdown).toContain(`Generated inputs differ (seed (ISWC_SEED)): ${d.generatedInputs.notCompared} executions of generated inputs cannot be compared one by one`);
  expect(markdown).toContain('rerun with npx iswc-conformance run --same-inputs-as base.json');
  expect(markdown.indexOf('Generated inputs differ')).toBeLessThan(markdown.indexOf('newly failing'));
  expect(renderDiffHtml(d)).toContain('<div id="generated-inputs" class="warning">');
  // The same seed (two runs of this file's fixtures): every execution is compared one by one, and nothing differs.
  const d1 = diffReports(base, again);
  expect(d1.generatedInputs).toEqual({ differ: [], notCompared: 0 });
  expect([d1.newlyFailing, d1.newlyPassing, d1.newlySkipped, d1.observedChanged].map((l) => l.length)).toEqual([0, 0, 0, 0]);
  expect([d1.onlyInBase, d1.onlyInHead]).toEqual([0, 0]);
  expect(renderDiffMarkdown(d1)).not.toContain('Generated inputs differ');
});

test('a property that fails under the other seed is newly failing, noted; its observed echoes are not listed', async () => {
  const only = (p: { key: string }) => p.key === 'property.merge.invalid@json';
  const [clean, faulty] = await Promise.all([inProcessReport({ seed: 1, filter: only }), inProcessReport({ seed: 7, filter: only, faults: ['array-tail-unchecked'] })]);
  const d = diffReports(clean, faulty);
  expect(d.newlyFailing.map((e) => e.checkId)).toContain('limit.rejected');
  expect(d.newlyFailing.every((e) => e.note?.startsWith('generated inputs differ (seed (ISWC_SEED))'))).toBe(true);
  expect(d.observedChanged).toEqual([]);
  expect(d.specRegression).toBe(true);
  expect(diffReports(faulty, clean).newlyPassing.map((e) => e.checkId)).toContain('limit.rejected');
});

test('run --same-inputs-as takes the seed, runs, plan and budget of a run, after checking its profile by content', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-same-'));
  try {
    const file = path.join(dir, 'base.json');
    writeFileSync(file, JSON.stringify({ ...base, meta: { ...base.meta, seed: 31337, runs: 40, plan: { name: 'smoke', budget: null } } }));
    const plan = parseRunArgs({ 'same-inputs-as': file }, dir, { ISWC_BUDGET: '60', ISWC_SEED: '5' });
    expect(plan.env).toMatchObject({ ISWC_SEED: '31337', ISWC_RUNS: '40', ISWC_PLAN: 'smoke', ISWC_BUDGET: '' });
    expect(() => parseRunArgs({ 'same-inputs-as': file, seed: '3' }, dir, {})).toThrow('give it without --seed');
    expect(() => parseRunArgs({ 'same-inputs-as': file, smoke: true, budget: '9' }, dir, {})).toThrow('give it without --smoke, --budget');
    expect(() => parseRunArgs({ 'same-inputs-as': path.join(dir, 'none.json') }, dir, {})).toThrow('--same-inputs-as: no report at');
    const other = path.join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ ...JSON.parse(readFileSync(fromRoot('fixtures', 'targets', 'embedded.json'), 'utf8')), agency: '021' }));
    expect(() => parseRunArgs({ 'same-inputs-as': file, target: other }, dir, {})).toThrow(/was made with profile "embedded" sha256:[0-9a-f]{16}…, this run would use "embedded" sha256:/);
    writeFileSync(file, JSON.stringify({ ...base, meta: { ...base.meta, plan: undefined } }));
    expect(() => parseRunArgs({ 'same-inputs-as': file }, dir, {})).toThrow('records no plan');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('run --same-inputs-as: two real runs diff with no noise; without it the diff says the inputs differ', { tag: '@e2e' }, async () => {
  // Three real runs, two at once: about 20 s on two idle cores, so room for a slower or busier machine.
  test.setTimeout(240_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-same-run-'));
  try {
    const grep = ['--grep', 'property\\.(run\\.exotic|merge\\.edge)'];
    const env = childEnv({ ISWC_SEED: undefined, ISWC_RUNS: '10', ISWC_REPORT_DIR: undefined });
    const [first, other] = await Promise.all([
      runCliAsync(['run', ...grep, '--report-dir', path.join(dir, 'a')], { env, timeoutMs: 240_000 }),
      runCliAsync(['run', ...grep, '--report-dir', path.join(dir, 'c')], { env, timeoutMs: 240_000 }),
    ]);
    expect(first.code, first.out).toBe(0);
    expect(other.code, other.out).toBe(0);
    const baseFile = path.join(dir, 'a', 'conformance.json');
    const same = await runCliAsync(['run', ...grep, '--same-inputs-as', baseFile, '--report-dir', path.join(dir, 'b')], { env, timeoutMs: 240_000 });
    expect(same.code, same.out).toBe(0);
    const a = readReport(baseFile);
    const b = readReport(path.join(dir, 'b', 'conformance.json'));
    expect(b.meta.seed).toBe(a.meta.seed);
    expect(b.meta.runs).toBe(10);
    const clean = diffReports(a, b);
    expect(clean.settings).toEqual([]);
    expect([clean.newlyFailing, clean.newlyPassing, clean.newlySkipped, clean.observedChanged].map((l) => l.length)).toEqual([0, 0, 0, 0]);
    expect([clean.onlyInBase, clean.onlyInHead]).toEqual([0, 0]);
    const noisy = diffReports(a, readReport(path.join(dir, 'c', 'conformance.json')));
    expect(noisy.generatedInputs.differ).toEqual(['seed (ISWC_SEED)']);
    expect(noisy.observedChanged).toEqual([]);
    const printed = runCli(['diff', baseFile, path.join(dir, 'c', 'conformance.json'), '--out', dir], { env });
    expect(printed.code).toBe(0);
    // Outside the caller's directory a path is printed absolute (lib/foundation/paths.ts shownPath).
    expect(printed.stdout).toContain(`rerun with npx iswc-conformance run --same-inputs-as ${baseFile}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
