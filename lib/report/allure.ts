import * as allure from 'allure-js-commons';
import type { CheckExecution } from '../run/execution.ts';
import { OPERATION_LABEL } from '../contract/operations.ts';
import type { CaseOutcome } from '../run/runner.ts';
import type { PlannedCase } from '../run/plan.ts';
import type { Redactor } from '../redact.ts';

const SEVERITY = { spec: 'critical', http: 'normal', observed: 'trivial' } as const;

/**
 * Allure labels and steps for one Playwright test: epic = operation, feature = check, severity from the
 * highest level among its checks, tag = format; one step per HTTP exchange with the request and the
 * response attached, both through the redactor.
 */
export async function allureFor(members: readonly PlannedCase[], outcomes: readonly CaseOutcome[], executions: readonly CheckExecution[], redact: Redactor): Promise<void> {
  const first = members[0];
  if (!first) return;
  await allure.epic(first.def.operation ? OPERATION_LABEL[first.def.operation] : 'outside the documented operations');
  for (const checkId of [...new Set(members.flatMap((p) => p.shape.checks))]) await allure.feature(checkId);
  const levels = new Set(executions.map((e) => e.level));
  await allure.severity(levels.has('spec') ? SEVERITY.spec : levels.has('http') ? SEVERITY.http : SEVERITY.observed);
  await allure.tag(first.format === 'none' ? 'no body' : first.format.toUpperCase());
  for (const section of [...new Set(executions.flatMap((e) => e.sections))]) await allure.label('section', section);
  for (const outcome of outcomes) {
    for (const { label, exchange } of outcome.exchanges) {
      const status = exchange.response?.status ?? exchange.error?.code ?? 'no answer';
      const failed = executions.some((e) => e.step === label && e.verdict === 'fail');
      await allure.step(`${failed ? '✗ ' : ''}${exchange.request.method} ${new URL(exchange.request.url).pathname} → ${status} (${label})`, async () => {
        await allure.attachment('request', JSON.stringify(redact.deep(exchange.request), null, 2), 'application/json');
        await allure.attachment('response', JSON.stringify(redact.deep(exchange.response ?? exchange.error ?? null), null, 2), 'application/json');
      });
    }
  }
}
