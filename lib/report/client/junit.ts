import { escapeXmlAttr, escapeXmlText } from '../escape.ts';
import { operationLabel, sectionsText } from '../view.ts';
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

function testcase(g: ClientGroupTally, report: ClientReport): string {
  const classname = `${g.operation}.${g.format}`;
  const name = `${g.check} · ${operationLabel(g.operation)} · ${g.format}`;
  const open = `    <testcase classname="${escapeXmlAttr(classname)}" name="${escapeXmlAttr(name)}" time="0"`;
  const same = (f: ClientFinding): boolean => f.check === g.check && f.operation === g.operation && f.format === g.format;
  if (g.failed > 0) {
    const list = report.violations.filter(same);
    const gating = list.some((f) => f.gating);
    const message = `[${g.level}${gating ? '' : ', not gating'}] ${g.failed} of ${g.passed + g.failed + g.observed} requests: ${list[0]?.received ?? ''}`;
    const body = list.slice(0, 10).map(findingText).join('\n\n---\n\n');
    return `${open}>\n      <failure message="${escapeXmlAttr(message)}" type="${escapeXmlAttr(`${g.level}:${g.check}`)}">${escapeXmlText(body)}</failure>\n    </testcase>`;
  }
  if (g.observed > 0) {
    const list = report.observations.filter(same);
    return `${open}>\n      <system-out>${escapeXmlText(`observed on ${g.observed} request(s) (the document leaves this open):\n${list.slice(0, 10).map(findingText).join('\n\n')}`)}</system-out>\n    </testcase>`;
  }
  return `${open}/>`;
}

/**
 * client-junit.xml: one testsuite per client check, one testcase per operation × format it judged; a
 * testcase fails when any request of its group violated the check (its first examples in the failure
 * text); an observation is a passing testcase with system-out. Expects a redacted report.
 */
export function renderClientJunit(report: ClientReport): string {
  const props: Array<[string, string]> = [
    ['verdict', report.verdictText],
    ['strict', String(report.strict)],
    ['requests', String(report.requests)],
    ['userAgent', report.client.userAgents[0] ?? ''],
    ['agency', report.client.agency ?? ''],
    ['choices', report.sandbox.choices],
    ['profile', report.sandbox.profile],
    ['harnessVersion', report.harnessVersion],
    ['documentDigest', report.documentDigest],
  ];
  const propertyXml = `    <properties>\n${props.map(([k, v]) => `      <property name="${escapeXmlAttr(k)}" value="${escapeXmlAttr(v)}"/>`).join('\n')}\n    </properties>`;
  const suites = report.checks.exercised.map((c) => {
    const groups = report.groups.filter((g) => g.check === c.id);
    const failures = groups.filter((g) => g.failed > 0).length;
    return [
      `  <testsuite name="${escapeXmlAttr(c.id)}" tests="${groups.length}" failures="${failures}" errors="0" skipped="0" timestamp="${escapeXmlAttr(report.startedAt)}">`,
      propertyXml,
      ...groups.map((g) => testcase(g, report)),
      '  </testsuite>',
    ].join('\n');
  });
  const tests = report.groups.length;
  const failures = report.groups.filter((g) => g.failed > 0).length;
  const total = (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="ISWC client conformance" tests="${tests}" failures="${failures}" errors="0" skipped="0" time="${Number.isFinite(total) ? total.toFixed(3) : '0'}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
