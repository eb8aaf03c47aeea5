import type { CheckExecution } from '../run/execution.ts';
import { cut, escapeXmlAttr, escapeXmlText } from './escape.ts';
import type { ReplayTarget } from './identity.ts';
import { replayCommand, replayTargetOf } from './identity.ts';
import type { ConformanceReport } from './model.ts';
import { FORMATS, OPERATION_KEYS, exchangeLine, groupBy, operationKey, sectionsText, tallyOf } from './view.ts';
import { waivedText } from './waivers/apply.ts';
import { waiverFiguresText } from './waivers/figures.ts';

const BODY_LIMIT = 4000;
const CURL_LIMIT = 4000;

function seconds(ms: number | undefined): string {
  return ((ms ?? 0) / 1000).toFixed(3);
}

/** `[spec, §4.1, §7] expected: …; received: …` — the one-line failure message. */
export function failureMessage(e: CheckExecution): string {
  return `[${e.level}, ${sectionsText(e.sections)}] expected: ${e.expected ?? ''}; received: ${e.received ?? ''}`;
}

/** The failure text: section, expected vs received, the minimal exchange, the curl line. */
export function failureText(e: CheckExecution, replay?: ReplayTarget): string {
  const lines = [
    `${e.checkId} [${e.level}, ${sectionsText(e.sections)}]`,
    `case ${e.caseId} / ${e.step} (${e.format})`,
    `Documented: ${e.expected ?? ''}`,
    `Received:   ${e.received ?? ''}`,
  ];
  if (e.seed !== undefined) lines.push(`Seed: ${e.seed}${e.path ? `  path: ${e.path}` : ''}`);
  if (e.exchange) {
    lines.push(`Exchange:   ${exchangeLine(e.exchange)}`);
    if (e.exchange.request.body) lines.push(`Request body: ${cut(e.exchange.request.body, BODY_LIMIT)}`);
    if (e.exchange.response) lines.push(`Response body: ${cut(e.exchange.response.body, BODY_LIMIT)}`);
  }
  if (e.curl) lines.push(`Reproduce with: ${cut(e.curl, CURL_LIMIT)}`);
  if (e.failureId) lines.push(replay ? `Failure ${e.failureId}: ${replayCommand(e.failureId, replay)}` : `Failure ${e.failureId}: ${replayCommand(e.failureId, { report: 'conformance.json' })} (the conformance.json next to this file)`);
  return lines.join('\n');
}

function observationText(e: CheckExecution): string {
  const lines = [`observed (the document leaves this open): ${e.received ?? ''}`];
  for (const [k, v] of Object.entries(e.observation ?? {})) lines.push(`  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  if (e.exchange) lines.push(`exchange: ${exchangeLine(e.exchange)}`);
  if (e.curl) lines.push(`reproduce with: ${cut(e.curl, CURL_LIMIT)}`);
  return lines.join('\n');
}

/** Before each failure of a run that found its target unusable: what the console says above them. */
const SYMPTOM = '(the target was unusable: this failure may be only its symptom; see the run outcome) ';

function testcase(e: CheckExecution, classname: string, replay: ReplayTarget | undefined, unusable: boolean): string {
  const name = `${e.checkId} · ${e.caseId} · ${e.step}`;
  const open = `    <testcase classname="${escapeXmlAttr(classname)}" name="${escapeXmlAttr(name)}" time="${seconds(e.durationMs)}"`;
  const note = unusable ? SYMPTOM : '';
  switch (e.verdict) {
    case 'fail':
      return `${open}>\n      <failure message="${escapeXmlAttr(note + failureMessage(e))}" type="${escapeXmlAttr(`${e.level}:${e.checkId}`)}">${escapeXmlText(note + failureText(e, replay))}</failure>\n    </testcase>`;
    case 'waived':
      return `${open}>\n      <skipped message="${escapeXmlAttr(e.waiver ? waivedText(e.waiver) : 'waived')}"/>\n    </testcase>`;
    case 'observed':
      return `${open}>\n      <system-out>${escapeXmlText(observationText(e))}</system-out>\n    </testcase>`;
    default:
      return `${open}/>`;
  }
}

/**
 * The testcase of a run that did not end on its own, or that could not judge what its profile's consumed
 * entries needed (exit 3): an error a dashboard counts, never a clean "0 failures".
 */
function outcomeSuite(report: ConformanceReport, propertyXml: string): string | undefined {
  const outcome = report.summary.outcome;
  const consumed = outcome?.status === 'data-consumed' && outcome.exitCode === 3;
  if (!outcome || (outcome.status !== 'target-unusable' && outcome.status !== 'interrupted' && !consumed)) return undefined;
  const type = outcome.status === 'target-unusable' ? 'TargetUnusable' : consumed ? 'DataConsumed' : 'Interrupted';
  const message = consumed ? (outcome.reason ?? report.summary.verdictText) : report.summary.verdictText;
  const text = [message, ...(consumed ? [report.summary.verdictText] : []), `requests sent: ${report.meta.requests}`, `exit code: ${outcome.exitCode}`].join('\n');
  return [
    `  <testsuite name="run" tests="1" failures="0" errors="1" skipped="0" time="0.000" timestamp="${escapeXmlAttr(report.meta.startedAt)}">`,
    propertyXml,
    `    <testcase classname="run" name="run outcome: ${escapeXmlAttr(outcome.status)}" time="0.000">`,
    `      <error message="${escapeXmlAttr(message)}" type="${type}">${escapeXmlText(text)}</error>`,
    '    </testcase>',
    '  </testsuite>',
  ].join('\n');
}

/** One skipped testcase per spec check the run did not exercise, with its reasons (instead of one per skipped execution). */
function notExercisedSuite(report: ConformanceReport, propertyXml: string): string | undefined {
  const missing = report.summary.coverage.notExercised;
  if (missing.length === 0) return undefined;
  return [
    `  <testsuite name="not exercised" tests="${missing.length}" failures="0" errors="0" skipped="${missing.length}" time="0.000" timestamp="${escapeXmlAttr(report.meta.startedAt)}">`,
    propertyXml,
    ...missing.map(
      (n) =>
        `    <testcase classname="not exercised" name="${escapeXmlAttr(`${n.checkId} [spec, section ${sectionsText(n.sections)}]`)}" time="0.000">\n      <skipped message="${escapeXmlAttr(`not exercised: ${n.reasons.join('; ')}`)}"/>\n    </testcase>`,
    ),
    '  </testsuite>',
  ].join('\n');
}

/**
 * JUnit XML for CI dashboards (the file they should read; docs/reports.md): one testcase per judged
 * check execution, classname = operation.format, name = check · case · step. Failures carry section,
 * expected vs received and the curl line; a waived failure is a skipped testcase (`waived: <reason>
 * (until …)`; conformance.json keeps its exchange); observed behaviour is a passed testcase with the
 * observation as system-out. Skipped executions are not listed one by one (a plan or a budget leaves
 * hundreds out): suite "not exercised" has one skipped testcase per spec check the run did not exercise,
 * with its reasons. A run that did not end on its own (target unusable, interrupted) has suite "run" with
 * one error testcase saying so. The suite properties carry the verdict text, the spec checks exercised (N
 * of M), each one not exercised with why, each waiver with its status, the run's outcome and the number
 * of skipped executions. Expects a redacted report.
 */
export function renderJunit(report: ConformanceReport): string {
  const { meta } = report;
  // Runs that recorded where their report is give the whole command; others the file next to this one.
  const replay = meta.replay ? replayTargetOf(meta) : undefined;
  const skippedExecutions = report.executions.filter((e) => e.verdict === 'skip').length;
  const props: Array<[string, string]> = [
    ['target', meta.baseUrl ?? ''],
    ['profile', meta.profile],
    ['seed', meta.seed === null ? '' : String(meta.seed)],
    ['runs', String(meta.runs)],
    ['strict', String(meta.strict)],
    ['destructive', String(meta.destructive)],
    ['harnessVersion', meta.harnessVersion],
    ['documentDigest', meta.documentDigest],
    ['schemasDigest', meta.schemasDigest],
    ['verdict', report.summary.verdictText],
    ...(report.summary.outcome ? ([['outcome', `${report.summary.outcome.status}${report.summary.outcome.reason ? `: ${report.summary.outcome.reason}` : ''}`], ['exitCode', String(report.summary.outcome.exitCode)]] as Array<[string, string]>) : []),
    // A budgeted run's slice of its rotation (ISWC_SLICE): which part of what breadth leaves out it sent.
    ...(meta.plan?.slice !== undefined ? ([['slice', `${meta.plan.slice} (ISWC_SLICE, budget ${meta.plan.budget ?? '-'})`]] as Array<[string, string]>) : []),
    ['specChecksExercised', `${report.summary.coverage.exercised} of ${report.summary.coverage.specChecks}`],
    ['skippedExecutions', String(skippedExecutions)],
    ...report.summary.coverage.notExercised.map((n): [string, string] => [`notExercised.${n.checkId}`, n.reasons.join('; ')]),
    // The one figure for waivers (lib/report/waivers/figures.ts), the same in every report.
    ...(report.summary.waivers ? ([['waivers', `${report.summary.waivers.file}: ${waiverFiguresText(report.summary.waivers.figures)}`]] as Array<[string, string]>) : []),
    ...(report.summary.waivers?.entries ?? []).map((w): [string, string] => [
      `waiver.${w.index}`,
      `${w.status}${w.status === 'used' ? ` ×${w.count}` : ''}${w.missed > 0 ? ` (${w.missed} failing, not like it)` : ''}: ${w.covers}: ${w.reason} (until ${w.until})`,
    ]),
  ];
  const propertyXml = `    <properties>\n${props.map(([k, v]) => `      <property name="${escapeXmlAttr(k)}" value="${escapeXmlAttr(v)}"/>`).join('\n')}\n    </properties>`;
  const listed = report.executions.filter((e) => e.verdict !== 'skip');
  const groups = groupBy(listed, (e) => `${operationKey(e)}.${e.format}`);
  const order = OPERATION_KEYS.flatMap((op) => FORMATS.map((f) => `${op}.${f}`));
  const names = [...groups.keys()].sort((a, b) => (order.indexOf(a) + 1 || 1e9) - (order.indexOf(b) + 1 || 1e9) || a.localeCompare(b));
  const suites: string[] = [];
  const run = outcomeSuite(report, propertyXml);
  if (run) suites.push(run);
  for (const name of names) {
    const list = groups.get(name) ?? [];
    const t = tallyOf(list);
    const time = list.reduce((n, e) => n + (e.durationMs ?? 0), 0);
    suites.push(
      [
        `  <testsuite name="${escapeXmlAttr(name)}" tests="${list.length}" failures="${t.fail}" errors="0" skipped="${t.waived}" time="${seconds(time)}" timestamp="${escapeXmlAttr(meta.startedAt)}">`,
        propertyXml,
        ...list.map((e) => testcase(e, name, replay, report.summary.outcome?.status === 'target-unusable')),
        '  </testsuite>',
      ].join('\n'),
    );
  }
  const missing = notExercisedSuite(report, propertyXml);
  if (missing) suites.push(missing);
  const all = tallyOf(listed);
  const errors = run ? 1 : 0;
  const notExercised = report.summary.coverage.notExercised.length;
  const total = (Date.parse(meta.finishedAt) - Date.parse(meta.startedAt)) / 1000;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="ISWC conformance" tests="${listed.length + notExercised + errors}" failures="${all.fail}" errors="${errors}" skipped="${all.waived + notExercised}" time="${Number.isFinite(total) ? total.toFixed(3) : '0'}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
