import { readFileSync, writeFileSync } from 'node:fs';
import type { PlannedCase } from './planned.ts';

/** One Playwright test of a conformance project: the cases of one group (or one case) in one project. */
export interface PlannedTest {
  project: 'json' | 'xml';
  title: string;
  tags: string[];
  /** Keys of the planned cases it runs, in order. */
  keys: string[];
}

/** A planned case as written to the plan file: what the reports and a dry run need, not its code. */
type PlannedEntry = Omit<PlannedCase, 'def'> & { caseId: string };

interface PlanFileContent {
  tests: PlannedTest[];
  cases: PlannedEntry[];
}

/**
 * The tests of the conformance projects, from the planned cases: the cases of one group (e.g. every
 * limit and type case of one field) in one format run as one test, since Playwright's cost per test is
 * far above a request's; the report still has one entry per check execution. The same list in every
 * process that reads the same plan.
 */
export function plannedTests(planned: readonly Pick<PlannedCase, 'def' | 'format' | 'project' | 'key'>[]): PlannedTest[] {
  const groups = new Map<string, Array<Pick<PlannedCase, 'def' | 'format' | 'project' | 'key'>>>();
  for (const p of planned) {
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
  const content: PlanFileContent = { tests: plannedTests(planned), cases: planned.map(({ def, ...rest }) => ({ caseId: def.id, ...rest })) };
  writeFileSync(file, JSON.stringify(content));
}

/** The tests of one project, as the global setup planned them. */
export function readPlannedTests(file: string, project: 'json' | 'xml'): PlannedTest[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as PlanFileContent).tests.filter((t) => t.project === project);
}
