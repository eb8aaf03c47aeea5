import { escapeXmlAttr, escapeXmlText } from '../escape.ts';
import { operationLabel, sectionsText } from '../view.ts';
import { answersText, cellLabel } from './labels.ts';
import type { ClientFinding, ClientGroupTally, ClientReport } from './model.ts';

/** A request as one text block: request line, headers, body. */
export function requestText(f: ClientFinding): string {
  const r = f.request;
  const headers = Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`);
  const answer = r.answer === 'none' ? 'no answer (the session ended)' : r.answer === 'reset' ? 'the connection reset' : `answered ${r.answer}`;
  return [`#${r.seq} ${r.method} ${r.target}  (${answer})`, ...headers, '', r.body + (r.bodyBytes > r.body.length ? ` … [${r.bodyBytes} bytes]` : '')].join('\n');
}

function findingText(f: ClientFinding): string {
  return [`${f.check} [${f.level}] section ${sectionsText(f.sections)}`, `Documented: ${f.expected}`, `Client sent: ${f.received}`, '', requestText(f)].join('\n');
}

/** Does this group fail the verdict: a violation that gates (spec; http with --strict)? */
function gates(g: ClientGroupTally, report: ClientReport): boolean {
  return g.failed > 0 && (g.level === 'spec' || (g.level === 'http' && report.strict));
}

function testcase(g: ClientGroupTally, report: ClientReport): string {
  const classname = `${g.operation}.${g.format}`;
  const name = `${g.check} · ${operationLabel(g.operation)} · ${g.format}`;
  const open = `    <testcase classname="${escapeXmlAttr(classname)}" name="${escapeXmlAttr(name)}" time="0"`;
  const same = (f: ClientFinding): boolean => f.check === g.check && f.operation === g.operation && f.format === g.format;
  if (gates(g, report)) {
    const list = report.violations.filter(same);
    const message = `[${g.level}] ${g.failed} of ${g.passed + g.failed + g.observed} requests: ${list[0]?.received ?? ''}`;
    const body = list.slice(0, 10).map(findingText).join('\n\n---\n\n');
    return `${open}>\n      <failure message="${escapeXmlAttr(message)}" type="${escapeXmlAttr(`${g.level}:${g.check}`)}">${escapeXmlText(body)}</failure>\n    </testcase>`;
  }
  if (g.failed > 0) {
    // Not gating (http without --strict): shown as the run's JUnit shows what does not fail it, a passed testcase with the finding as output.
    const list = report.violations.filter(same);
    return `${open}>\n      <system-out>${escapeXmlText(`not gating (${g.level}; --strict makes it gate): ${g.failed} of ${g.passed + g.failed + g.observed} requests violate it:\n${list.slice(0, 10).map(findingText).join('\n\n')}`)}</system-out>\n    </testcase>`;
  }
  if (g.observed > 0) {
    const list = report.observations.filter(same);
    return `${open}>\n      <system-out>${escapeXmlText(`observed on ${g.observed} request(s) (the document leaves this open):\n${list.slice(0, 10).map(findingText).join('\n\n')}`)}</system-out>\n    </testcase>`;
  }
  return `${open}/>`;
}

/**
 * Suite "operations": one testcase per operation × format the client exercised or declared. A declared
 * one that never succeeded fails (the verdict's other half); an incomplete session is one error testcase.
 */
function operationsSuite(report: ClientReport, propertyXml: string): { xml: string; tests: number; failures: number; errors: number } {
  const open = (name: string, classname: string): string => `    <testcase classname="${escapeXmlAttr(classname)}" name="${escapeXmlAttr(name)}" time="0"`;
  const cases: string[] = [];
  let failures = 0;
  let errors = 0;
  if (report.verdict === 'incomplete') {
    // Nothing to judge: one error, not a failure per operation the client never got to send.
    errors += 1;
    cases.push(`${open('session outcome: incomplete', 'session')}>\n      <error message="${escapeXmlAttr(report.verdictText)}" type="Incomplete">${escapeXmlText(`${report.verdictText}\nrequests received: ${report.requests}`)}</error>\n    </testcase>`);
    const xml = [`  <testsuite name="operations" tests="1" failures="0" errors="1" skipped="0" timestamp="${escapeXmlAttr(report.startedAt)}">`, propertyXml, ...cases, '  </testsuite>'].join('\n');
    return { xml, tests: 1, failures: 0, errors };
  }
  for (const c of report.coverage.cells) {
    const name = `${cellLabel(c.operation, c.format)}: ${c.declared ? 'declared, must succeed' : 'not declared'}`;
    const what = `${c.requests} sent, ${c.succeeded} succeeded${Object.keys(c.answers).length > 0 ? ` (${answersText(c.answers)})` : ''}`;
    if (c.declared && c.succeeded === 0) {
      failures += 1;
      cases.push(`${open(name, `operations.${c.format}`)}>\n      <failure message="${escapeXmlAttr(`never succeeded: ${what}`)}" type="coverage:${escapeXmlAttr(c.operation)}">${escapeXmlText(`${cellLabel(c.operation, c.format)} never succeeded: ${what}.\nThe verdict needs a success of every declared operation (--operations, --formats).`)}</failure>\n    </testcase>`);
    } else cases.push(`${open(name, `operations.${c.format}`)}>\n      <system-out>${escapeXmlText(what)}</system-out>\n    </testcase>`);
  }
  for (const m of report.coverage.missing.filter((x) => x.format === 'any')) {
    failures += 1;
    cases.push(`${open(`${cellLabel(m.operation, m.format)}: declared, must succeed`, 'operations.any')}>\n      <failure message="${escapeXmlAttr(`never succeeded: ${m.reason}`)}" type="coverage:${escapeXmlAttr(m.operation)}">${escapeXmlText(`${cellLabel(m.operation, m.format)}: ${m.reason}`)}</failure>\n    </testcase>`);
  }
  const xml = [`  <testsuite name="operations" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="0" timestamp="${escapeXmlAttr(report.startedAt)}">`, propertyXml, ...cases, '  </testsuite>'].join('\n');
  return { xml, tests: cases.length, failures, errors };
}

/**
 * client-junit.xml, one verdict with the report: suite "operations" has a testcase per operation × format
 * exercised or declared (a declared one that never succeeded fails; an incomplete session is an error);
 * then one testsuite per client check, one testcase per operation × format it judged. A testcase fails
 * only when it gates (a spec violation; an http one with --strict), with its first examples; a
 * non-gating violation and an observation are passed testcases with system-out, as the run's JUnit shows
 * what does not fail it. So the file has a failure exactly when the verdict is "not conformant", and its
 * failures are the gating groups and the declared operations that never succeeded. Expects a redacted report.
 */
export function renderClientJunit(report: ClientReport): string {
  const props: Array<[string, string]> = [
    ['verdict', report.verdictText],
    ['strict', String(report.strict)],
    ['requests', String(report.requests)],
    ['endedBy', report.endedBy],
    ['lateRequests', String(report.lateRequests.count)],
    ['gatingViolations', String(report.checks.gatingFailures)],
    ['operationsNotSucceeded', String(report.coverage.missing.length)],
    ['userAgent', report.client.userAgents[0] ?? ''],
    ['agency', report.client.agency ?? ''],
    ['choices', report.sandbox.choices],
    ['profile', report.sandbox.profile],
    ['harnessVersion', report.harnessVersion],
    ['documentDigest', report.documentDigest],
  ];
  const propertyXml = `    <properties>\n${props.map(([k, v]) => `      <property name="${escapeXmlAttr(k)}" value="${escapeXmlAttr(v)}"/>`).join('\n')}\n    </properties>`;
  const ops = operationsSuite(report, propertyXml);
  const suites = report.checks.exercised.map((c) => {
    const groups = report.groups.filter((g) => g.check === c.id);
    const failures = groups.filter((g) => gates(g, report)).length;
    return [
      `  <testsuite name="${escapeXmlAttr(c.id)}" tests="${groups.length}" failures="${failures}" errors="0" skipped="0" timestamp="${escapeXmlAttr(report.startedAt)}">`,
      propertyXml,
      ...groups.map((g) => testcase(g, report)),
      '  </testsuite>',
    ].join('\n');
  });
  const tests = report.groups.length + ops.tests;
  const failures = report.groups.filter((g) => gates(g, report)).length + ops.failures;
  const total = (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="ISWC client conformance" tests="${tests}" failures="${failures}" errors="${ops.errors}" skipped="0" time="${Number.isFinite(total) ? total.toFixed(3) : '0'}">`,
    ops.xml,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
