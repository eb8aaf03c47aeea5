import { test } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import type { CheckExecution } from '../../lib/checks/types.ts';
import { gating, readConfig } from '../../lib/engine/config.ts';
import { runPlannedCase } from '../../lib/engine/run-suite.ts';
import type { CaseOutcome } from '../../lib/engine/run-suite.ts';
import { planSuite } from '../../lib/engine/suite.ts';
import { createHttpClient } from '../../lib/http/client.ts';
import { pacerGate } from '../../lib/http/pacer.ts';
import type { Gate } from '../../lib/http/pacer.ts';
import type { HttpClient } from '../../lib/http/types.ts';
import { loadProfile } from '../../lib/profile/load.ts';
import { HARNESS_TAG } from '../../lib/engine/templates.ts';
import { redactorFromEnv } from '../../lib/redact.ts';

export const EXECUTIONS_ATTACHMENT = 'iswc-check-executions';

/** How a gating failure reads in the console and in every report: section, expected, received, replay. */
export function describeFailure(e: CheckExecution): string {
  return [
    `${e.checkId} [${e.level}, section ${e.sections.join(', ')}] ${e.caseId} / ${e.step} (${e.format})`,
    `  Documented: ${e.expected ?? ''}`,
    `  Received:   ${e.received ?? ''}`,
    ...(e.curl ? [`  Reproduce with: ${e.curl}`] : []),
  ].join('\n');
}

/** What each test hands to the reporters: its check executions and request counts, free of the key. */
export interface ExecutionsAttachment {
  executions: CheckExecution[];
  stats: CaseOutcome['stats'];
}

async function attach(testInfo: TestInfo, payload: ExecutionsAttachment): Promise<void> {
  await testInfo.attach(EXECUTIONS_ATTACHMENT, { body: JSON.stringify(payload), contentType: 'application/json' });
}

/** Declares one Playwright test per case of the suite that runs in this project. */
export function declareConformance(project: 'json' | 'xml'): void {
  const config = readConfig();
  const profile = loadProfile(config.targetFile);
  const planned = planSuite(profile, {
    destructive: config.destructive,
    plan: config.plan,
    runs: config.runs,
    ...(config.budget !== undefined ? { budget: config.budget } : {}),
    ...(config.embedded ? {} : { destructiveOffReason: 'consumes disposable profile entries of a remote target; set ISWC_DESTRUCTIVE=1 to allow it' }),
  }).filter((p) => p.project === project);

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
      ...(gate ? { beforeSend: gate } : {}),
    });
    return client;
  };

  test.afterAll(async () => {
    await client?.close();
    await gate?.close();
  });

  for (const p of planned) {
    const title = `${p.def.title.replace(/\s*@[\w-]+/g, '')} [${p.def.id}]`;
    test(title, { tag: [...p.def.tags] }, async ({}, testInfo) => {
      const live = readConfig();
      const outcome = await runPlannedCase(p, clientFor(), profile, { seed: live.seed ?? 1, runs: live.runs, strict: live.strict });
      const executions = redactorFromEnv().deep(outcome.executions);
      await attach(testInfo, { executions, stats: outcome.stats });
      if (p.skipReason) test.skip(true, p.skipReason);
      const failures = executions.filter((e) => e.verdict === 'fail');
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
