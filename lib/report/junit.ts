import type { CheckExecution } from '../run/execution.ts';
import { cut, escapeXmlAttr, escapeXmlText } from './escape.ts';
import type { ConformanceReport } from './model.ts';
import { FORMATS, OPERATION_KEYS, exchangeLine, groupBy, operationKey, sectionsText, tallyOf } from './view.ts';
import { waivedText } from './waivers/apply.ts';

const BODY_LIMIT = 4000;
const CURL_LIMIT = 4000;

function seconds(ms: number | undefined): string {
  return ((ms ?? 0) / 1000).toFixed(3);
}

/** `[spec, §4.1, §7] expected: …; received: …` — the one-line failure message. */
export function failureMessage(e: CheckExecution): string {
  return `[${e.level}, section ${sectionsText(e.sections)}] expected: ${e.expected ?? ''}; received: ${e.received ?? ''}`;
}

/** The failure text: section, expected vs received, the minimal exchange, the curl line. */
export function failureText(e: CheckExecution): string {
  const lines = [
    `${e.checkId} [${e.level}] section ${sectionsText(e.sections)}`,
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
  return lines.join('\n');
}

function observationText(e: CheckExecution): string {
  const lines = [`observed (the document leaves this open): ${e.received ?? ''}`];
  for (const [k, v] of Object.entries(e.observation ?? {})) lines.push(`  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  if (e.exchange) lines.push(`exchange: ${exchangeLine(e.exchange)}`);
  if (e.curl) lines.push(`reproduce with: ${cut(e.curl, CURL_LIMIT)}`);
  return lines.join('\n');
}

function testcase(e: CheckExecution, classname: string): string {
  const name = `${e.checkId} · ${e.caseId} · ${e.step}`;
  const open = `    <testcase classname="${escapeXmlAttr(classname)}" name="${escapeXmlAttr(name)}" time="${seconds(e.durationMs)}"`;
  switch (e.verdict) {
    case 'fail':
      return `${open}>\n      <failure message="${escapeXmlAttr(failureMessage(e))}" type="${escapeXmlAttr(`${e.level}:${e.checkId}`)}">${escapeXmlText(failureText(e))}</failure>\n    </testcase>`;
    case 'skip':
      return `${open}>\n      <skipped message="${escapeXmlAttr(e.skipReason ?? 'skipped')}"/>\n    </testcase>`;
    case 'waived':
      return `${open}>\n      <skipped message="${escapeXmlAttr(e.waiver ? waivedText(e.waiver) : 'waived')}"/>\n    </testcase>`;
    case 'observed':
      return `${open}>\n      <system-out>${escapeXmlText(observationText(e))}</system-out>\n    </testcase>`;
    default:
      return `${open}/>`;
  }
}

/**
 * JUnit XML with one testcase per check execution: classname = operation.format, name = check · case ·
 * step. Failures carry section, expected vs received and the curl line; skips their reason; a waived
 * failure is a skipped testcase (`waived: <reason> (until …)`; conformance.json keeps its exchange);
 * observed behaviour is a passed testcase with the observation as system-out. The suite properties
 * carry the verdict text, the spec checks exercised (N of M), each one not exercised with why, and each
 * waiver with its status. Expects a redacted report.
 */
export function renderJunit(report: ConformanceReport): string {
  const { meta } = report;
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
    ['specChecksExercised', `${report.summary.coverage.exercised} of ${report.summary.coverage.specChecks}`],
    ...report.summary.coverage.notExercised.map((n): [string, string] => [`notExercised.${n.checkId}`, n.reasons.join('; ')]),
    ...(report.summary.waivers?.entries ?? []).map((w): [string, string] => [
      `waiver.${w.index}`,
      `${w.status}${w.status === 'used' ? ` ×${w.count}` : ''}: ${w.check}${w.operation ? ` on ${w.operation}` : ''}${w.format ? ` (${w.format})` : ''}: ${w.reason} (until ${w.until})`,
    ]),
  ];
  const propertyXml = `    <properties>\n${props.map(([k, v]) => `      <property name="${escapeXmlAttr(k)}" value="${escapeXmlAttr(v)}"/>`).join('\n')}\n    </properties>`;
  const groups = groupBy(report.executions, (e) => `${operationKey(e)}.${e.format}`);
  const order = OPERATION_KEYS.flatMap((op) => FORMATS.map((f) => `${op}.${f}`));
  const names = [...groups.keys()].sort((a, b) => (order.indexOf(a) + 1 || 1e9) - (order.indexOf(b) + 1 || 1e9) || a.localeCompare(b));
  const suites: string[] = [];
  for (const name of names) {
    const list = groups.get(name) ?? [];
    const t = tallyOf(list);
    const time = list.reduce((n, e) => n + (e.durationMs ?? 0), 0);
    suites.push(
      [
        `  <testsuite name="${escapeXmlAttr(name)}" tests="${list.length}" failures="${t.fail}" errors="0" skipped="${t.skip + t.waived}" time="${seconds(time)}" timestamp="${escapeXmlAttr(meta.startedAt)}">`,
        propertyXml,
        ...list.map((e) => testcase(e, name)),
        '  </testsuite>',
      ].join('\n'),
    );
  }
  const all = tallyOf(report.executions);
  const total = (Date.parse(meta.finishedAt) - Date.parse(meta.startedAt)) / 1000;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="ISWC conformance" tests="${report.executions.length}" failures="${all.fail}" errors="0" skipped="${all.skip + all.waived}" time="${Number.isFinite(total) ? total.toFixed(3) : '0'}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/** A test of Playwright's junit.xml: its project (the suite's `hostname`), its file (`classname`) and its title path (`name`). */
export interface JunitTestId {
  project: string;
  file: string;
  name: string;
}

function junitTestKey(t: JunitTestId): string {
  return `${t.project}\u0001${t.file}\u0001${t.name}`;
}

function xmlAttributes(tag: string): Map<string, string> {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  const out = new Map<string, string>();
  for (const m of tag.matchAll(/([\w:.-]+)="([^"]*)"/g)) {
    out.set(m[1] ?? '', (m[2] ?? '').replace(/&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-f]+));/gi, (all, name: string, dec?: string, hex?: string) => (dec ? String.fromCodePoint(Number(dec)) : hex ? String.fromCodePoint(parseInt(hex, 16)) : (entities[name] ?? all))));
  }
  return out;
}

/** Adds `delta` to the integer attribute `name` of an opening tag. */
function bump(tag: string, name: string, delta: number): string {
  return tag.replace(new RegExp(`\\b${name}="(\\d+)"`), (_all, n: string) => `${name}="${Math.max(0, Number(n) + delta)}"`);
}

/**
 * Playwright's junit reporter writes a test that threw as an `<error>`, and only an `expect` failure as a
 * `<failure>`: a conformance test that fails on its gating checks throws, so CI dashboards counted its
 * failures as errors (`errors="58" failures="0"`). This rewrites the `<error>` of each test in `gating`
 * (the tests whose executions held a gating failure) as a `<failure type="gating check failures">` and
 * moves the suites' and the root's counts from errors to failures; every other error (a crash, a
 * timeout in another test) stays an error. CDATA sections (the failure texts, hostile bodies included)
 * are left as they are: tags are only looked for outside them.
 */
export function gatingErrorsAsFailures(xml: string, gating: readonly JunitTestId[]): { xml: string; converted: number } {
  const wanted = new Set(gating.map(junitTestKey));
  if (wanted.size === 0) return { xml, converted: 0 };
  const cdata: string[] = [];
  const masked = xml.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, (section) => `\u0000${cdata.push(section) - 1}\u0000`);
  const tokens = masked.split(/(<\/?(?:testsuites|testsuite|testcase|error)\b[^>]*>)/);
  let project = '';
  let file = '';
  let rootIndex = -1;
  let suiteIndex = -1;
  let inTarget = false;
  let suiteConverted = 0;
  let converted = 0;
  for (let i = 1; i < tokens.length; i += 2) {
    const tag = tokens[i] ?? '';
    const name = /^<\/?([\w]+)/.exec(tag)?.[1];
    const closing = tag.startsWith('</');
    if (name === 'testsuites' && !closing) rootIndex = i;
    else if (name === 'testsuite' && !closing) {
      const attrs = xmlAttributes(tag);
      project = attrs.get('hostname') ?? '';
      file = attrs.get('name') ?? '';
      suiteIndex = i;
      suiteConverted = 0;
    } else if (name === 'testsuite' && closing) {
      if (suiteIndex >= 0 && suiteConverted > 0) tokens[suiteIndex] = bump(bump(tokens[suiteIndex] ?? '', 'failures', suiteConverted), 'errors', -suiteConverted);
      suiteIndex = -1;
    } else if (name === 'testcase' && !closing) {
      const attrs = xmlAttributes(tag);
      inTarget = !tag.endsWith('/>') && wanted.has(junitTestKey({ project, file: attrs.get('classname') ?? file, name: attrs.get('name') ?? '' }));
    } else if (name === 'testcase' && closing) inTarget = false;
    else if (name === 'error' && inTarget) {
      if (closing) tokens[i] = '</failure>';
      else {
        tokens[i] = tag.replace(/^<error\b/, '<failure').replace(/\btype="[^"]*"/, 'type="gating check failures"');
        suiteConverted += 1;
        converted += 1;
      }
    }
  }
  if (rootIndex >= 0 && converted > 0) tokens[rootIndex] = bump(bump(tokens[rootIndex] ?? '', 'failures', converted), 'errors', -converted);
  const out = tokens.join('').replace(/\u0000(\d+)\u0000/g, (_all, n: string) => cdata[Number(n)] ?? '');
  return { xml: out, converted };
}
