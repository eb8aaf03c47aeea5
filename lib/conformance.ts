import { existsSync, readFileSync } from 'node:fs';
import { test } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import { gating } from './check/gating.ts';
import { createJudge } from './check/judge.ts';
import { config } from './config/config.ts';
import type { RunContext } from './config/run-context.ts';
import { runContext } from './config/run-context.ts';
import type { HttpClient } from './contract/exchange.ts';
import { loadProfile } from './contract/profile/load.ts';
import type { CaseDef, CaseFormat } from './generate/case.ts';
import { allCases } from './generate/suite.ts';
import { HARNESS_TAG } from './generate/templates.ts';
import { redactorFromEnv } from './redact.ts';
import { allureFor } from './report/allure.ts';
import type { ExecutionsAttachment } from './report/attachment.ts';
import { EXECUTIONS_ATTACHMENT } from './report/attachment.ts';
import { describeFailure, describeWaived } from './report/failure-text.ts';
import { applyWaivers } from './report/waivers/apply.ts';
import { runDay, runWaivers } from './report/waivers/run.ts';
import type { CheckExecution } from './run/execution.ts';
import { createHttpClient } from './run/http/client.ts';
import { pacerGate } from './run/http/pacer.ts';
import type { Gate } from './run/http/pacer.ts';
import { readPlanFile } from './run/plan-file.ts';
import type { PlannedCase } from './run/planned.ts';
import { inParallel, runPlannedCase } from './run/runner.ts';
import type { CaseOutcome } from './run/runner.ts';

/** Cases of one group sent at once. */
const GROUP_CONCURRENCY = 4;

/** Why nothing more is sent, when a client of this run has found the target unusable (its circuit breaker tripped). */
function unresponsiveReason(context: RunContext): string | undefined {
  if (!existsSync(context.breakerFile)) return undefined;
  return `not sent: ${readFileSync(context.breakerFile, 'utf8').trim()}; earlier checks failed on it`;
}

async function attach(testInfo: TestInfo, payload: ExecutionsAttachment): Promise<void> {
  await testInfo.attach(EXECUTIONS_ATTACHMENT, { body: JSON.stringify(payload), contentType: 'application/json' });
}

/** The run context the global setup prepared; a clear error when the tests are run without it. */
function context(): RunContext {
  const found = runContext();
  if (!found) throw new Error('no run context: run the conformance projects through playwright.config.ts, whose global setup prepares the run (npm run conformance)');
  return found;
}

/**
 * Declares one Playwright test per case (or group of cases) that runs in this project. The test list is
 * built from the cases alone, the same in every process; what each case may do in this run (entries,
 * runs, a skip) is read from the plan the global setup computed once.
 */
export function declareConformance(project: 'json' | 'xml'): void {
  const cfg = config();
  const profile = loadProfile(cfg.targetFile);
  const keys: Array<{ def: CaseDef; format: CaseFormat; key: string }> = [];
  for (const def of allCases(profile)) {
    for (const format of def.formats) if ((format === 'xml' ? 'xml' : 'json') === project) keys.push({ def, format, key: `${def.id}@${format}` });
  }

  let plan: Map<string, PlannedCase> | undefined;
  const planned = (key: string): PlannedCase => {
    const ctx = context();
    if (!ctx.planFile) throw new Error('the run context has no plan file');
    plan ??= new Map(readPlanFile(ctx.planFile, profile).map((p) => [p.key, p]));
    const p = plan.get(key);
    if (!p) throw new Error(`the plan has no case ${key}`);
    return p;
  };

  let client: HttpClient | undefined;
  let gate: Gate | undefined;
  const clientFor = (): HttpClient => {
    if (client) return client;
    const ctx = context();
    gate = ctx.pacerUrl ? pacerGate(ctx.pacerUrl) : undefined;
    client = createHttpClient({
      baseUrl: ctx.baseUrl,
      key: cfg.key,
      timeoutMs: cfg.timeoutMs,
      maxBodyBytes: cfg.maxBodyBytes,
      userAgent: HARNESS_TAG,
      // Throttling is honoured on shared targets only; a local server answering 429 is judged for it.
      throttling: !cfg.local,
      unresponsiveFile: ctx.breakerFile,
      ...(gate ? { beforeSend: gate } : {}),
    });
    return client;
  };
  const judge = createJudge({ strict: cfg.strict, agency: profile.agency });

  test.afterAll(async () => {
    // Cleared, not only closed: a later test of this worker must build a new client, not reuse a closed one.
    const [c, g] = [client, gate];
    client = undefined;
    gate = undefined;
    await c?.close();
    await g?.close();
  });

  // Cases of one group (e.g. every limit and type case of one field) run as one test: Playwright's
  // per-test cost is far above a request's, and the report still has one entry per check execution.
  const groups = new Map<string, typeof keys>();
  for (const k of keys) {
    const key = k.def.group ? `${k.def.group.id}@${k.format}` : k.key;
    groups.set(key, [...(groups.get(key) ?? []), k]);
  }
  for (const [key, members] of groups) {
    const first = members[0];
    if (!first) continue;
    const name = members.length > 1 && first.def.group ? first.def.group.title : first.def.title;
    const title = `${name.replace(/\s*@[\w-]+/g, '')} [${members.length > 1 ? key.replace(/@\w+$/, '') : first.def.id}]`;
    const tags = [...new Set(members.flatMap((k) => k.def.tags))];
    test(title, { tag: tags }, async ({}, testInfo) => {
      const ctx = context();
      const cases = members.map((k) => planned(k.key));
      const settings = { seed: ctx.seed, runs: cfg.runs, strict: cfg.strict };
      const stats = { requests: 0, retries: 0, waitedMs: 0 };
      const all: CheckExecution[] = [];
      const outcomes: CaseOutcome[] = [];
      // Once the target is known not to answer, the remaining cases are not sent: the failures that
      // found it out fail the run, and every later check is skipped with that reason.
      const unresponsive = unresponsiveReason(ctx);
      // A group's cases claim no entries and keep their own steps in order, so a few run at once; the
      // pacer, when there is one, still holds the rate.
      const results = await inParallel(cases, GROUP_CONCURRENCY, (p) => runPlannedCase(unresponsive && !p.skipReason ? { ...p, skipReason: unresponsive } : p, clientFor(), profile, settings, judge));
      for (const outcome of results) {
        outcomes.push(outcome);
        all.push(...outcome.executions);
        stats.requests += outcome.stats.requests;
        stats.retries += outcome.stats.retries;
        stats.waitedMs += outcome.stats.waitedMs;
      }
      const redact = redactorFromEnv();
      const executions = redact.deep(all);
      const waiverDate = runDay(ctx.startedAt);
      await attach(testInfo, { executions, stats, waiverDate });
      // The same function as the reporter's, on the same executions and day: both reach the same verdicts.
      const waivers = runWaivers(cfg.waivers);
      const judged = waivers ? applyWaivers(executions, waivers.waivers, waiverDate).executions : executions;
      await allureFor(cases, outcomes, judged, redact);
      const skipped = cases.filter((p) => p.skipReason || unresponsive);
      if (skipped.length === cases.length) test.skip(true, cases[0]?.skipReason ?? unresponsive);
      if (skipped.length > 0) testInfo.annotations.push({ type: 'skipped cases', description: skipped.map((p) => `${p.def.id}: ${p.skipReason ?? unresponsive}`).join('\n') });
      const waived = judged.filter((e) => e.verdict === 'waived');
      if (waived.length > 0) testInfo.annotations.push({ type: 'waived (known deviations, not gating)', description: waived.map(describeWaived).join('\n') });
      const failures = judged.filter((e) => e.verdict === 'fail');
      for (const f of failures.filter((e) => !gating(e.level, cfg.strict))) {
        testInfo.annotations.push({ type: `${f.level} failure (not gating; ISWC_STRICT=1 makes it fail the run)`, description: describeFailure(f) });
      }
      const blocking = failures.filter((e) => gating(e.level, cfg.strict));
      if (blocking.length > 0) {
        throw new Error(`${blocking.length} check(s) failed:\n${blocking.map(describeFailure).join('\n\n')}`);
      }
    });
  }
}
