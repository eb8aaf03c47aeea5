import { existsSync, readFileSync } from 'node:fs';
import { test } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import type { CheckExecution } from '../../lib/checks/types.ts';
import { gating, readConfig } from '../../lib/engine/config.ts';
import { runPlannedCase } from '../../lib/engine/run-suite.ts';
import type { CaseOutcome } from '../../lib/engine/run-suite.ts';
import { planSuite, suiteOptionsFrom } from '../../lib/engine/suite.ts';
import type { PlannedCase } from '../../lib/engine/suite.ts';
import { createHttpClient } from '../../lib/http/client.ts';
import { pacerGate } from '../../lib/http/pacer.ts';
import type { Gate } from '../../lib/http/pacer.ts';
import type { HttpClient } from '../../lib/http/types.ts';
import { loadProfile } from '../../lib/profile/load.ts';
import { HARNESS_TAG } from '../../lib/engine/templates.ts';
import { allureFor } from './allure.ts';
import { redactorFromEnv } from '../../lib/redact.ts';
import { applyWaivers, waivedText } from '../../lib/waivers/apply.ts';
import { runDay, runWaivers } from '../../lib/waivers/run.ts';

export const EXECUTIONS_ATTACHMENT = 'iswc-check-executions';

/** Cases of one group sent at once. */
const GROUP_CONCURRENCY = 4;

/** Maps with at most `limit` calls in flight; results keep the input order. */
async function inParallel<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      out[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Why nothing more is sent, when a client of this run has found the target unresponsive. */
function unresponsiveReason(): string | undefined {
  const file = process.env.ISWC_UNRESPONSIVE_FILE;
  if (!file || !existsSync(file)) return undefined;
  return `not sent: the target stopped answering (${readFileSync(file, 'utf8').trim()}); earlier checks failed on it`;
}

/** How a gating failure reads in the console and in every report: section, expected, received, replay. */
export function describeFailure(e: CheckExecution): string {
  return [
    `${e.checkId} [${e.level}, section ${e.sections.join(', ')}] ${e.caseId} / ${e.step} (${e.format})`,
    `  Documented: ${e.expected ?? ''}`,
    `  Received:   ${e.received ?? ''}`,
    ...(e.curl ? [`  Reproduce with: ${e.curl}`] : []),
  ].join('\n');
}

/** How a waived failure reads in a test's annotations. */
export function describeWaived(e: CheckExecution): string {
  return `${e.checkId} [${e.level}, section ${e.sections.join(', ')}] ${e.caseId} / ${e.step} (${e.format}): ${e.waiver ? waivedText(e.waiver) : 'waived'}`;
}

/**
 * What each test hands to the reporters: its check executions as judged (before any waiver: the reporter
 * applies the waivers again, so that it can tell used from unused ones), request counts, and the day the
 * test judged its waivers' expiry against. Free of the key.
 */
export interface ExecutionsAttachment {
  executions: CheckExecution[];
  stats: CaseOutcome['stats'];
  waiverDate?: string;
}

async function attach(testInfo: TestInfo, payload: ExecutionsAttachment): Promise<void> {
  await testInfo.attach(EXECUTIONS_ATTACHMENT, { body: JSON.stringify(payload), contentType: 'application/json' });
}

/** Declares one Playwright test per case of the suite that runs in this project. */
export function declareConformance(project: 'json' | 'xml'): void {
  const config = readConfig();
  const profile = loadProfile(config.targetFile);
  const planned = planSuite(profile, suiteOptionsFrom(config)).filter((p) => p.project === project);

  let client: HttpClient | undefined;
  let gate: Gate | undefined;
  const clientFor = (): HttpClient => {
    if (client) return client;
    const live = readConfig();
    if (!live.baseUrl) throw new Error('ISWC_BASE_URL is not set: the global setup should have started the embedded server');
    const pacerUrl = process.env.ISWC_PACER_URL;
    gate = pacerUrl ? pacerGate(pacerUrl) : undefined;
    client = createHttpClient({
      baseUrl: live.baseUrl,
      key: live.key,
      timeoutMs: live.timeoutMs,
      maxBodyBytes: live.maxBodyBytes,
      userAgent: HARNESS_TAG,
      // Throttling is honoured on shared targets only; a local server answering 429 is judged for it.
      throttling: !live.local,
      ...(process.env.ISWC_UNRESPONSIVE_FILE ? { unresponsiveFile: process.env.ISWC_UNRESPONSIVE_FILE } : {}),
      ...(gate ? { beforeSend: gate } : {}),
    });
    return client;
  };

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
  const groups = new Map<string, PlannedCase[]>();
  for (const p of planned) {
    const key = p.def.group ? `${p.def.group.id}@${p.format}` : p.key;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  for (const [key, members] of groups) {
    const first = members[0];
    const name = members.length > 1 && first.def.group ? first.def.group.title : first.def.title;
    const title = `${name.replace(/\s*@[\w-]+/g, '')} [${members.length > 1 ? key.replace(/@\w+$/, '') : first.def.id}]`;
    const tags = [...new Set(members.flatMap((p) => p.def.tags))];
    test(title, { tag: tags }, async ({}, testInfo) => {
      const live = readConfig();
      const settings = { seed: live.seed ?? 1, runs: live.runs, strict: live.strict };
      const stats = { requests: 0, retries: 0, waitedMs: 0 };
      const all: CheckExecution[] = [];
      const outcomes: CaseOutcome[] = [];
      // Once the target is known not to answer, the remaining cases are not sent: the failures that
      // found it out fail the run, and every later check is skipped with that reason.
      const unresponsive = unresponsiveReason();
      // A group's cases claim no entries and keep their own steps in order, so a few run at once; the
      // pacer, when there is one, still holds the rate.
      const results = await inParallel(members, GROUP_CONCURRENCY, (planned) => {
        const p = unresponsive && !planned.skipReason ? { ...planned, skipReason: unresponsive } : planned;
        return runPlannedCase(p, clientFor(), profile, settings);
      });
      for (const outcome of results) {
        outcomes.push(outcome);
        all.push(...outcome.executions);
        stats.requests += outcome.stats.requests;
        stats.retries += outcome.stats.retries;
        stats.waitedMs += outcome.stats.waitedMs;
      }
      const redact = redactorFromEnv();
      const executions = redact.deep(all);
      const waiverDate = runDay();
      await attach(testInfo, { executions, stats, waiverDate });
      // The same function as the reporter's, on the same executions and day: both reach the same verdicts.
      const waivers = runWaivers(live.waivers);
      const judged = waivers ? applyWaivers(executions, waivers.waivers, waiverDate).executions : executions;
      await allureFor(members, outcomes, judged, redact);
      const skipped = members.filter((p) => p.skipReason || unresponsive);
      if (skipped.length === members.length) test.skip(true, first.skipReason ?? unresponsive);
      if (skipped.length > 0) testInfo.annotations.push({ type: 'skipped cases', description: skipped.map((p) => `${p.def.id}: ${p.skipReason}`).join('\n') });
      const waived = judged.filter((e) => e.verdict === 'waived');
      if (waived.length > 0) testInfo.annotations.push({ type: 'waived (known deviations, not gating)', description: waived.map(describeWaived).join('\n') });
      const failures = judged.filter((e) => e.verdict === 'fail');
      for (const f of failures.filter((e) => !gating(e.level, config.strict))) {
        testInfo.annotations.push({ type: `${f.level} failure (not gating; ISWC_STRICT=1 makes it fail the run)`, description: describeFailure(f) });
      }
      const blocking = failures.filter((e) => gating(e.level, config.strict));
      if (blocking.length > 0) {
        throw new Error(`${blocking.length} check(s) failed:\n${blocking.map(describeFailure).join('\n\n')}`);
      }
    });
  }
}
