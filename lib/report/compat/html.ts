import { escapeHtml as h } from '../escape.ts';
import { page } from '../html.ts';
import { headerLines } from '../view.ts';
import type { CompatExchange, CompatReport, CompatVerdict, ExchangeSide } from './model.ts';
import { cellAnchor, cellOf, columnLabel, columnsOf, countsText, VERDICT_COLOURS, SET_VERDICT_WORD, VERDICT_SIGN as VERDICT_MARK, VERDICT_WORD } from './labels.ts';

/**
 * compat.html: the matrix a person takes in at a glance (agencies down, operations × formats across, one
 * colour per verdict), each cell linking to its exchanges, each exchange with what the client met when it
 * was recorded beside what the build answered. One self-contained file: nothing fetched, no script but the
 * ready flag the other reports set.
 */

const STYLE = `<style>
table.matrix td.cell{text-align:center;min-width:96px;font-weight:600}
table.matrix td.cell a{color:inherit;text-decoration:none;display:block}
${(Object.entries(VERDICT_COLOURS) as Array<[CompatVerdict, { background: string; text: string }]>).map(([v, c]) => `.c-${v}{background:${c.background};color:${c.text}}`).join('\n')}
.c-none{color:#bbb;text-align:center}
.legend span{display:inline-block;padding:2px 10px;border-radius:10px;margin-right:6px}
.reasons{margin:4px 0 6px 18px;padding:0}
.exchange{border-left:6px solid #ddd;padding-left:8px;margin:10px 0}
${(Object.entries(VERDICT_COLOURS) as Array<[CompatVerdict, { background: string; text: string }]>).map(([v, c]) => `.exchange.x-${v}{border-left-color:${c.background}}`).join('\n')}
</style>`;

function sideText(side: ExchangeSide | undefined, withRequest: boolean): string {
  if (!side) return '(not sent)';
  const parts: string[] = [];
  if (withRequest && side.request) {
    const r = side.request;
    parts.push(`${r.method} ${r.target}\n${headerLines(r.headers)}${r.body ? `\n\n${r.body}` : ''}`);
  }
  const a = side.answer;
  parts.push(a.error !== undefined && a.status === null ? `no answer: ${a.error}` : `HTTP ${a.status ?? '?'}\n${headerLines(a.headers)}${a.body ? `\n\n${a.body}` : ''}${a.error !== undefined ? `\n[${a.error}]` : ''}`);
  return parts.join('\n\n— answer —\n');
}

function badge(v: CompatVerdict): string {
  return `<span class="badge c-${v}">${h(VERDICT_WORD[v])}</span>`;
}

function exchangeHtml(e: CompatExchange, byId: ReadonlyMap<string, CompatExchange>): string {
  const judgedBy = e.judgedBy !== e.id ? byId.get(e.judgedBy) : undefined;
  const replayedBy = judgedBy ?? e;
  const reasons = e.reasons.length > 0 ? `<ul class="reasons">${e.reasons.map((r) => `<li>${h(r)}</li>`).join('')}</ul>` : '';
  const extra = [
    e.findings && e.findings.length > 0 ? `<div>finding: ${h(e.findings.join('; '))}</div>` : '',
    e.mapping !== undefined ? `<div class="muted">${h(e.mapping)}</div>` : '',
    e.noise && e.noise.length > 0 ? `<div class="muted">left out as noise (it differs between two answers of the baseline): ${h(e.noise.join('; '))}</div>` : '',
  ].join('');
  const same = judgedBy ? `<div class="muted">not sent itself: the request of the same shape, <a href="#${h(judgedBy.id)}">${h(judgedBy.id)}</a> (agency ${h(judgedBy.agency)}), was; its answer is shown</div>` : '';
  const sides =
    replayedBy.replayed !== undefined || e.verdict !== 'skipped'
      ? `<div class="cols"><div><h4>What the client met (recorded)</h4><pre>${h(sideText(e.recorded, true))}</pre></div><div><h4>What the build answered (replayed)</h4><pre>${h(sideText(replayedBy.replayed, true))}</pre></div></div>`
      : `<div><h4>What the client met (recorded)</h4><pre>${h(sideText(e.recorded, true))}</pre></div>`;
  return `<div class="exchange x-${e.verdict}" id="${h(e.id)}"><div>${badge(e.verdict)} <strong>${h(e.id)}</strong> · ${h(e.session)} #${e.seq} <span class="muted">(${h(e.where)})</span></div><div class="muted"><code>${h(e.shape.text)}</code></div>${reasons}${extra}${same}<details${e.verdict === 'broken' || e.verdict === 'changed' ? ' open' : ''}><summary>exchanges side by side</summary>${sides}</details></div>`;
}

export function renderCompatHtml(report: CompatReport): string {
  const columns = columnsOf(report);
  const byId = new Map(report.exchanges.map((e) => [e.id, e]));
  const head = `<tr><th>Agency</th>${columns.map((c) => `<th>${h(columnLabel(c.operation, c.format))}</th>`).join('')}<th>Agency's verdict</th></tr>`;
  const rows = report.agencies
    .map((a) => {
      const cells = columns
        .map((c) => {
          const cell = cellOf(report, a.agency, c.operation, c.format);
          if (!cell) return '<td class="c-none">·</td>';
          return `<td class="cell c-${cell.verdict}" title="${h(countsText(cell.counts))}"><a href="#${cellAnchor(a.agency, c.operation, c.format)}">${VERDICT_MARK[cell.verdict]} ${h(SET_VERDICT_WORD[cell.verdict])}<br><span class="muted">${h(countsText(cell.counts))}</span></a></td>`;
        })
        .join('');
      return `<tr><th>${h(a.agency)}</th>${cells}<td class="cell c-${a.verdict}">${VERDICT_MARK[a.verdict]} ${h(SET_VERDICT_WORD[a.verdict])}</td></tr>`;
    })
    .join('\n');
  const legend = `<p class="legend">${(['compatible', 'changed', 'broken', 'skipped'] as const).map((v) => `<span class="c-${v}">${VERDICT_MARK[v]} ${h(VERDICT_WORD[v])}</span>`).join('')}</p><p class="muted">compatible: the client meets what it met when recorded. changed: still within the document, but different (a status, a media type, a field, a text a client may parse). broken: the answer violates the document, no answer came, or a success became a refusal. not replayed: the reason is on each exchange; a cell or an agency with an exchange not replayed although its client met an answer of the API is not judged, never compatible.</p>`;
  const o = report.outcome;
  const f = report.figures;
  const meta = `<table class="meta">
<tr><td>Verdict</td><td>${badge(o.verdict === 'incomplete' || o.verdict === 'unusable' || o.verdict === 'not judged' ? 'skipped' : o.verdict)} ${h(o.text)} (exit code ${o.exitCode})</td></tr>
<tr><td>Build</td><td>${h(report.target.embedded ? 'the embedded reference server' : (report.target.baseUrl ?? ''))} · profile ${h(report.target.profile)} (the key acts for agency ${h(report.target.agency)})</td></tr>
<tr><td>Traffic</td><td>${f.sessions} session(s) of ${f.agencies} agencies, ${f.exchanges} exchanges, ${f.shapes} shapes, ${f.replayed} replayed</td></tr>
<tr><td>Requests to the build</td><td>${f.requests.sent} sent of ${f.requests.planned} planned (${f.requests.retried} resends, ${f.requests.answered} answered${f.requests.waitedMs > 0 ? `, ${Math.round(f.requests.waitedMs / 1000)} s waiting on throttling` : ''})</td></tr>
<tr><td>Settings</td><td>${report.settings.destructive ? 'requests that change data replayed on disposable entries' : 'requests that change data not replayed'} · ${report.settings.strict ? 'strict' : 'not strict'} · rate ${h(report.settings.rate ?? 'no limit')} · budget ${report.settings.budget ?? 'none'}${report.settings.maxDuration ? ` · max duration ${h(report.settings.maxDuration)}` : ''}</td></tr>
<tr><td>Noise</td><td>${h(report.baseline)}</td></tr>
<tr><td>Sampling</td><td>${h(report.sampling)}</td></tr>
<tr><td>When</td><td>${h(report.startedAt)} to ${h(report.finishedAt)} · iswc-conformance ${h(report.harnessVersion)}</td></tr>
</table>`;
  const cellsHtml = report.agencies
    .map((a) => {
      const sections = columns
        .map((c) => {
          const cell = cellOf(report, a.agency, c.operation, c.format);
          if (!cell) return '';
          const exchanges = cell.exchanges
            .map((id) => byId.get(id))
            .filter((e): e is CompatExchange => e !== undefined)
            .map((e) => exchangeHtml(e, byId))
            .join('\n');
          return `<h3 id="${cellAnchor(a.agency, c.operation, c.format)}">${badge(cell.verdict)} agency ${h(a.agency)} · ${h(columnLabel(c.operation, c.format))} <span class="muted">${h(countsText(cell.counts))}</span></h3>\n${exchanges}`;
        })
        .join('\n');
      const sessions = a.sessions.map((s) => `${h(s)}${a.certified?.[s] !== undefined ? ` (${h(a.certified[s] ?? '')})` : ''}`).join('; ');
      return `<h2>Agency ${h(a.agency)} ${badge(a.verdict)}</h2><p class="muted">sessions: ${sessions}</p>\n${sections}`;
    })
    .join('\n');
  const body = `${STYLE}<h1>Will this build break an agency?</h1>
${meta}
<h2>The matrix</h2>
${legend}
<table class="matrix"><thead>${head}</thead><tbody>${rows}</tbody></table>
${cellsHtml}`;
  // No behaviour of its own: the page is read as it is; the flag tells a browser test it is ready, as the other reports do.
  return page('iswc-conformance compat: will this build break an agency?', body, 'window.iswcReady = 1;');
}
