import { OPERATION_IDS } from '../../contract/operations.ts';
import type { OperationId } from '../../contract/operations.ts';
import { escapeXmlAttr, escapeXmlText } from '../escape.ts';
import type { CompatExchange, CompatReport, Counts } from './model.ts';
import { emptyCounts, worstOf } from './model.ts';
import { countsText, operationName } from './labels.ts';

/**
 * compat-junit.xml: one test suite per agency, one test case per agency and operation (its formats
 * together): a failure when an exchange is broken, skipped when none was replayed, passed otherwise (a
 * changed one says what changed in its output). A replay that did not end on its own (interrupted, the
 * build unusable) adds an error test case, never a clean "0 failures". Expects a redacted report.
 */

function caseText(list: readonly CompatExchange[]): string {
  return list
    .map((e) => `${e.id} ${e.session} #${e.seq} (${e.format}) ${e.verdict}: ${e.reasons.join(' | ')}`)
    .join('\n');
}

export function renderCompatJunit(report: CompatReport): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  const halt = report.outcome.halt;
  if (halt && (halt.kind === 'interrupted' || halt.kind === 'target-unusable')) {
    tests += 1;
    errors += 1;
    suites.push(
      `  <testsuite name="compat" tests="1" failures="0" errors="1" skipped="0">\n    <testcase classname="compat" name="the replay ended on its own"><error message="${escapeXmlAttr(halt.reason)}">${escapeXmlText(`${halt.kind}: ${halt.reason}`)}</error></testcase>\n  </testsuite>`,
    );
  }
  const ops: ReadonlyArray<OperationId | 'other'> = [...OPERATION_IDS, 'other'];
  for (const agency of report.agencies) {
    const cases: string[] = [];
    const t = { tests: 0, failures: 0, skipped: 0 };
    for (const op of ops) {
      const list = report.exchanges.filter((e) => e.agency === agency.agency && e.operation === op);
      if (list.length === 0) continue;
      const counts: Counts = emptyCounts();
      for (const e of list) counts[e.verdict] += 1;
      const verdict = worstOf(counts);
      const name = `${operationName(op)} (${countsText(counts)})`;
      const classname = `compat.agency-${agency.agency}`;
      t.tests += 1;
      if (verdict === 'broken') {
        t.failures += 1;
        const first = list.find((e) => e.verdict === 'broken');
        cases.push(`    <testcase classname="${escapeXmlAttr(classname)}" name="${escapeXmlAttr(name)}"><failure message="${escapeXmlAttr(`broken: ${first?.reasons[0] ?? ''}`)}">${escapeXmlText(caseText(list.filter((e) => e.verdict === 'broken')))}</failure></testcase>`);
      } else if (verdict === 'skipped') {
        t.skipped += 1;
        cases.push(`    <testcase classname="${escapeXmlAttr(classname)}" name="${escapeXmlAttr(name)}"><skipped message="${escapeXmlAttr(`not replayed: ${list[0]?.reasons[0] ?? ''}`)}"/></testcase>`);
      } else {
        const changed = list.filter((e) => e.verdict === 'changed');
        cases.push(`    <testcase classname="${escapeXmlAttr(classname)}" name="${escapeXmlAttr(name)}">${changed.length > 0 ? `<system-out>${escapeXmlText(`changed (within the document, but not what the client met):\n${caseText(changed)}`)}</system-out>` : ''}</testcase>`);
      }
    }
    tests += t.tests;
    failures += t.failures;
    skipped += t.skipped;
    suites.push(`  <testsuite name="${escapeXmlAttr(`agency ${agency.agency}`)}" tests="${t.tests}" failures="${t.failures}" errors="0" skipped="${t.skipped}">\n    <properties><property name="verdict" value="${escapeXmlAttr(agency.verdict)}"/><property name="sessions" value="${escapeXmlAttr(agency.sessions.join(', '))}"/></properties>\n${cases.join('\n')}\n  </testsuite>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="iswc-conformance compat" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}">\n${suites.join('\n')}\n</testsuites>\n`;
}
