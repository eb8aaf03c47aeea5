import { expect, _baseTest as test } from '@playwright/test';
import { diffReports } from '../../lib/report/diff.ts';
import { reportViolations } from '../../lib/report/validate.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';
import { CHOICE_SETS } from '../../server/index.ts';
import type { ChoiceSetName } from '../../server/index.ts';

// In order, in one worker: every set's run is diffed against one reference run, made once per worker
// (spread over four workers, the reference was made four times: about 8 s of CPU for nothing).
test.describe.configure({ mode: 'default', timeout: 5 * 60_000 });

/**
 * Principle 1: the harness never fails a server for a choice the document leaves open. The reference
 * server can make every legitimate choice of its catalogue (server/choices.ts), bundled into sets the way
 * one kind of server makes them (alternative, production-like, lenient); the suite must stay green against
 * each, in strict mode, and a regression diff against the reference run must list only observed changes.
 * Each report must also be one the run can write: a field an unusual answer adds (how a body was
 * decoded) that the report schema lacks turns a conformant run into an internal error.
 */
/** The reference run, once per worker: every set's run is diffed against it. */
let referenceRun: ReturnType<typeof inProcessReport> | undefined;
const reference = () => (referenceRun ??= inProcessReport({ strict: true }));

/** Observed checks a set must be seen to answer otherwise on: the diff shows it answers where the document leaves the point open. */
const OBSERVED_BY_SET: Partial<Record<ChoiceSetName, readonly string[]>> = {
  alternative: ['observed.auth-answer', 'observed.error-body', 'observed.iswc-handling', 'observed.reason-code', 'observed.requiredness', 'observed.response-format'],
  production: ['observed.refusal', 'observed.characters', 'observed.coercion', 'observed.lenient-syntax', 'observed.run-id', 'observed.error-body'],
  lenient: ['observed.edge-values', 'observed.characters', 'observed.coercion', 'observed.auth-answer'],
};

/**
 * Judgements a set leaves nothing to judge, by design: a server reading new and updated as the kinds of the records
 * sent (`run-counters-sent-by-kind`) refuses every run with a rejection, so a rejection counter at its limit has no
 * accepted run to be compared with (limit.accepted skips); a server serving PATCH /submission outside the document
 * (`submission-update-patch`) answers the method probe for its content, not 405 (http.method-not-allowed skips).
 */
const REJECTION_LIMITS = /^limit\.notifyAgentRun\.body\.(overallRejected|businessRejectionCount|technicalRejectionCount)\.at-limit.*limit\.accepted$/;
const SKIPPED_BY_SET: Partial<Record<ChoiceSetName, RegExp[]>> = {
  'fresh-reading-2': [REJECTION_LIMITS, /^http\.method-not-allowed\.\/submission.*PATCH/],
  'fresh-reading-2-json': [REJECTION_LIMITS],
};

const failures = (r: Awaited<ReturnType<typeof inProcessReport>>) => r.executions.filter((e) => e.verdict === 'fail').map((e) => `${e.checkId} ${e.caseId} ${e.step}: ${e.received ?? ''}`);

test('the reference run passes every check, strict @selfcheck', async () => {
  expect(failures(await reference())).toEqual([]);
});

// One test a set, so that a failure names its set.
for (const set of Object.keys(CHOICE_SETS).filter((s) => s !== 'reference') as ChoiceSetName[]) {
  test(`the suite passes the ${set} set of legitimate choices, strict, and the diff shows only observed changes @selfcheck`, async () => {
    const other = await inProcessReport({ strict: true, choices: set });
    expect(failures(other), `failures against the ${set} choices`).toEqual([]);
    expect(reportViolations(JSON.parse(JSON.stringify(other))), `the report of the ${set} run breaks schemas/report.schema.json`).toEqual([]);
    const diff = diffReports(await reference(), other);
    expect(diff.newlyFailing.map((d) => d.key), set).toEqual([]);
    expect(diff.newlyPassing.map((d) => d.key), set).toEqual([]);
    expect(diff.newlySkipped.map((d) => d.key).filter((key) => !(SKIPPED_BY_SET[set] ?? []).some((re) => re.test(key))), set).toEqual([]);
    expect(diff.specRegression).toBe(false);
    expect(diff.observedChanged.every((c) => c.level === 'observed'), set).toBe(true);
    // Each set really answers otherwise where the document leaves the point open: the diff shows it.
    expect([...new Set(diff.observedChanged.map((c) => c.checkId))]).toEqual(expect.arrayContaining([...(OBSERVED_BY_SET[set] ?? [])]));
  });
}
