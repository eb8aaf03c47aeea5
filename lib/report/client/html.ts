import { cut, escapeHtml as h } from '../escape.ts';
import { page } from '../html.ts';
import { OPERATION_KEYS, operationLabel, sectionsText } from '../view.ts';
import { requestText } from './junit.ts';
import { answersText, cellLabel, injectionText } from './labels.ts';
import { notGatingOf, notGatingText } from './build.ts';
import type { ClientFinding, ClientReport } from './model.ts';

const LEVEL_ORDER = { spec: 0, http: 1, observed: 2 } as const;
const FORMAT_ORDER = ['json', 'xml', 'none'];
/** Examples of a group shown in the page (client-conformance.json keeps up to 50 per group). */
const EXAMPLES_SHOWN = 20;

interface Group {
  id: string;
  check: string;
  level: ClientFinding['level'];
  operation: string;
  format: string;
  list: ClientFinding[];
  count: number;
}

function groupsOf(findings: readonly ClientFinding[], report: ClientReport, kind: 'failed' | 'observed', prefix: string): Group[] {
  const checkOrder = new Map(report.checks.exercised.map((c, i) => [c.id, i]));
  const map = new Map<string, Group>();
  for (const f of findings) {
    const key = `${f.check}\u0001${f.operation}\u0001${f.format}`;
    let g = map.get(key);
    if (!g) {
      const tally = report.groups.find((t) => t.check === f.check && t.operation === f.operation && t.format === f.format);
      map.set(key, (g = { id: '', check: f.check, level: f.level, operation: f.operation, format: f.format, list: [], count: tally ? tally[kind] : 0 }));
    }
    g.list.push(f);
  }
  const groups = [...map.values()].sort(
    (a, b) =>
      LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] ||
      (checkOrder.get(a.check) ?? 1e9) - (checkOrder.get(b.check) ?? 1e9) ||
      OPERATION_KEYS.indexOf(a.operation) - OPERATION_KEYS.indexOf(b.operation) ||
      FORMAT_ORDER.indexOf(a.format) - FORMAT_ORDER.indexOf(b.format),
  );
  groups.forEach((g, i) => (g.id = `${prefix}${i + 1}`));
  return groups;
}

/** The checks that failed without gating, and what --strict would have made of the session: said above the tables, never only in them. */
function notGatingHtml(report: ClientReport): string {
  const text = notGatingText(report.notGating ?? notGatingOf(report.checks.exercised, report.strict, report.verdict));
  return text === undefined ? '' : `<p id="not-gating" class="v-fail">Failed, not gating: ${h(text)}.</p>`;
}

function formatLabel(format: string): string {
  return format === 'none' ? 'no body' : format.toUpperCase();
}

function exampleHtml(f: ClientFinding, open: boolean, expected: string | undefined): string {
  return `<details class="example"${open ? ' open' : ''}><summary>Request #${f.request.seq} — ${h(cut(f.received, 160))}</summary>
<table class="meta">${f.expected !== expected ? `<tr><td>Documented (expected)</td><td class="expected">${h(f.expected)}</td></tr>` : ''}<tr><td>Client sent</td><td class="received">${h(f.received)}</td></tr></table>
<pre class="request">${h(requestText(f))}</pre>
</details>`;
}

function groupHtml(g: Group, report: ClientReport): string {
  const first = g.list[0];
  if (!first) return '';
  const c = report.checks.exercised.find((x) => x.id === g.check);
  const gating = g.list.some((f) => f.gating);
  const kind = g.level === 'observed' ? 'observed' : 'failure';
  const gate = kind === 'observed' ? '<span class="muted">recorded, never a failure</span>' : gating ? '<span class="gating">gating</span>' : `<span class="not-gating">not gating${g.level === 'http' ? ' (--strict makes it gate)' : ''}</span>`;
  const text = [g.check, c?.description, g.level, g.operation, operationLabel(g.operation), g.format, first.expected, ...g.list.map((f) => f.received)].join(' ').toLowerCase();
  const shown = g.list.slice(0, EXAMPLES_SHOWN);
  const more = g.count - shown.length;
  return `<details class="group item ${kind}-group" id="${g.id}" data-check="${h(g.check)}" data-level="${g.level}" data-op="${h(g.operation)}" data-format="${h(g.format)}" data-count="${g.count}" data-text="${h(text)}">
<summary><span class="count">${g.count}</span> <b>${h(g.check)}</b> <span class="muted">[${h(g.level)}, ${h(sectionsText(first.sections))}]</span> ${h(operationLabel(g.operation))} · ${h(formatLabel(g.format))} — ${gate}<br><span class="muted">${h(cut(first.received, 200))}</span></summary>
<p class="muted">${h(c?.description ?? '')}</p>
<table class="meta"><tr><td>Documented (expected)</td><td class="expected">${h(first.expected)}</td></tr></table>
${shown.map((f, i) => exampleHtml(f, i === 0, first.expected)).join('\n')}
${more > 0 ? `<p class="muted">${more} more in client-conformance.json${g.list.length < g.count ? ' (which keeps the first 50 of each group; the counts hold them all)' : ''}.</p>` : ''}
</details>`;
}

const SCRIPT = String.raw`(function () {
  'use strict';
  var search = document.getElementById('search');
  var level = document.getElementById('filter-level');
  var status = document.getElementById('filter-status');
  var groups = Array.prototype.slice.call(document.querySelectorAll('.group'));
  function apply() {
    var q = (search.value || '').trim().toLowerCase();
    var l = level.value;
    var shown = 0;
    groups.forEach(function (g) {
      var ok = (!q || (g.getAttribute('data-text') || '').indexOf(q) >= 0) && (!l || g.getAttribute('data-level') === l);
      g.hidden = !ok;
      if (ok) shown += 1;
    });
    status.textContent = shown + ' of ' + groups.length + ' groups';
  }
  search.addEventListener('input', apply);
  level.addEventListener('change', apply);
  document.getElementById('expand-all').addEventListener('click', function () { groups.forEach(function (g) { if (!g.hidden) g.open = true; }); });
  document.getElementById('collapse-all').addEventListener('click', function () { groups.forEach(function (g) { g.open = false; }); });
  // A matrix link (or a URL with #f3) opens the group it names.
  function openHash() {
    var g = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    if (g && g.tagName === 'DETAILS') { g.hidden = false; g.open = true; }
  }
  window.addEventListener('hashchange', openHash);
  apply();
  openHash();
  window.iswcReady = performance.now();
})();`;

/**
 * client-conformance.html: one self-contained page in the look of the conformance report (the same frame
 * and styles, no network): the verdict, the session, the checks with their tallies, the trouble met, the
 * violations and then the observations grouped by check × operation × format (count, level, sections,
 * whether it gates, the first example open with the request as sent), the matrix of every group. A search
 * box and a level filter narrow the groups. Every text is escaped: requests are the client's input.
 * Expects a redacted report.
 */
export function renderClientHtml(report: ClientReport): string {
  const failures = groupsOf(report.violations, report, 'failed', 'f');
  const observed = groupsOf(report.observations, report, 'observed', 'o');
  const badge = report.verdict === 'conformant' ? 'ok' : report.verdict === 'incomplete' ? 'grey' : 'bad';
  const meta: Array<[string, string]> = [
    ['Client (User-Agent)', report.client.userAgents.length > 0 ? report.client.userAgents.slice(0, 5).join(' · ') : '(none sent)'],
    ['Agency', report.client.agency ?? '—'],
    ['Requests', `${report.requests} (${Object.entries(report.operations).map(([op, n]) => `${operationLabel(op)} ${n}`).join(', ') || 'none'})`],
    ['Runs', `${report.runs.started} started, ${report.runs.ended} ended`],
    ['Sandbox', `${report.sandbox.url} · choices ${report.sandbox.choices} · profile ${report.sandbox.profile}`],
    ['Trouble asked for', report.sandbox.inject.length > 0 ? report.sandbox.inject.map((i) => injectionText(i)).join(', ') : 'none'],
    ['Rate limit', report.sandbox.rateLimit ?? 'none'],
    ['Strict', report.strict ? 'yes (http violations gate)' : 'no'],
    ['Started / finished', `${report.startedAt} / ${report.finishedAt} (ended by ${report.endedBy}${report.endedBy === 'requests' ? `: --requests ${report.sandbox.requestLimit ?? '?'} reached` : ''})`],
    ...(report.lateRequests.count > 0 ? [['After the end', `${report.lateRequests.count} request(s) came after the session ended by count: answered 503 with Retry-After, not judged (${report.lateRequests.first.map((r) => `#${r.seq} ${r.method} ${r.target}`).join(' · ')}${report.lateRequests.count > report.lateRequests.first.length ? ' · …' : ''})`] as [string, string]] : []),
    ...(report.defect !== undefined ? [['Internal error', `${report.defect} (a defect of iswc-conformance: the verdict covers only the requests judged before it)`] as [string, string]] : []),
    ['Harness', report.harnessVersion],
    ['Document digest', report.documentDigest],
  ];
  const checkRows = report.checks.exercised
    .map((c) => `<tr class="check" data-check="${h(c.id)}"><td><code>${h(c.id)}</code><div class="muted">${h(c.description)}</div></td><td>${h(c.level)}</td><td>${h(sectionsText(c.sections))}</td><td>${c.passed}</td><td class="${c.failed ? 'v-fail' : ''}">${c.failed}</td><td class="${c.observed ? 'v-observed' : ''}">${c.observed}</td></tr>`)
    .join('\n');
  const troubleRows = report.trouble.map((t) => `<tr class="trouble" data-kind="${h(t.kind)}"><td>${h(t.kind)}</td><td>#${t.request} ${h(operationLabel(t.operation))}</td><td class="${t.survived ? 'v-pass' : 'v-fail'}">${t.survived ? `survived: the same request succeeded (#${t.survivedBy ?? '?'})` : 'not survived: the same operation with the same data never succeeded after it'}</td></tr>`).join('\n');
  const cov = report.coverage;
  const coverageRows = cov.cells
    .map((c) => `<tr class="cell" data-operation="${h(c.operation)}" data-format="${h(c.format)}"><td>${h(cellLabel(c.operation, c.format))}</td><td>${c.declared ? 'declared' : '<span class="muted">not declared</span>'}</td><td>${c.requests}</td><td class="${c.succeeded > 0 ? 'v-pass' : c.declared ? 'v-fail' : ''}">${c.succeeded}</td><td>${h(answersText(c.answers))}</td></tr>`)
    .join('\n');
  const anyRows = cov.missing.filter((m) => m.format === 'any').map((m) => `<tr class="cell" data-operation="${h(m.operation)}" data-format="any"><td>${h(cellLabel(m.operation, m.format))}</td><td>declared</td><td colspan="3" class="v-fail">${h(m.reason)}</td></tr>`).join('\n');
  const declaredText = `Declared: ${cov.operations.map((op) => operationLabel(op)).join(', ')}${cov.operationsFrom === 'default' ? ' (the default: all four)' : ' (--operations)'}, in ${cov.formats ? `${cov.formats.join(' and ').toUpperCase()} (--formats)` : 'the formats the client sent each in'}. Conformant needs a success (2xx) of each.`;
  const matrixRows = [...report.groups]
    .sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || a.check.localeCompare(b.check) || OPERATION_KEYS.indexOf(a.operation) - OPERATION_KEYS.indexOf(b.operation) || FORMAT_ORDER.indexOf(a.format) - FORMAT_ORDER.indexOf(b.format))
    .map((g) => {
      const link = g.failed > 0 ? failures.find((f) => f.check === g.check && f.operation === g.operation && f.format === g.format)?.id : g.observed > 0 ? observed.find((f) => f.check === g.check && f.operation === g.operation && f.format === g.format)?.id : undefined;
      const worst = g.failed > 0 ? 'fail' : g.observed > 0 ? 'observed' : 'pass';
      const cell = `${g.failed ? `${g.failed} ✗ · ` : ''}${g.observed ? `${g.observed} observed · ` : ''}${g.passed} ✓`;
      return `<tr><td><code>${h(g.check)}</code></td><td>${h(g.level)}</td><td>${h(operationLabel(g.operation))}</td><td>${h(formatLabel(g.format))}</td><td class="cell v-${worst}">${link ? `<a href="#${link}">${h(cell)}</a>` : h(cell)}</td></tr>`;
    })
    .join('\n');
  const omitted = report.violationsOmitted + report.observationsOmitted;
  const body = `<header>
<h1>ISWC Agency API client conformance report <span id="verdict" class="badge ${badge}" data-verdict="${h(report.verdict)}">${h(report.verdictText)}</span></h1>
<table class="meta" id="session">${meta.map(([k, v]) => `<tr><td>${h(k)}</td><td>${h(v)}</td></tr>`).join('')}</table>
</header>
<h2>Operations exercised</h2>
<p class="muted">${h(declaredText)}</p>
${cov.missing.length > 0 ? `<p id="missing" class="v-fail">${h(cov.missing.map((m) => `${cellLabel(m.operation, m.format)}: ${m.reason}`).join('; '))}</p>` : ''}
<table id="coverage"><tr><th>Operation × format</th><th></th><th>Requests</th><th>Succeeded</th><th>Other answers</th></tr>${coverageRows}${anyRows}</table>
<h2>Client checks</h2>
<p class="muted">spec: what the interface document asks of every client, on every reading (always gating) · http: RFC 9110 and RFC 6585 conventions the document does not state (gating with --strict) · observed: the client relies on a point the document leaves open; recorded, never a failure. ${report.checks.gatingFailures} gating violation(s).</p>
${notGatingHtml(report)}
<table id="checks"><tr><th>Check</th><th>Level</th><th>Section</th><th>Passed</th><th>Failed</th><th>Observed</th></tr>${checkRows}</table>
<h2>Trouble met</h2>
${report.trouble.length === 0 ? '<p>No trouble was given (--inject, --rate-limit).</p>' : `<table id="trouble"><tr><th>Kind</th><th>Request</th><th>Outcome</th></tr>${troubleRows}</table>`}
<div class="toolbar" id="toolbar">
<input type="search" id="search" placeholder="Search checks, requests, values…" aria-label="Search checks, requests and values">
<select id="filter-level" aria-label="Level"><option value="">every level</option><option value="spec">spec</option><option value="http">http</option><option value="observed">observed</option></select>
<button type="button" id="expand-all">Expand all</button><button type="button" id="collapse-all">Collapse all</button>
<span id="filter-status" class="muted"></span>
</div>
<h2 id="violations-title">Violations (${report.checks.failed} in ${failures.length} group${failures.length === 1 ? '' : 's'})</h2>
<p class="muted">Grouped by check × operation × format, spec first. Each group opens on its first request, as the client sent it (the key redacted).${omitted > 0 ? ` ${omitted} findings beyond 50 per group are counted, not kept.` : ''}</p>
<div id="violations">${failures.length === 0 ? '<p>No client check failed.</p>' : failures.map((g) => groupHtml(g, report)).join('\n')}</div>
<h2 id="observations-title">Observations (${report.checks.observed})</h2>
<p class="muted">Points the document leaves open that the client relies on: what it sent, for the record.</p>
<div id="observations">${observed.length === 0 ? '<p>Nothing observed.</p>' : observed.map((g) => groupHtml(g, report)).join('\n')}</div>
<h2>Matrix: check × operation × format</h2>
<table id="matrix"><tr><th>Check</th><th>Level</th><th>Operation</th><th>Format</th><th>Requests judged</th></tr>${matrixRows}</table>`;
  return page(`ISWC client conformance — ${report.client.userAgents[0] ?? 'client'} — ${report.verdictText}`, body, SCRIPT);
}
