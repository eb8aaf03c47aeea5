import type { CheckExecution, Verdict } from '../run/execution.ts';
import type { Exchange } from '../contract/exchange.ts';
import { cut, escapeHtml as h } from './escape.ts';
import type { ConformanceReport, Tally } from './model.ts';
import { FORMATS, OPERATION_KEYS, checkInfo, groupBy, headerLines, operationKey, operationLabel, sectionsOf, sectionsText, tallyOf, worstVerdict } from './view.ts';
import type { RunSummary } from './model.ts';
import { waivedText } from './waivers/apply.ts';
import type { WaiverUse } from './waivers/types.ts';

const BODY_LIMIT = 8000;
/** A curl line that carries a generated multi-MiB body is cut for display; conformance.json keeps it whole. */
const CURL_LIMIT = 4000;

/** Colours per verdict, shared by the matrix, the chart and the certificate. */
export const VERDICT_COLOUR: Record<Verdict, string> = { pass: '#2e7d32', fail: '#c62828', skip: '#9e9e9e', observed: '#1565c0', waived: '#ef6c00' };
const VERDICT_WORD: Record<Verdict, string> = { pass: 'passed', fail: 'failed', skip: 'skipped', observed: 'observed', waived: 'waived' };

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
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
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
.toolbar button{margin-right:6px}
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

function exchangeHtml(x: Exchange): string {
  const req = x.request;
  const request = `${req.method} ${req.url}\n${headerLines(req.headers)}${req.body ? `\n\n${cut(req.body, BODY_LIMIT)}` : ''}${req.bodyTruncated ? `\n[request body cut: ${req.bodyBytes} bytes sent]` : ''}`;
  const response = x.response
    ? `HTTP ${x.response.status}\n${headerLines(x.response.headers)}${x.response.body ? `\n\n${cut(x.response.body, BODY_LIMIT)}` : ''}${x.response.truncated ? `\n[response cut at ${x.response.bodyBytes} bytes]` : ''}`
    : `transport error ${x.error?.code ?? '?'}: ${x.error?.message ?? ''}`;
  return `<div class="cols"><div><b>Request</b><pre class="request">${h(request)}</pre></div><div><b>Response</b> <span class="muted">${x.durationMs} ms${x.attempts > 1 ? `, ${x.attempts} attempts` : ''}</span><pre class="response">${h(response)}</pre></div></div>`;
}

/** A failure, or a waived one (`waived-N`, with its label and reason), expandable to its exchange. */
function failureDetails(e: CheckExecution, index: number): string {
  const waived = e.verdict === 'waived' && e.waiver;
  const kind = waived ? 'waived' : 'failure';
  return `<details class="${kind}" id="${kind}-${index}" data-check="${h(e.checkId)}">
<summary>${waived ? '<span class="label-waived">waived</span> ' : ''}<b>${h(e.checkId)}</b> <span class="muted">[${h(e.level)}, section ${h(sectionsText(e.sections))}]</span> ${h(operationLabel(operationKey(e)))} · ${h(e.format.toUpperCase())} — ${h(e.caseId)} / ${h(e.step)}${waived ? ` <span class="reason">${h(waivedText(waived))}</span>` : ''}</summary>
<table class="meta">${waived ? `<tr><td>Waiver</td><td class="waiver">${h(`entry ${waived.index}: ${waived.reason} (until ${waived.until})`)}</td></tr>` : ''}<tr><td>Documented (expected)</td><td class="expected">${h(e.expected ?? '')}</td></tr>
<tr><td>Received</td><td class="received">${h(e.received ?? '')}</td></tr>
${e.seed !== undefined ? `<tr><td>Seed / path</td><td><code>${h(`${e.seed}${e.path ? ` ${e.path}` : ''}`)}</code></td></tr>` : ''}</table>
${e.exchange ? exchangeHtml(e.exchange) : ''}
${e.curl ? `<b>Reproduce with</b><pre class="curl">${h(cut(e.curl, CURL_LIMIT))}</pre>` : ''}
</details>`;
}

function factsHtml(observation: Record<string, unknown> | undefined): string {
  const entries = Object.entries(observation ?? {});
  return entries.map(([k, v]) => `<b>${h(k)}</b>: ${h(typeof v === 'string' ? v : JSON.stringify(v))}`).join('<br>');
}

/**
 * The self-contained HTML conformance report: run metadata, verdict chart per operation, matrix of
 * operation × check (level, section) coloured by verdict for JSON and XML, every failure expandable
 * to its exchange, expected vs received and curl line, skips with reasons, observed behaviour as facts.
 * Every text is HTML-escaped: response bodies are hostile input. Expects a redacted report.
 */
export function renderHtml(report: ConformanceReport): string {
  const { meta, summary } = report;
  const info = checkInfo(report.executions);
  const levelOrder = { spec: 0, http: 1, observed: 2 } as const;
  const checkOrder = new Map([...info.keys()].map((id, i) => [id, i]));
  const failures = report.executions
    .filter((e) => e.verdict === 'fail')
    .sort((a, b) => levelOrder[a.level] - levelOrder[b.level] || (checkOrder.get(a.checkId) ?? 0) - (checkOrder.get(b.checkId) ?? 0));
  const failureIndex = new Map(failures.map((e, i) => [e, i]));
  const waived = report.executions
    .filter((e) => e.verdict === 'waived')
    .sort((a, b) => levelOrder[a.level] - levelOrder[b.level] || (checkOrder.get(a.checkId) ?? 0) - (checkOrder.get(b.checkId) ?? 0));
  const waivedIndex = new Map(waived.map((e, i) => [e, i]));
  const metaRows: Array<[string, string]> = [
    ['Target', `${meta.baseUrl ?? '?'}${meta.embedded ? ' (embedded reference server)' : ''}`],
    ['Profile', meta.profile],
    ['Seed', meta.seed === null ? '—' : String(meta.seed)],
    ['ISWC_RUNS', String(meta.runs)],
    ['Strict', meta.strict ? 'yes (http failures gate)' : 'no'],
    ['Destructive', meta.destructive ? 'yes' : 'no'],
    ['Started / finished', `${meta.startedAt} / ${meta.finishedAt}`],
    ['Requests', `${meta.requests} (${meta.retries} retries, ${Math.round(meta.waitedMs)} ms waited on throttling)`],
    ['Harness', meta.harnessVersion],
    ['Document digest', meta.documentDigest],
    ['Schemas digest', meta.schemasDigest],
    ...(summary.waivers ? [['Waivers', `${summary.waivers.file} (expiry judged on ${summary.waivers.date}, UTC)`] as [string, string]] : []),
  ];
  const levelRows = (['spec', 'http', 'observed'] as const)
    .map((l) => {
      const t = summary.byLevel[l];
      return `<tr><td>${l}</td><td>${t.pass}</td><td class="${t.fail ? 'v-fail' : ''}">${t.fail}</td><td class="${t.waived ? 'v-waived' : ''}">${t.waived}</td><td>${t.skip}</td><td>${t.observed}</td></tr>`;
    })
    .join('');

  // Matrix: one row per (operation, check), one column per format.
  const byOp = groupBy(report.executions, operationKey);
  const matrixRows: string[] = [];
  for (const op of OPERATION_KEYS) {
    const list = byOp.get(op);
    if (!list) continue;
    const byCheck = groupBy(list, (e) => e.checkId);
    const checks = [...info.keys()].filter((id) => byCheck.has(id));
    matrixRows.push(`<tr class="op"><th colspan="6">${h(operationLabel(op))} <span class="muted">${op === 'other' ? '' : h(op)}</span></th></tr>`);
    for (const id of checks) {
      const c = info.get(id);
      const ofCheck = byCheck.get(id) ?? [];
      const cells = FORMATS.map((f) => {
        const inFormat = ofCheck.filter((e) => e.format === f);
        const t = tallyOf(inFormat);
        const worst = worstVerdict(t);
        if (!worst) return `<td class="v-none">—</td>`;
        const firstFail = inFormat.find((e) => e.verdict === 'fail');
        const firstWaived = inFormat.find((e) => e.verdict === 'waived');
        const text = h(cellText(t));
        const content = firstFail
          ? `<a href="#failure-${failureIndex.get(firstFail)}">${text}</a>`
          : firstWaived
            ? `<a href="#waived-${waivedIndex.get(firstWaived)}" title="${h(firstWaived.waiver ? waivedText(firstWaived.waiver) : 'waived')}">${text}</a>`
            : text;
        return `<td class="cell v-${worst}" data-verdict="${worst}" data-format="${f}">${content}</td>`;
      });
      const rowFail = ofCheck.some((e) => e.verdict === 'fail');
      matrixRows.push(
        `<tr class="check${rowFail ? ' has-fail' : ''}" data-op="${h(op)}" data-check="${h(id)}"><td><code>${h(id)}</code><div class="muted">${h(c?.description ?? '')}</div></td><td>${h(c?.level ?? '')}</td><td class="sections">${h(sectionsText(sectionsOf(ofCheck)))}</td>${cells.join('')}</tr>`,
      );
    }
  }

  const skipped = report.executions.filter((e) => e.verdict === 'skip');
  const skipGroups = groupBy(skipped, (e) => e.skipReason ?? '');
  const skipRows = [...skipGroups.entries()]
    .map(([reason, list]) => `<tr><td>${h(reason)}</td><td>${list.length}</td><td>${h([...new Set(list.map((e) => e.caseId))].slice(0, 12).join(', '))}${new Set(list.map((e) => e.caseId)).size > 12 ? ' …' : ''}</td></tr>`)
    .join('');

  const observed = report.executions.filter((e) => e.verdict === 'observed');
  const observedBlocks = [...groupBy(observed, (e) => e.checkId).entries()]
    .map(([id, list]) => {
      const rows = list
        .map(
          (e) =>
            `<tr><td>${h(operationLabel(operationKey(e)))}</td><td>${h(e.format.toUpperCase())}</td><td>${h(e.caseId)} / ${h(e.step)}</td><td class="facts">${factsHtml(e.observation)}</td><td>${e.exchange ? `<details><summary>exchange</summary>${exchangeHtml(e.exchange)}${e.curl ? `<pre class="curl">${h(cut(e.curl, CURL_LIMIT))}</pre>` : ''}</details>` : ''}</td></tr>`,
        )
        .join('');
      const c = info.get(id);
      return `<h3><code>${h(id)}</code> <span class="muted">section ${h(sectionsText(sectionsOf(list)))} — ${h(c?.description ?? '')}</span></h3>
<table class="observed"><tr><th>Operation</th><th>Format</th><th>Case / step</th><th>Facts recorded</th><th></th></tr>${rows}</table>`;
    })
    .join('\n');

  const body = `<header>
<h1>ISWC Agency API conformance report <span id="verdict" class="badge ${badgeClass(summary)}" data-verdict="${h(summary.verdict)}">${h(summary.verdictText)}</span></h1>
<table class="meta" id="run-meta">${metaRows.map(([k, v]) => `<tr><td>${h(k)}</td><td>${h(v)}</td></tr>`).join('')}</table>
</header>
${coverageHtml(summary)}
<h2>Checks per level</h2>
<table id="levels"><tr><th>Level</th><th>Passed</th><th>Failed</th><th>Waived</th><th>Skipped</th><th>Observed</th></tr>${levelRows}</table>
<p class="muted">spec: stated by the interface document (always gating) · http: RFC 9110 conventions the document does not state (gating with ISWC_STRICT=1) · observed: the document leaves the point open; facts recorded, never a failure. ${summary.gatingFailures} gating failure(s).</p>
<h2>Verdicts per operation</h2>
${verdictChart(report)}
<h2>Matrix: operation × check</h2>
<div class="toolbar"><button type="button" id="only-failures">Show only failing checks</button><button type="button" id="expand-all">Expand all failures</button></div>
<table id="matrix"><tr><th>Check</th><th>Level</th><th>Section</th><th>JSON</th><th>XML</th></tr>${matrixRows.join('\n')}</table>
<h2 id="failures-title">Failures (${failures.length})</h2>
<div id="failures">${failures.length === 0 ? '<p>No check failed.</p>' : failures.map((e, i) => failureDetails(e, i)).join('\n')}</div>
${waiversHtml(summary, waived)}
<h2>Skipped (${skipped.length})</h2>
${skipped.length === 0 ? '<p>Nothing was skipped.</p>' : `<table id="skipped"><tr><th>Reason</th><th>Check executions</th><th>Cases</th></tr>${skipRows}</table>`}
<h2>Observed behaviour (${observed.length})</h2>
<p class="muted">Points the document leaves open ("not shown"). These are facts about the target, not failures.</p>
<div id="observed">${observedBlocks || '<p>Nothing observed.</p>'}</div>`;
  const script = `(function(){var only=false;document.getElementById('only-failures').addEventListener('click',function(e){only=!only;e.target.textContent=only?'Show all checks':'Show only failing checks';document.querySelectorAll('#matrix tr.check').forEach(function(r){r.style.display=only&&!r.classList.contains('has-fail')?'none':'';});});document.getElementById('expand-all').addEventListener('click',function(){document.querySelectorAll('details.failure').forEach(function(d){d.open=true;});});document.querySelectorAll('#matrix a[href^="#failure-"],#matrix a[href^="#waived-"]').forEach(function(a){a.addEventListener('click',function(){var d=document.getElementById(a.getAttribute('href').slice(1));if(d)d.open=true;});});})();`;
  return page(`ISWC conformance — ${meta.baseUrl ?? ''} — ${summary.verdictText}`, body, script);
}

function badgeClass(summary: RunSummary): string {
  if (summary.verdict === 'not conformant') return 'bad';
  if (summary.verdict === 'partial') return 'grey';
  return summary.verdictText === 'conformant' ? 'ok' : 'waived';
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

const WAIVER_STATUS_TEXT: Record<WaiverUse['status'], string> = { used: 'used', unused: 'unused: matched no failure (remove it if the deviation is fixed)', expired: 'expired: its failures gate again' };

/** The waived failures, each with its reason, and every waiver of the file with its status. */
function waiversHtml(summary: RunSummary, waived: readonly CheckExecution[]): string {
  const parts: string[] = [];
  if (waived.length > 0 || summary.waivers) {
    parts.push(`<h2 id="waived-title">Waived (${waived.length})</h2>`);
    parts.push('<p class="muted">Failures of known deviations, waived in the open by the run\'s waivers file (ISWC_WAIVERS) until the date given. They do not fail the run.</p>');
    parts.push(`<div id="waived">${waived.length === 0 ? '<p>No failure was waived.</p>' : waived.map((e, i) => failureDetails(e, i)).join('\n')}</div>`);
  }
  if (summary.waivers) {
    const rows = summary.waivers.entries
      .map(
        (w) =>
          `<tr class="waiver-entry status-${w.status}" data-index="${w.index}"><td>${w.index} <span class="muted">line ${w.line}</span></td><td><code>${h(w.check)}</code></td><td>${h(w.operation ?? 'any')}</td><td>${h(w.format ?? 'any')}</td><td>${h(w.reason)}</td><td>${h(w.until)}</td><td class="${w.status === 'used' ? 'v-waived' : w.status === 'expired' ? 'v-fail' : 'v-skip'}">${h(WAIVER_STATUS_TEXT[w.status])}</td><td>${w.count}</td></tr>`,
      )
      .join('');
    parts.push(`<h3>Waivers of ${h(summary.waivers.file)}</h3>
<table id="waivers"><tr><th>Entry</th><th>Check</th><th>Operation</th><th>Format</th><th>Reason</th><th>Until</th><th>Status</th><th>Executions waived</th></tr>${rows}</table>`);
  }
  return parts.join('\n');
}
