import { expect, _baseTest as test } from '@playwright/test';
import { XMLParser } from 'fast-xml-parser';
import { allChecks } from '../../lib/check/registry.ts';
import type { CheckExecution } from '../../lib/run/execution.ts';
import { buildCertificate, renderCertificateHtml } from '../../lib/report/certificate.ts';
import { renderHtml } from '../../lib/report/html.ts';
import { sharedReport } from '../support/shared-report.ts';
import { renderJunit } from '../../lib/report/junit.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';
import { reportViolations } from '../../lib/report/validate.ts';
import { budgetBeforeNeeds, NO_CASE_RAN_IT, smallestNeeds, specCoverage, verdictText } from '../../lib/report/verdict.ts';

// In order, in one worker: the tests share what test.beforeAll makes (whole runs), which every worker
// running one of them would otherwise make again.
test.describe.configure({ mode: 'default', timeout: 120_000 });

const SPEC = allChecks().filter((c) => c.level === 'spec');
const M = SPEC.length;
const DESTRUCTIVE_OFF = 'consumes disposable profile entries and destructive checks are off (ISWC_DESTRUCTIVE=0)';

let full: ConformanceReport;
let partial: ConformanceReport;

test.beforeAll(async () => {
  // Whole runs, made here or by another file's worker while this one waits: a loaded machine takes minutes.
  test.setTimeout(240_000);
  [full, partial] = await Promise.all([sharedReport(), sharedReport({ destructive: false })]);
});

function execution(checkId: string, verdict: CheckExecution['verdict'], skipReason?: string): CheckExecution {
  const check = allChecks().find((c) => c.id === checkId);
  return { checkId, level: check?.level ?? 'spec', sections: [...(check?.sections ?? ['8'])], operation: 'mergeIswcMetadata', format: 'json', caseId: 'c', step: 's', verdict, ...(skipReason ? { skipReason } : {}) };
}

test('coverage: N counts spec checks with an execution that is not a skip; the others say why', () => {
  const none = specCoverage([]);
  expect(none).toMatchObject({ specChecks: M, exercised: 0 });
  expect(none.notExercised.map((n) => n.checkId)).toEqual(SPEC.map((c) => c.id));
  expect(none.notExercised.every((n) => n.reasons.length === 1 && n.reasons[0] === NO_CASE_RAN_IT)).toBe(true);

  const [a, b, c] = SPEC.map((s) => s.id);
  const coverage = specCoverage([
    execution(a, 'pass'),
    execution(a, 'skip', 'budget'),
    execution(b, 'waived'),
    execution(c, 'skip', 'budget'),
    execution(c, 'skip', 'budget'),
    execution(c, 'skip', 'throttled'),
    execution('observed.error-body', 'observed'),
  ]);
  expect(coverage.exercised).toBe(2);
  expect(coverage.notExercised.find((n) => n.checkId === c)?.reasons).toEqual(['budget', 'throttled']);
  expect(coverage.notExercised.find((n) => n.checkId === SPEC[3]?.id)?.reasons).toEqual([NO_CASE_RAN_IT]);
  expect(coverage.notExercised.map((n) => n.checkId)).not.toContain(a);
  expect(coverage.notExercised.map((n) => n.checkId)).not.toContain(b);
});

test('the verdict reads what the run showed', () => {
  const all = { specChecks: 19, exercised: 19, notExercised: [] };
  const some = { specChecks: 19, exercised: 13, notExercised: [] };
  expect(verdictText(0, all, 0)).toBe('conformant');
  expect(verdictText(0, all, 1)).toBe('conformant with 1 waiver');
  expect(verdictText(0, some, 0)).toBe('conformant on 13 of 19 spec checks');
  expect(verdictText(0, some, 2)).toBe('conformant on 13 of 19 spec checks with 2 waivers');
  expect(verdictText(3, some, 2)).toBe('not conformant');
});

test('a full run exercises every spec check and reads "conformant"', () => {
  expect(full.summary.coverage).toEqual({ specChecks: M, exercised: M, notExercised: [] });
  expect(full.summary.verdict).toBe('conformant');
  expect(full.summary.verdictText).toBe('conformant');
  expect(renderJunit(full)).toContain(`<property name="specChecksExercised" value="${M} of ${M}"/>`);
});

test('a non-destructive run is partial: "conformant on N of M spec checks", each check not exercised with why', () => {
  const { coverage } = partial.summary;
  expect(partial.summary.gatingFailures).toBe(0);
  expect(partial.summary.verdict).toBe('partial');
  expect(coverage.exercised).toBeLessThan(M);
  expect(partial.summary.verdictText).toBe(`conformant on ${coverage.exercised} of ${M} spec checks`);
  const missing = coverage.notExercised.map((n) => n.checkId);
  expect(missing).toEqual(expect.arrayContaining(['outcome.merge', 'outcome.demerge', 'outcome.delete']));
  for (const n of coverage.notExercised) expect(n.reasons, n.checkId).toEqual([DESTRUCTIVE_OFF]);
  expect(reportViolations(JSON.parse(JSON.stringify(partial)))).toEqual([]);
});

test('the partial verdict shows in the HTML badge, the JUnit properties and the certificate', () => {
  const { coverage } = partial.summary;
  const text = `conformant on ${coverage.exercised} of ${M} spec checks`;
  const html = renderHtml(partial);
  expect(html).toContain(`<span id="verdict" class="badge grey" data-verdict="partial">${text}</span>`);
  expect(html).toContain(`Partial run: ${coverage.exercised} of ${M} spec checks exercised`);
  expect(html).toContain('<tr data-check="outcome.merge"><td><code>outcome.merge</code></td>');
  expect(html).toContain(DESTRUCTIVE_OFF);

  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'property'].includes(name) }).parse(renderJunit(partial)) as {
    testsuites: { testsuite: Array<{ properties: { property: Array<{ name: string; value: string }> } }> };
  };
  for (const suite of parsed.testsuites.testsuite) {
    const props = new Map(suite.properties.property.map((p) => [p.name, p.value]));
    expect(props.get('verdict')).toBe(text);
    expect(props.get('specChecksExercised')).toBe(`${coverage.exercised} of ${M}`);
    for (const n of coverage.notExercised) expect(props.get(`notExercised.${n.checkId}`)).toBe(DESTRUCTIVE_OFF);
  }

  const cert = buildCertificate({ report: partial });
  expect(cert.verdict).toBe('incomplete');
  expect(cert.verdictText).toBe(`incomplete: ${coverage.exercised} of ${M} spec checks exercised`);
  expect(renderCertificateHtml(cert)).toContain(`Spec checks not exercised (${coverage.notExercised.length} of ${M})`);
});

test('a run that never ran a spec check at all says "no case ran it"', () => {
  const onlyRuns = { ...full, executions: full.executions.filter((e) => e.operation === 'notifyAgentRun') };
  const coverage = specCoverage(onlyRuns.executions);
  const outcome = coverage.notExercised.find((n) => n.checkId === 'outcome.merge');
  expect(outcome?.reasons).toEqual([NO_CASE_RAN_IT]);
});

test('of the counted needs of a check, only the smallest of each kind is said: any one of them would do', () => {
  expect(smallestNeeds(['needs 3 more submissions', 'not in the smoke plan', 'needs 2 more submissions', 'needs 4 more demerges', 'needs 1 more merges', 'needs a merges entry with at least 2 agencyWorks'])).toEqual([
    'not in the smoke plan',
    'needs a merges entry with at least 2 agencyWorks',
    'needs 2 more submissions',
    'needs 4 more demerges',
    'needs 1 more merges',
  ]);
  // Needs with conditions count too: a run against a one-line profile listed five ways to add merges.
  expect(
    smallestNeeds([
      'needs 24 more merges (12 of them with at least 1 agencyWorks)',
      'needs 14 more merges (7 of them with at least 1 agencyWorks)',
      'needs 4 more demerges',
      'needs 2 more merges (1 of them with at least 1 iswcs)',
      'needs 2 more merges',
      'needs 3 more demerges (1 of them whose workcode has 20 characters (its limit))',
    ]),
  ).toEqual(['needs 2 more merges', 'needs 3 more demerges (1 of them whose workcode has 20 characters (its limit))']);
});

test('a check a case left out for the budget says the budget, not what other cases lacked: adding data would not bring it in', () => {
  // A hand-written profile of six merges with ISWCs, under --budget 60: item-refused listed "needs a merges entry
  // with at least 1 iswcs; needs 12 more merges", though a case holding its entries had been left out for the budget.
  expect(budgetBeforeNeeds(['not in the request budget (ISWC_BUDGET=60)', 'needs a merges entry with at least 1 iswcs', 'needs 12 more merges (6 of them with at least 1 agencyWorks)'])).toEqual(['not in the request budget (ISWC_BUDGET=60)']);
  expect(budgetBeforeNeeds(['not in the request budget: the parts "x" were left out', 'needs 1 more demerges'])).toEqual(['not in the request budget: the parts "x" were left out']);
  // No case of the check had its entries: the data is what keeps it out, budget or not.
  expect(budgetBeforeNeeds(['needs 1 more merges', 'not in the smoke plan'])).toEqual(['needs 1 more merges', 'not in the smoke plan']);
  // A run stopped before the case was sent (a signal, its time limit) kept the check out, not the profile.
  expect(budgetBeforeNeeds(['not sent: interrupted by SIGINT', 'needs 2 more merges (1 of them with at least 1 agencyWorks)'])).toEqual(['not sent: interrupted by SIGINT']);
});
