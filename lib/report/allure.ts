import { test } from '@playwright/test';
import * as allure from 'allure-js-commons';
import type { CheckExecution } from '../run/execution.ts';
import { gating } from '../check/gating.ts';
import { config } from '../config/config.ts';
import { OPERATION_LABEL } from '../contract/operations.ts';
import type { CaseOutcome } from '../run/runner.ts';
import type { PlannedCase } from '../run/plan.ts';
import type { Redactor } from '../redact.ts';
import { sectionsText } from './view.ts';

const SEVERITY = { spec: 'critical', http: 'normal', observed: 'trivial' } as const;

/** What failed on one exchange, as the step's error: Allure marks the step failed and shows this text. */
class ExchangeCheckFailure extends Error {
  constructor(message: string) {
    super(message);
    // Allure reads an error named like an assertion as "failed" (a check that did not hold), not "broken".
    this.name = 'AssertionError';
  }
}

/**
 * Allure labels and steps for one Playwright test: the title says its format (JSON and XML tests of a
 * case share a Playwright title), suites are format then operation, epic = operation, feature = check,
 * severity from the highest level among its checks, tag = format; one step per HTTP exchange, with the
 * request and the response attached (both through the redactor), failed when a check failed on that
 * exchange (the failing checks as its message; "not gating" or "waived" where so) and passed otherwise.
 * `executions` are the test's, as judged (waivers applied). Called inside the conformance test.
 */
export async function allureFor(members: readonly PlannedCase[], outcomes: readonly CaseOutcome[], executions: readonly CheckExecution[], redact: Redactor): Promise<void> {
  const first = members[0];
  if (!first) return;
  const title = test.info().title;
  const strict = config().strict;
  const format = first.format === 'none' ? 'JSON' : first.format.toUpperCase();
  const operation = first.def.operation ? OPERATION_LABEL[first.def.operation] : 'outside the documented operations';
  await allure.displayName(`${title} · ${format}`);
  await allure.parentSuite(format);
  await allure.suite(operation);
  await allure.epic(operation);
  for (const checkId of [...new Set(members.flatMap((p) => p.shape.checks))]) await allure.feature(checkId);
  const levels = new Set(executions.map((e) => e.level));
  await allure.severity(levels.has('spec') ? SEVERITY.spec : levels.has('http') ? SEVERITY.http : SEVERITY.observed);
  await allure.tag(first.format === 'none' ? 'no body' : format);
  for (const section of [...new Set(executions.flatMap((e) => e.sections))]) await allure.label('section', section);
  const byStep = new Map<string, CheckExecution[]>();
  for (const e of executions) {
    const key = `${e.caseId}\u0001${e.step}`;
    byStep.set(key, [...(byStep.get(key) ?? []), e]);
  }
  for (const [i, outcome] of outcomes.entries()) {
    const caseId = members[i]?.def.id ?? first.def.id;
    for (const { label, exchange } of outcome.exchanges) {
      const status = exchange.response?.status ?? exchange.error?.code ?? 'no answer';
      const judged = byStep.get(`${caseId}\u0001${label}`) ?? [];
      const failed = judged.filter((e) => e.verdict === 'fail');
      const waived = judged.filter((e) => e.verdict === 'waived');
      const note = failed.length > 0 ? `: ${[...new Set(failed.map((e) => e.checkId))].join(', ')} failed` : waived.length > 0 ? `: ${[...new Set(waived.map((e) => e.checkId))].join(', ')} waived` : '';
      try {
        await allure.step(`${exchange.request.method} ${new URL(exchange.request.url).pathname} → ${status} (${label})${note}`, async () => {
          await allure.attachment('request', JSON.stringify(redact.deep(exchange.request), null, 2), 'application/json');
          await allure.attachment('response', JSON.stringify(redact.deep(exchange.response ?? exchange.error ?? null), null, 2), 'application/json');
          if (failed.length > 0) {
            const lines = failed.map((e) => `${e.checkId} [${e.level}, ${sectionsText(e.sections)}]${gating(e.level, strict) ? '' : ' (not gating)'}: expected ${e.expected ?? ''}; received ${e.received ?? ''}`);
            throw new ExchangeCheckFailure(redact.text(lines.join('\n')));
          }
        });
      } catch (err) {
        // The step is recorded as failed; the test's own verdict is decided by the conformance test.
        if (!(err instanceof ExchangeCheckFailure)) throw err;
      }
    }
  }
}
