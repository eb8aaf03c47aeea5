import { figuresOf, figuresText } from './figures.ts';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { CheckExecution, Level, Verdict } from '../run/execution.ts';
import { gating } from '../check/gating.ts';
import { canonicalJson } from './canonical.ts';
import { cut, escapeHtml as h } from './escape.ts';
import { HTML_SCRIPT } from './html-script.ts';
import type { ConformanceReport, RunNetwork, RunSummary, Tally } from './model.ts';
import type { CheckInfo } from './view.ts';
import { FORMATS, OPERATION_KEYS, checkInfo, exchangeTexts, groupBy, operationKey, operationLabel, sectionsOf, sectionsText, tallyOf, worstVerdict } from './view.ts';
import type { ReplayTarget } from './identity.ts';
import { replayArgs, replayCommand, replayTargetOf } from './identity.ts';
import { waivedText } from './waivers/apply.ts';
import { waiverFiguresText } from './waivers/figures.ts';
import { plural } from './verdict.ts';
import { deviationsHeadline } from './deviations.ts';
import { formatsLabel } from '../contract/profile/types.ts';
import type { WaiverUse } from './waivers/types.ts';

const BODY_LIMIT = 8000;
/** A curl line that carries a generated multi-MiB body is cut for display; conformance.json keeps it whole. */
const CURL_LIMIT = 4000;
/** Received texts are one line each; the exchange holds the rest. */
const RECEIVED_LIMIT = 600;

/** Colours per verdict, shared by the matrix, the chart and the certificate. */
export const VERDICT_COLOUR: Record<Verdict, string> = { pass: '#2e7d32', fail: '#c62828', skip: '#9e9e9e', observed: '#1565c0', waived: '#ef6c00' };
const VERDICT_WORD: Record<Verdict, string> = { pass: 'passed', fail: 'failed', skip: 'skipped', observed: 'observed', waived: 'waived' };
const LEVEL_ORDER: Record<Level, number> = { spec: 0, http: 1, observed: 2 };

/** Shared page frame: no network (CSP forbids every fetch), inline CSS and script only. */
export function page(title: string, body: string, script = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1200px;padding:16px 24px;color:#212121}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f5f5f5}code,pre{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
pre{background:#fafafa;border:1px solid #e0e0e0;padding:6px 8px;white-space:pre-wrap;word-break:break-all;margin:4px 0;max-height:360px;overflow:auto}
.badge{display:inline-block;padding:2px 10px;border-radius:10px;color:#fff;font-weight:600}
.v-pass{background:#e8f5e9}.v-fail{background:#ffcdd2;font-weight:600}.v-skip{background:#eeeeee;color:#555}.v-observed{background:#e3f2fd}.v-waived{background:#ffe0b2}.v-none{color:#bbb}
.ok{background:${VERDICT_COLOUR.pass}}.bad{background:${VERDICT_COLOUR.fail}}.grey{background:${VERDICT_COLOUR.skip}}.waived{background:${VERDICT_COLOUR.waived}}
.label-waived{display:inline-block;padding:0 6px;border-radius:8px;background:${VERDICT_COLOUR.waived};color:#fff;font-size:12px;font-weight:600}
details{border:1px solid #e0e0e0;border-radius:4px;margin:6px 0;padding:4px 8px}details[open]{background:#fffdf7}
summary{cursor:pointer}.meta td:first-child{color:#555;white-space:nowrap}.muted{color:#777}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:10px}.cols>div{min-width:0}
.toolbar{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid #ddd;padding:6px 0;display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.toolbar input[type=search]{min-width:260px;padding:3px 6px}
.count{display:inline-block;min-width:24px;padding:0 6px;border-radius:8px;background:#eceff1;font-weight:600;text-align:center}
.group>summary{list-style-position:outside}.group .first-example{margin:6px 0 4px}
.hits{color:#6a1b9a;font-weight:600;margin-left:6px}.gating{color:${VERDICT_COLOUR.fail};font-weight:600}.not-gating{color:#8d6e63}
table.examples{width:100%}table.examples td.received{word-break:break-word}
[hidden]{display:none!important}
</style>
</head>
<body>
${body}
${script ? `<script>${script}</script>` : ''}
</body>
</html>
`;
}

function cellText(t: Tally): string {
  const parts: string[] = [];
  if (t.fail) parts.push(`${t.fail} ✗`);
  if (t.waived) parts.push(`${t.waived} waived`);
  if (t.skip) parts.push(`${t.skip} skipped`);
  if (t.observed) parts.push(`${t.observed} observed`);
  if (t.pass) parts.push(`${t.pass} ✓`);
  return parts.join(' · ');
}

/** A stacked horizontal bar per operation: verdict counts of its check executions. */
export function verdictChart(report: ConformanceReport): string {
  const byOp = groupBy(report.executions, operationKey);
  const rows = OPERATION_KEYS.filter((k) => byOp.has(k));
  const barWidth = 560;
  const labelWidth = 230;
  const rowHeight = 26;
  const height = rows.length * rowHeight + 34;
  const parts: string[] = [];
  rows.forEach((key, i) => {
    const t = tallyOf(byOp.get(key) ?? []);
    const total = t.pass + t.fail + t.skip + t.observed + t.waived;
    const y = i * rowHeight + 4;
    parts.push(`<text x="0" y="${y + 15}" font-size="12">${h(operationLabel(key))}</text>`);
    let x = labelWidth;
    for (const v of ['fail', 'waived', 'skip', 'observed', 'pass'] as const) {
      if (t[v] === 0) continue;
      const w = Math.max(2, (t[v] / total) * barWidth);
      parts.push(`<rect class="bar bar-${v}" x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="18" fill="${VERDICT_COLOUR[v]}"><title>${h(`${operationLabel(key)}: ${t[v]} ${VERDICT_WORD[v]}`)}</title></rect>`);
      x += w;
    }
    parts.push(`<text x="${labelWidth + barWidth + 8}" y="${y + 15}" font-size="12">${t.fail} ✗ · ${t.pass} ✓ · ${t.skip} skip · ${t.observed} obs${t.waived ? ` · ${t.waived} waived` : ''}</text>`);
  });
  let lx = labelWidth;
  const ly = rows.length * rowHeight + 14;
  for (const v of ['pass', 'fail', 'waived', 'skip', 'observed'] as const) {
    parts.push(`<rect x="${lx}" y="${ly}" width="12" height="12" fill="${VERDICT_COLOUR[v]}"/><text x="${lx + 16}" y="${ly + 11}" font-size="12">${VERDICT_WORD[v]}</text>`);
    lx += 90;
  }
  return `<svg id="chart" role="img" aria-label="Verdicts per operation" xmlns="http://www.w3.org/2000/svg" width="${labelWidth + barWidth + 260}" height="${height}" viewBox="0 0 ${labelWidth + barWidth + 260} ${height}">${parts.join('')}</svg>`;
}

/** An exchange as two columns (request, response) of escaped text. */
function exchangeHtml(e: CheckExecution): string {
  if (!e.exchange) return '';
  const x = exchangeTexts(e.exchange, BODY_LIMIT);
  return `<div class="cols"><div><b>Request</b><pre class="request">${h(x.request)}</pre></div><div><b>Response</b> <span class="muted">${h(x.timing)}</span><pre class="response">${h(x.response)}</pre></div></div>`;
}

/**
 * One example as the page's script reads it (lib/report/html-script.ts): where (case, step, format),
 * what came, why it was skipped or waived, the seed, the request's facts, and the exchange already as
 * text. `e` (expected) only where it differs from the group's first example.
 */
interface Example {
  c: string;
  s: string;
  f?: string;
  r?: string;
  k?: string;
  w?: string;
  e?: string;
  sd?: number;
  p?: string;
  /** The failure's id (replay <id>). */
  i?: string;
  o?: unknown;
  q?: string;
  a?: string;
  t?: string;
  u?: string;
}

function example(e: CheckExecution, groupExpected: string | undefined, withFormat = false): Example {
  const x: Example = { c: e.caseId, s: e.step };
  if (withFormat) x.f = e.format;
  if (e.received) x.r = cut(e.received, RECEIVED_LIMIT);
  if (e.skipReason) x.k = e.skipReason;
  if (e.waiver) x.w = `waived: ${waivedText(e.waiver)}`;
  if (e.expected && e.expected !== groupExpected) x.e = e.expected;
  if (e.seed !== undefined) x.sd = e.seed;
  if (e.path) x.p = e.path;
  if (e.failureId) x.i = e.failureId;
  const facts = e.observation?.request;
  if (facts !== undefined) x.o = facts;
  if (e.exchange) {
    const t = exchangeTexts(e.exchange, BODY_LIMIT);
    x.q = t.request;
    x.a = t.response;
    x.t = t.timing;
  }
  if (e.curl) x.u = cut(e.curl, CURL_LIMIT);
  return x;
}

/** Lower-case text the search box reads for an item. */
function searchText(parts: ReadonlyArray<string | undefined>): string {
  return parts
    .filter((p): p is string => !!p)
    .join(' ')
    .toLowerCase();
}

/** The filter attributes of an item: each a space-separated set. */
function itemAttrs(a: { level: Iterable<string>; op: Iterable<string>; format: Iterable<string>; verdict: Iterable<string>; text: string; examples?: string }): string {
  const set = (v: Iterable<string>) => h([...new Set(v)].join(' '));
  return `data-level="${set(a.level)}" data-op="${set(a.op)}" data-format="${set(a.format)}" data-verdict="${set(a.verdict)}" data-text="${h(a.text)}"${a.examples ? ` data-examples="${h(a.examples)}"` : ''}`;
}

/** Failures (or waived failures) of one check on one operation in one format. */
interface FailureGroup {
  id: string;
  checkId: string;
  level: Level;
  op: string;
  format: string;
  list: CheckExecution[];
}

function failureGroups(executions: readonly CheckExecution[], verdict: 'fail' | 'waived', prefix: string, info: Map<string, CheckInfo>): FailureGroup[] {
  const checkOrder = new Map([...info.keys()].map((id, i) => [id, i]));
  const opOrder = new Map(OPERATION_KEYS.map((k, i) => [k, i]));
  const groups = [...groupBy(executions.filter((e) => e.verdict === verdict), (e) => `${e.checkId}\u0001${operationKey(e)}\u0001${e.format}`).values()].map((list) => {
    const first = list[0];
    return { id: '', checkId: first.checkId, level: first.level, op: operationKey(first), format: first.format, list };
  });
  groups.sort(
    (a, b) =>
      LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] ||
      (checkOrder.get(a.checkId) ?? 1e9) - (checkOrder.get(b.checkId) ?? 1e9) ||
      (opOrder.get(a.op) ?? 1e9) - (opOrder.get(b.op) ?? 1e9) ||
      a.format.localeCompare(b.format),
  );
  groups.forEach((g, i) => (g.id = `${prefix}${i + 1}`));
  return groups;
}

/**
 * A group: its check, sections, operation and format, the count, whether it gates; open, the first
 * example in full (expected, received, exchange, curl line); the others on demand from the payload.
 */
function groupHtml(g: FailureGroup, info: Map<string, CheckInfo>, strict: boolean, payload: Record<string, Example[]>, replay: ReplayTarget): string {
  const first = g.list[0];
  const waived = first.verdict === 'waived';
  const c = info.get(g.checkId);
  const sections = sectionsText(sectionsOf(g.list));
  const expectedTexts = new Set(g.list.map((e) => e.expected ?? ''));
  const receivedTexts = new Set(g.list.map((e) => e.received ?? ''));
  payload[g.id] = g.list.map((e) => example(e, first.expected));
  const gate = waived
    ? '<span class="label-waived">waived</span>'
    : gating(g.level, strict)
      ? '<span class="gating">gating</span>'
      : `<span class="not-gating">not gating${g.level === 'http' ? ' (ISWC_STRICT=1 makes it gate)' : ''}</span>`;
  const reasons = waived ? [...new Set(g.list.map((e) => (e.waiver ? waivedText(e.waiver) : 'waived')))] : [];
  const text = searchText([g.checkId, c?.description, g.level, sections, g.op, operationLabel(g.op), g.format, first.expected, ...reasons]);
  const attrs = itemAttrs({ level: [g.level], op: [g.op], format: [g.format], verdict: [first.verdict], text, examples: g.id });
  return `<details class="group item ${waived ? 'waived-group' : 'failure-group'}" id="${g.id}" data-check="${h(g.checkId)}" data-count="${g.list.length}" ${attrs}>
<summary><span class="count">${g.list.length}</span> <b>${h(g.checkId)}</b> <span class="muted">[${h(g.level)}, ${h(sections)}]</span> ${h(operationLabel(g.op))} · ${h(g.format.toUpperCase())} — ${gate}<span class="hits"></span><br><span class="muted">${h(cut(first.received ?? '', 200))}${receivedTexts.size > 1 ? ` (and ${receivedTexts.size - 1} other answer${receivedTexts.size > 2 ? 's' : ''})` : ''}</span></summary>
<p class="muted">${h(c?.description ?? '')}</p>
<table class="meta">${reasons.length > 0 ? `<tr><td>Waiver</td><td class="waiver">${h(reasons.join('; '))}</td></tr>` : ''}<tr><td>Documented (expected)</td><td class="expected">${h(first.expected ?? '')}${expectedTexts.size > 1 ? ` <span class="muted">(${expectedTexts.size} texts in this group; each example shows its own)</span>` : ''}</td></tr></table>
<details class="example first-example" open><summary>First of ${g.list.length}: <code>${h(first.caseId)}</code> / ${h(first.step)}</summary>
<table class="meta"><tr><td>Received</td><td class="received">${h(first.received ?? '')}</td></tr>${first.seed !== undefined ? `<tr><td>Seed / path</td><td><code>${h(`${first.seed}${first.path ? ` ${first.path}` : ''}`)}</code>${first.generated ? ` · ${h(cut(first.generated, 300))}` : ''}</td></tr>` : ''}${first.failureId ? `<tr><td>Failure id</td><td class="failure-id"><code>${h(first.failureId)}</code> · replay: <code class="replay">${h(replayCommand(first.failureId, replay))}</code></td></tr>` : ''}</table>
${exchangeHtml(first)}
${first.curl ? `<b>Reproduce with</b><pre class="curl">${h(cut(first.curl, CURL_LIMIT))}</pre>` : ''}
</details>
${g.list.length > 1 ? `<div class="more" data-examples="${g.id}" data-skip-first="yes"><button type="button" class="show-more">Show the other ${g.list.length - 1}</button></div>` : ''}
</details>`;
}

/** Observed executions of one point (check × operation), merged by the answer's facts and format, with counts. */
function observedHtml(executions: readonly CheckExecution[], info: Map<string, CheckInfo>, payload: Record<string, Example[]>): { html: string; count: number } {
  const observed = executions.filter((e) => e.verdict === 'observed');
  const checkOrder = new Map([...info.keys()].map((id, i) => [id, i]));
  const opOrder = new Map(OPERATION_KEYS.map((k, i) => [k, i]));
  const points = [...groupBy(observed, (e) => `${e.checkId}\u0001${operationKey(e)}`).values()].sort((a, b) => {
    const x = a[0];
    const y = b[0];
    return (checkOrder.get(x.checkId) ?? 1e9) - (checkOrder.get(y.checkId) ?? 1e9) || (opOrder.get(operationKey(x)) ?? 1e9) - (opOrder.get(operationKey(y)) ?? 1e9);
  });
  const blocks = points.map((list, i) => {
    const first = list[0];
    const id = `o${i + 1}`;
    const c = info.get(first.checkId);
    const answer = (e: CheckExecution) => {
      const { request: _request, ...facts } = e.observation ?? {};
      return facts;
    };
    const rows = [...groupBy(list, (e) => `${e.format}\u0001${canonicalJson(answer(e))}`).values()].sort((a, b) => b.length - a.length);
    const rowHtml = rows.map((of, j) => {
      const key = `${id}.${j + 1}`;
      const e = of[0];
      payload[key] = of.map((x) => example(x, undefined));
      const facts = Object.entries(answer(e))
        .map(([k, v]) => `<b>${h(k)}</b>: ${h(typeof v === 'string' ? v : JSON.stringify(v))}`)
        .join('<br>');
      return `<tr class="fact" data-examples="${key}"><td>${h(e.format.toUpperCase())}</td><td class="facts">${facts}</td><td><span class="count">${of.length}</span></td><td><button type="button" class="show-cases">cases</button> <span class="muted">${h(of.slice(0, 3).map((x) => x.caseId).join(', '))}${of.length > 3 ? ' …' : ''}</span></td></tr>`;
    });
    const op = operationKey(first);
    const sections = sectionsText(sectionsOf(list));
    const text = searchText([first.checkId, c?.description, sections, op, operationLabel(op), ...rows.map((of) => canonicalJson(answer(of[0])))]);
    const attrs = itemAttrs({ level: ['observed'], op: [op], format: list.map((e) => e.format), verdict: ['observed'], text });
    return `<details class="group item observed-group" id="${id}" data-check="${h(first.checkId)}" data-count="${list.length}" ${attrs}>
<summary><span class="count">${list.length}</span> <b>${h(first.checkId)}</b> <span class="muted">[${h(sections)}]</span> ${h(operationLabel(op))} — ${rows.length} distinct answer${rows.length === 1 ? '' : 's'}<span class="hits"></span></summary>
<p class="muted">${h(c?.description ?? '')}</p>
<table class="observed"><tr><th>Format</th><th>Facts recorded</th><th>Times</th><th>Cases</th></tr>${rowHtml.join('')}</table>
</details>`;
  });
  return { html: blocks.join('\n'), count: observed.length };
}

const PAYLOAD_TYPE = 'application/gzip+base64';

/**
 * The examples of the page, gzip-compressed and base64-encoded: every failure, waived failure and
 * observation (thousands of exchanges differ in little, so they compress tenfold and more). A non-script
 * type: the browser never runs it; the page's script unpacks it.
 */
function payloadScript(payload: Record<string, Example[]>): string {
  const packed = gzipSync(Buffer.from(JSON.stringify(payload), 'utf8')).toString('base64');
  return `<script id="iswc-examples" type="${PAYLOAD_TYPE}">${packed}</script>`;
}

/** The examples a conformance.html carries, unpacked (for tests and for tools that read the page). */
export function pageExamples(html: string): Record<string, Array<Record<string, unknown>>> {
  const packed = /<script id="iswc-examples" type="application\/gzip\+base64">([^<]*)<\/script>/.exec(html)?.[1];
  if (packed === undefined) return {};
  return JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8')) as Record<string, Array<Record<string, unknown>>>;
}

/**
 * The self-contained HTML conformance report: run metadata, verdict chart per operation, the matrix
 * operation × check (level, sections of the row's executions) coloured by verdict for JSON and XML, the
 * failures grouped by check × operation × format with a count and their first example open (expected,
 * received, exchange, curl line), the rest on demand; skips with their reasons; observed behaviour merged
 * by point with counts. A toolbar searches and filters (level, operation, format, verdict), expands and
 * collapses all. Every example is in the file (compressed), so it needs no network and stays small at
 * thousands of failures. Every text is HTML-escaped: response bodies are hostile input. Expects a
 * redacted report.
 */
/** The proxy and extra headers of the run, when it had any. */
function networkRows(network: RunNetwork | undefined): Array<[string, string]> {
  if (!network) return [];
  const rows: Array<[string, string]> = [];
  if (network.proxy) rows.push(['Proxy', `${network.proxy.url} (${network.proxy.variable}, ${network.proxy.mode === 'connect' ? 'CONNECT tunnel' : 'absolute-form requests'})`]);
  if (network.extraHeaders.length > 0) rows.push(['Extra headers', `${network.extraHeaders.join(', ')} (values never written)`]);
  return rows;
}

export function renderHtml(report: ConformanceReport): string {
  const { meta, summary } = report;
  const info = checkInfo(report.executions);
  const payload: Record<string, Example[]> = {};
  const failures = failureGroups(report.executions, 'fail', 'f', info);
  const waived = failureGroups(report.executions, 'waived', 'w', info);
  const groupOf = new Map<string, string>();
  for (const g of [...failures, ...waived]) groupOf.set(`${g.list[0]?.verdict}\u0001${g.checkId}\u0001${g.op}\u0001${g.format}`, g.id);
  const failureCount = failures.reduce((n, g) => n + g.list.length, 0);
  // The replay command of a failure, as the run's caller types it in the directory the run was started in.
  const replay = replayTargetOf(meta);

  const metaRows: Array<[string, string]> = [
    ['Target', `${meta.baseUrl ?? '?'}${meta.embedded ? ' (embedded reference server)' : ''}`],
    ...networkRows(meta.network),
    ['Profile', `${meta.profile}${meta.formats ? ` (${formatsLabel({ formats: meta.formats }) ?? ''}: no ${(['json', 'xml'] as const).filter((f) => !meta.formats?.includes(f)).map((f) => f.toUpperCase()).join(', ')} request sent)` : ''}`],
    ['Seed', meta.seed === null ? '—' : String(meta.seed)],
    ['ISWC_RUNS', String(meta.runs)],
    ['Strict', meta.strict ? 'yes (http failures gate)' : 'no'],
    ['Destructive', meta.destructive ? 'yes' : 'no'],
    ['Started / finished', `${meta.startedAt} / ${meta.finishedAt}`],
    ['Requests', figuresText(figuresOf(meta))],
    ['Harness', meta.harnessVersion],
    ['Document digest', meta.documentDigest],
    ['Schemas digest', meta.schemasDigest],
    ...(summary.waivers ? [['Waivers', `${summary.waivers.file}: ${waiverFiguresText(summary.waivers.figures)} (expiry judged on ${summary.waivers.date}, UTC)`] as [string, string]] : []),
  ];
  const levelRows = (['spec', 'http', 'observed'] as const)
    .map((l) => {
      const t = summary.byLevel[l];
      return `<tr><td>${l}</td><td>${t.pass}</td><td class="${t.fail ? 'v-fail' : ''}">${t.fail}</td><td class="${t.waived ? 'v-waived' : ''}">${t.waived}</td><td>${t.skip}</td><td>${t.observed}</td></tr>`;
    })
    .join('');

  // Matrix: one row per (operation, check), one column per format; a cell links to its group.
  const byOp = groupBy(report.executions, operationKey);
  const matrixRows: string[] = [];
  for (const op of OPERATION_KEYS) {
    const list = byOp.get(op);
    if (!list) continue;
    const byCheck = groupBy(list, (e) => e.checkId);
    const checks = [...info.keys()].filter((id) => byCheck.has(id));
    matrixRows.push(`<tr class="op item" ${itemAttrs({ level: list.map((e) => e.level), op: [op], format: [], verdict: list.map((e) => e.verdict), text: searchText([op, operationLabel(op), ...checks]) })}><th colspan="5">${h(operationLabel(op))} <span class="muted">${op === 'other' ? '' : h(op)}</span></th></tr>`);
    for (const id of checks) {
      const c = info.get(id);
      const ofCheck = byCheck.get(id) ?? [];
      const cells = FORMATS.map((f) => {
        const t = tallyOf(ofCheck.filter((e) => e.format === f));
        const worst = worstVerdict(t);
        if (!worst) return `<td class="v-none">—</td>`;
        const text = h(cellText(t));
        const target = t.fail > 0 ? groupOf.get(`fail\u0001${id}\u0001${op}\u0001${f}`) : t.waived > 0 ? groupOf.get(`waived\u0001${id}\u0001${op}\u0001${f}`) : undefined;
        return `<td class="cell v-${worst}" data-verdict="${worst}" data-format="${f}">${target ? `<a href="#${target}">${text}</a>` : text}</td>`;
      });
      const sections = sectionsText(sectionsOf(ofCheck));
      const rowFail = ofCheck.some((e) => e.verdict === 'fail');
      const attrs = itemAttrs({ level: [c?.level ?? ofCheck[0]?.level ?? 'spec'], op: [op], format: ofCheck.map((e) => e.format), verdict: ofCheck.map((e) => e.verdict), text: searchText([id, c?.description, sections, op, operationLabel(op)]) });
      matrixRows.push(
        `<tr class="check item${rowFail ? ' has-fail' : ''}" data-op="${h(op)}" data-check="${h(id)}" ${attrs}><td><code>${h(id)}</code><div class="muted">${h(c?.description ?? '')}</div></td><td>${h(c?.level ?? '')}</td><td class="sections">${h(sections)}</td>${cells.join('')}</tr>`,
      );
    }
  }

  const skipped = report.executions.filter((e) => e.verdict === 'skip');
  const skipRows = [...groupBy(skipped, (e) => e.skipReason ?? '').entries()]
    .map(([reason, list]) => {
      const cases = [...new Set(list.map((e) => e.caseId))];
      const checks = [...new Set(list.map((e) => e.checkId))];
      const attrs = itemAttrs({ level: list.map((e) => e.level), op: list.map(operationKey), format: list.map((e) => e.format), verdict: ['skip'], text: searchText([reason, ...checks, ...cases]) });
      return `<tr class="skip item" ${attrs}><td>${h(reason)}</td><td>${list.length}</td><td>${h(checks.join(', '))}</td><td>${h(cases.slice(0, 12).join(', '))}${cases.length > 12 ? ` … (${cases.length} cases)` : ''}</td></tr>`;
    })
    .join('');

  const observed = observedHtml(report.executions, info, payload);
  const operations = OPERATION_KEYS.filter((k) => byOp.has(k));
  const option = (value: string, label: string) => `<option value="${h(value)}">${h(label)}</option>`;
  const toolbar = `<div class="toolbar" id="toolbar">
<input type="search" id="search" placeholder="Search checks, cases, answers…" aria-label="Search checks, cases and answers">
<select id="filter-level" aria-label="Level">${option('', 'every level')}${(['spec', 'http', 'observed'] as const).map((l) => option(l, l)).join('')}</select>
<select id="filter-operation" aria-label="Operation">${option('', 'every operation')}${operations.map((k) => option(k, operationLabel(k))).join('')}</select>
<select id="filter-format" aria-label="Format">${option('', 'JSON and XML')}${FORMATS.map((f) => option(f, f.toUpperCase())).join('')}</select>
<select id="filter-verdict" aria-label="Verdict">${option('', 'every verdict')}${(['fail', 'waived', 'skip', 'observed', 'pass'] as const).map((v) => option(v, VERDICT_WORD[v])).join('')}</select>
<button type="button" id="clear-filters">Clear</button><button type="button" id="expand-all">Expand all</button><button type="button" id="collapse-all">Collapse all</button>
<span id="filter-status" class="muted"></span>
</div>`;

  const body = `<header>
<h1>ISWC Agency API conformance report <span id="verdict" class="badge ${badgeClass(summary)}" data-verdict="${h(summary.verdict)}">${h(summary.verdictText)}</span></h1>
<p id="deviations"><b>${h(deviationsHeadline(report.executions))}</b></p>
<table class="meta" id="run-meta">${metaRows.map(([k, v]) => `<tr><td>${h(k)}</td><td>${h(v)}</td></tr>`).join('')}</table>
</header>
${outcomeHtml(summary)}
${coverageHtml(summary)}
<h2>Checks per level</h2>
<table id="levels"><tr><th>Level</th><th>Passed</th><th>Failed</th><th>Waived</th><th>Skipped</th><th>Observed</th></tr>${levelRows}</table>
<p class="muted">spec: stated by the interface document (always gating) · http: RFC 9110 conventions the document does not state (gating with ISWC_STRICT=1) · observed: the document leaves the point open; facts recorded, never a failure. ${summary.gatingFailures} gating failure(s).</p>
<h2>Verdicts per operation</h2>
${verdictChart(report)}
${toolbar}
<h2 id="failures-title">Failures (${failureCount} in ${failures.length} group${failures.length === 1 ? '' : 's'})</h2>
<p class="muted">Grouped by check × operation × format, gating first. Each group opens on its first example; the others are listed on demand, each with its exchange. A failure's replay command runs as printed from the directory the run was started in (<code id="replay-args" data-args="${h(replayArgs(replay))}">npx iswc-conformance replay ID ${h(replayArgs(replay))}</code>), with ISWC_SUBSCRIPTION_KEY set.</p>
<div id="failures">${failures.length === 0 ? '<p>No check failed.</p>' : failures.map((g) => groupHtml(g, info, meta.strict, payload, replay)).join('\n')}</div>
${waiversHtml(summary, waived, info, meta.strict, payload, replay)}
<h2>Matrix: operation × check</h2>
<p class="muted">Each cell counts the check's executions in that format; a cell with failures links to their group. Sections are those the row's executions cite.</p>
<table id="matrix"><tr><th>Check</th><th>Level</th><th>Section</th><th>JSON</th><th>XML</th></tr>${matrixRows.join('\n')}</table>
<h2>Skipped (${skipped.length})</h2>
${skipped.length === 0 ? '<p>Nothing was skipped.</p>' : `<table id="skipped"><tr><th>Reason</th><th>Check executions</th><th>Checks</th><th>Cases</th></tr>${skipRows}</table>`}
<h2>Observed behaviour (${observed.count})</h2>
<p class="muted">Points the document leaves open ("not shown"): what the target answered, merged by check and operation, each distinct answer with how often it came. These are facts about the target, not failures.</p>
<div id="observed">${observed.html || '<p>Nothing observed.</p>'}</div>
${payloadScript(payload)}`;
  return page(`ISWC conformance — ${meta.baseUrl ?? ''} — ${summary.verdictText}`, body, HTML_SCRIPT);
}

function badgeClass(summary: RunSummary): string {
  if (summary.verdict === 'not conformant' || summary.verdict === 'target unusable' || summary.verdict === 'interrupted') return 'bad';
  if (summary.verdict === 'partial') return 'grey';
  return summary.verdictText === 'conformant' ? 'ok' : 'waived';
}

/** How a run that did not complete its plan ended (target unusable, interrupted, time limit); nothing otherwise. */
function outcomeHtml(summary: RunSummary): string {
  const outcome = summary.outcome;
  if (!outcome || outcome.status === 'completed') return '';
  const title =
    outcome.status === 'target-unusable'
      ? 'Target unusable'
      : outcome.status === 'interrupted'
        ? 'Interrupted'
        : outcome.status === 'budget'
          ? 'Stopped at its request budget'
          : outcome.status === 'data-consumed'
            ? "The profile's disposable data is consumed"
            : 'Stopped at its time limit';
  return `<p id="outcome" class="badge ${outcome.status === 'max-duration' || outcome.status === 'budget' ? 'grey' : 'bad'}" data-status="${h(outcome.status)}">${h(title)}: ${h(outcome.reason ?? '')} (exit code ${outcome.exitCode})</p>`;
}

/** The spec checks a partial run did not exercise, with why; nothing when every one was. */
function coverageHtml(summary: RunSummary): string {
  const { coverage } = summary;
  if (coverage.notExercised.length === 0) return `<p id="coverage" class="muted">All ${coverage.specChecks} spec checks of the document were exercised.</p>`;
  const rows = coverage.notExercised.map((n) => `<tr data-check="${h(n.checkId)}"><td><code>${h(n.checkId)}</code></td><td>${h(sectionsText(n.sections))}</td><td>${h(n.reasons.join('; '))}</td></tr>`).join('');
  return `<h2 id="coverage">Partial run: ${coverage.exercised} of ${coverage.specChecks} spec checks exercised</h2>
<p>This run is not a full pass: ${coverage.notExercised.length} spec check(s) of the document were not exercised (set ISWC_REQUIRE_ALL=1 to make such a run fail).</p>
<table id="not-exercised"><tr><th>Spec check</th><th>Section</th><th>Why not exercised</th></tr>${rows}</table>`;
}

const WAIVER_STATUS_TEXT: Record<WaiverUse['status'], string> = {
  used: 'used',
  unused: 'unused: its check ran on the operation and cases it names, and nothing matched (remove it if the deviation is fixed)',
  'not exercised': 'not exercised: its check never ran on the operation and cases it names in this run (keep it)',
  expired: 'expired: its failures gate again',
};

/** The waived failures, grouped like failures, each with its reason, and every waiver of the file with its status. */
function waiversHtml(summary: RunSummary, groups: readonly FailureGroup[], info: Map<string, CheckInfo>, strict: boolean, payload: Record<string, Example[]>, replay: ReplayTarget): string {
  const parts: string[] = [];
  const count = groups.reduce((n, g) => n + g.list.length, 0);
  if (count > 0 || summary.waivers) {
    parts.push(`<h2 id="waived-title">Waived (${plural(count, 'check execution')})</h2>`);
    // The one figure for waivers (lib/report/waivers/figures.ts), the same in every report.
    if (summary.waivers) parts.push(`<p id="waiver-figures">Waivers of ${h(summary.waivers.file)}: ${h(waiverFiguresText(summary.waivers.figures))}</p>`);
    parts.push('<p class="muted">Failures of known deviations, waived in the open by the run\'s waivers file (ISWC_WAIVERS) until the date given. They do not fail the run.</p>');
    parts.push(`<div id="waived">${count === 0 ? '<p>No failure was waived.</p>' : groups.map((g) => groupHtml(g, info, strict, payload, replay)).join('\n')}</div>`);
  }
  if (summary.waivers) {
    const rows = summary.waivers.entries
      .map(
        (w) =>
          `<tr class="waiver-entry status-${w.status}" data-index="${w.index}"><td>${w.index} <span class="muted">line ${w.line}</span></td><td><code>${h(w.check)}</code><br><span class="muted covers">covers ${h(w.covers)}${w.missed > 0 ? `; ${w.missed} failure(s) of its check looked otherwise and fail` : ''}</span></td><td>${h(w.operation ?? 'any')}</td><td>${h(w.format ?? 'any')}</td><td>${h(w.reason)}</td><td>${h(w.until)}</td><td class="${w.status === 'used' ? 'v-waived' : w.status === 'expired' ? 'v-fail' : 'v-skip'}" data-status="${h(w.status)}">${h(WAIVER_STATUS_TEXT[w.status])}</td><td>${w.count}</td></tr>`,
      )
      .join('');
    parts.push(`<h3>Waivers of ${h(summary.waivers.file)}</h3>
<table id="waivers"><tr><th>Entry</th><th>Check</th><th>Operation</th><th>Format</th><th>Reason</th><th>Until</th><th>Status</th><th>Executions waived</th></tr>${rows}</table>`);
  }
  return parts.join('\n');
}
