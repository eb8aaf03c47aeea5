import { readFileSync, writeFileSync } from 'node:fs';
import type { OperationId } from '../contract/operations.ts';
import { CHECK_MANIFEST } from '../generate/checks.generated.ts';
import type { CheckId } from '../generate/checks.generated.ts';
import type { CheckExecution } from './execution.ts';
import type { PlannedCase } from './planned.ts';

/** One Playwright test of a conformance project: the cases of one group (or one case) in one project. */
export interface PlannedTest {
  project: 'json' | 'xml';
  title: string;
  tags: string[];
  /** Keys of the planned cases it runs, in order. */
  keys: string[];
  /** A case of it reads back at the run's end (CaseDef.readsBack): the test waits for every other one. */
  waitsForRunEnd?: true;
}

/** A planned case as written to the plan file: what the reports and a dry run need, not its code. */
type PlannedEntry = Omit<PlannedCase, 'def'> & { caseId: string; operation: OperationId | null };

interface PlanFileContent {
  tests: PlannedTest[];
  cases: PlannedEntry[];
}

/**
 * The tests of the conformance projects, from the planned cases: the cases of one group (e.g. every
 * limit and type case of one field) in one format run as one test, since Playwright's cost per test is
 * far above a request's; the report still has one entry per check execution. The same list in every
 * process that reads the same plan.
 *
 * A case the plan leaves out (not in the smoke plan or the budget, destructive checks off, disposable
 * entries used up) is no test at all: a CI dashboard would show hundreds of grey skipped tests. The
 * reports still list each spec check it leaves unexercised, with the reason (`leftOutExecutions`).
 */
export function plannedTests(planned: readonly Pick<PlannedCase, 'def' | 'format' | 'project' | 'key' | 'skipReason'>[]): PlannedTest[] {
  const groups = new Map<string, Array<Pick<PlannedCase, 'def' | 'format' | 'project' | 'key'>>>();
  for (const p of planned) {
    if (p.skipReason !== undefined) continue;
    const key = p.def.group ? `${p.def.group.id}@${p.format}` : p.key;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const tests: PlannedTest[] = [];
  for (const [key, members] of groups) {
    const first = members[0];
    if (!first) continue;
    const name = members.length > 1 && first.def.group ? first.def.group.title : first.def.title;
    tests.push({
      project: first.project,
      title: `${name.replace(/\s*@[\w-]+/g, '')} [${members.length > 1 ? key.replace(/@\w+$/, '') : first.def.id}]`,
      tags: [...new Set(members.flatMap((p) => p.def.tags))],
      keys: members.map((p) => p.key),
      ...(members.some((p) => p.def.readsBack === true) ? { waitsForRunEnd: true as const } : {}),
    });
  }
  return tests;
}

/**
 * The plan of a run, computed once by the global setup (dry runs, allocation of profile entries, the
 * budget) and read by every worker: the test list of each project, so that every process declares the
 * same tests without loading a case.
 */
export function writePlanFile(file: string, planned: readonly PlannedCase[]): void {
  const content: PlanFileContent = { tests: plannedTests(planned), cases: planned.map(({ def, ...rest }) => ({ caseId: def.id, operation: def.operation, ...rest })) };
  writeFileSync(file, JSON.stringify(content));
}

/** The tests of one project, as the global setup planned them. */
export function readPlannedTests(file: string, project: 'json' | 'xml'): PlannedTest[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as PlanFileContent).tests.filter((t) => t.project === project);
}

/**
 * The check executions of the cases the plan left out, each check of each case skipped with the plan's
 * reason: what the reporters add to the tests' executions, so that coverage lists every spec check the
 * run did not exercise and why, though no Playwright test stands for those cases.
 */
/**
 * The checks a case left out is recorded skipped for: those it plans; for a case that plans none of its
 * own (every answer's checks judge its requests), its requests' answer check, so that it counts among the
 * run's cases not sent as it does in the plan's.
 */
export function leftOutChecks(checks: readonly string[]): readonly string[] {
  return checks.length > 0 ? checks : ['http.answered'];
}

export function leftOutExecutions(cases: ReadonlyArray<Pick<PlannedEntry, 'caseId' | 'operation' | 'format' | 'skipReason'> & { shape: { checks: readonly string[] } }>): CheckExecution[] {
  const out: CheckExecution[] = [];
  for (const c of cases) {
    if (c.skipReason === undefined) continue;
    for (const id of leftOutChecks(c.shape.checks)) {
      const check = CHECK_MANIFEST[id as CheckId];
      if (!check) continue;
      out.push({ checkId: id, level: check.level, sections: [...check.sections], operation: c.operation, format: c.format === 'xml' ? 'xml' : 'json', caseId: c.caseId, step: '-', verdict: 'skip', skipReason: c.skipReason });
    }
  }
  return out;
}

/**
 * The check executions of the cases of tests that never ran (a run that stopped: the target unusable, a
 * signal), each check skipped with why: so that the reports list them with the reason the run gives.
 * `planText` is the plan file's content (read at the run's start: the global teardown removes the file).
 */
export function notRunExecutions(planText: string, tests: ReadonlyArray<{ project: string; title: string }>, reason: string): CheckExecution[] {
  const content = JSON.parse(planText) as PlanFileContent;
  const wanted = new Set(tests.map((t) => `${t.project}\u0001${t.title}`));
  const keys = new Set(content.tests.filter((t) => wanted.has(`${t.project}\u0001${t.title}`)).flatMap((t) => t.keys));
  return leftOutExecutions(content.cases.filter((c) => keys.has(c.key)).map((c) => ({ ...c, skipReason: reason })));
}

/** The left-out executions of a run's plan file (see `leftOutExecutions`). */
export function readLeftOutExecutions(file: string): CheckExecution[] {
  return leftOutExecutions((JSON.parse(readFileSync(file, 'utf8')) as PlanFileContent).cases);
}

/** The left-out executions of planned cases (a merge of shard reports plans again: the plan is deterministic). */
export function plannedLeftOutExecutions(planned: readonly PlannedCase[]): CheckExecution[] {
  return leftOutExecutions(planned.map((p) => ({ caseId: p.def.id, operation: p.def.operation, format: p.format, shape: p.shape, ...(p.skipReason !== undefined ? { skipReason: p.skipReason } : {}) })));
}
