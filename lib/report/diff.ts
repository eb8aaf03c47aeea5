import type { CheckExecution, Level } from '../run/execution.ts';
import type { Exchange } from '../contract/exchange.ts';
import { executionKey } from './build.ts';
import { canonicalJson } from './canonical.ts';
import { cut, escapeHtml as h } from './escape.ts';
import { page } from './html.ts';
import type { ConformanceReport, RunMeta } from './model.ts';
import { exchangeLine, headerLines, operationKey, operationLabel, sectionsText } from './view.ts';

export interface DiffEntry {
  key: string;
  checkId: string;
  level: Level;
  sections: string[];
  operation: string;
  format: string;
  caseId: string;
  step: string;
  base: CheckExecution | undefined;
  head: CheckExecution;
}

/** An observed fact that changed; a record present in one report only has its facts on one side. */
export interface ObservedChange extends Omit<DiffEntry, 'base' | 'head'> {
  base: CheckExecution | undefined;
  head: CheckExecution | undefined;
  /** Facts that changed: status, contentType, body (shape or error text), … */
  changes: Array<{ fact: string; base: unknown; head: unknown }>;
}

export interface ReportDiff {
  base: RunMeta;
  head: RunMeta;
  newlyFailing: DiffEntry[];
  newlyPassing: DiffEntry[];
  newlySkipped: DiffEntry[];
  observedChanged: ObservedChange[];
  /** Executions present in one report only (another harness version or other settings). */
  onlyInBase: number;
  onlyInHead: number;
  /** True when a `spec` check newly fails: the diff gates. */
  specRegression: boolean;
}

function entry(head: CheckExecution, base: CheckExecution | undefined): DiffEntry {
  return {
    key: executionKey(head),
    checkId: head.checkId,
    level: head.level,
    sections: head.sections,
    operation: operationKey(head),
    format: head.format,
    caseId: head.caseId,
    step: head.step,
    base,
    head,
  };
}

/**
 * Compares two conformance reports execution by execution, keyed by (caseId, format, step, checkId):
 * what newly fails, newly passes, is newly skipped, and which `observed` facts changed. Verdicts are
 * taken from the reports as written, never re-derived.
 */
export function diffReports(base: ConformanceReport, head: ConformanceReport): ReportDiff {
  const baseByKey = new Map(base.executions.map((e) => [executionKey(e), e]));
  const headKeys = new Set<string>();
  const out: ReportDiff = { base: base.meta, head: head.meta, newlyFailing: [], newlyPassing: [], newlySkipped: [], observedChanged: [], onlyInBase: 0, onlyInHead: 0, specRegression: false };
  for (const h2 of head.executions) {
    const key = executionKey(h2);
    headKeys.add(key);
    const b = baseByKey.get(key);
    if (!b) out.onlyInHead += 1;
    if (h2.verdict === 'fail' && b?.verdict !== 'fail') out.newlyFailing.push(entry(h2, b));
    else if (h2.verdict === 'pass' && b && (b.verdict === 'fail' || b.verdict === 'skip' || b.verdict === 'waived')) out.newlyPassing.push(entry(h2, b));
    else if (h2.verdict === 'skip' && b && b.verdict !== 'skip') out.newlySkipped.push(entry(h2, b));
    else if (h2.verdict === 'observed' && b?.verdict === 'observed') {
      const facts = [...new Set([...Object.keys(b.observation ?? {}), ...Object.keys(h2.observation ?? {})])];
      const changes = facts
        .filter((f) => canonicalJson(b.observation?.[f]) !== canonicalJson(h2.observation?.[f]))
        .map((f) => ({ fact: f, base: b.observation?.[f], head: h2.observation?.[f] }));
      if (changes.length > 0) out.observedChanged.push({ ...entry(h2, b), base: b, changes });
    }
  }
  const observedChange = (b: CheckExecution | undefined, h: CheckExecution | undefined): ObservedChange | undefined => {
    const facts = [...new Set([...Object.keys(b?.observation ?? {}), ...Object.keys(h?.observation ?? {})])];
    const changes = facts
      .filter((f) => canonicalJson(b?.observation?.[f]) !== canonicalJson(h?.observation?.[f]))
      .map((f) => ({ fact: f, base: b?.observation?.[f], head: h?.observation?.[f] }));
    const one = (h ?? b) as CheckExecution;
    return changes.length > 0 ? { ...entry(one, b), base: b, head: h, changes } : undefined;
  };
  // An observed record in one report only is a change too: the answer moved to another status, for instance.
  for (const h of head.executions) {
    if (h.verdict === 'observed' && !baseByKey.has(executionKey(h))) {
      const change = observedChange(undefined, h);
      if (change) out.observedChanged.push(change);
    }
  }
  for (const [key, b] of baseByKey) {
    if (headKeys.has(key)) continue;
    out.onlyInBase += 1;
    if (b.verdict === 'observed') {
      const change = observedChange(b, undefined);
      if (change) out.observedChanged.push(change);
    }
  }
  out.specRegression = out.newlyFailing.some((e) => e.level === 'spec');
  return out;
}

function fact(v: unknown): string {
  return v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v);
}

/** Markdown table cell: HTML-escaped (GitHub renders HTML), pipes escaped, one line. */
function md(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

function exchangeSummary(e: CheckExecution | undefined): string {
  if (!e) return '(not in this report)';
  const parts = [`${e.verdict}`];
  if (e.received) parts.push(cut(e.received, 300));
  if (e.exchange) parts.push(exchangeLine(e.exchange));
  if (e.skipReason) parts.push(`skipped: ${e.skipReason}`);
  if (e.waiver) parts.push(`waived: ${e.waiver.reason} (until ${e.waiver.until})`);
  return parts.join(' — ');
}

/** What every listed entry has: where it is, and the execution on each side (either may be absent). */
type Listed = Omit<DiffEntry, 'base' | 'head'> & { base: CheckExecution | undefined; head: CheckExecution | undefined };

function where(e: Listed): string {
  return `\`${e.checkId}\` [${e.level}, ${sectionsText(e.sections)}] ${operationLabel(e.operation)} · ${e.format.toUpperCase()} — ${e.caseId} / ${e.step}`;
}

function metaLine(m: RunMeta): string {
  return `${m.baseUrl ?? '?'} · profile ${m.profile} · seed ${m.seed ?? '—'} · harness ${m.harnessVersion} · ${m.finishedAt}`;
}

export function renderDiffMarkdown(d: ReportDiff): string {
  const lines: string[] = ['# ISWC conformance: regression diff', '', `- base: ${md(metaLine(d.base))}`, `- head: ${md(metaLine(d.head))}`];
  if (d.base.documentDigest !== d.head.documentDigest) lines.push('- ⚠ the two runs enforce different versions of the interface document');
  lines.push(
    '',
    `**${d.newlyFailing.length} newly failing** (${d.newlyFailing.filter((e) => e.level === 'spec').length} spec) · **${d.newlyPassing.length} newly passing** · **${d.newlySkipped.length} newly skipped** · **${d.observedChanged.length} observed behaviour changed**`,
  );
  if (d.onlyInBase + d.onlyInHead > 0) lines.push('', `_${d.onlyInBase} check execution(s) only in base, ${d.onlyInHead} only in head (different harness version or settings); not compared._`);
  const section = (title: string, list: DiffEntry[]): void => {
    lines.push('', `## ${title} (${list.length})`);
    if (list.length === 0) {
      lines.push('', 'None.');
      return;
    }
    lines.push('', '| Check execution | Base | Head |', '|---|---|---|');
    for (const e of list) lines.push(`| ${md(where(e))} | ${md(exchangeSummary(e.base))} | ${md(exchangeSummary(e.head))} |`);
  };
  section('Newly failing', d.newlyFailing);
  section('Newly passing', d.newlyPassing);
  section('Newly skipped', d.newlySkipped);
  lines.push('', `## Observed behaviour that changed (${d.observedChanged.length})`, '', '_Points the document leaves open ("not shown"): not failures, but changes the API team should know about._');
  if (d.observedChanged.length === 0) lines.push('', 'None.');
  else {
    lines.push('', '| Check execution | Fact | Base | Head |', '|---|---|---|---|');
    for (const e of d.observedChanged) {
      for (const c of e.changes) lines.push(`| ${md(where(e))} | ${md(c.fact)} | ${md(fact(c.base))} | ${md(fact(c.head))} |`);
    }
  }
  lines.push('', d.specRegression ? '**Result: a `spec` check newly fails (exit status 1).**' : 'Result: no `spec` check newly fails.', '');
  return lines.join('\n');
}

function exchangeBlock(e: CheckExecution | undefined): string {
  if (!e) return '<p class="muted">(not in this report)</p>';
  const x: Exchange | undefined = e.exchange;
  const head = `<div><b>${h(e.verdict)}</b> ${h(e.received ?? e.skipReason ?? '')}</div>`;
  if (!x) return `${head}<p class="muted">no exchange recorded (passing executions keep none)</p>`;
  const req = `${x.request.method} ${x.request.url}\n${headerLines(x.request.headers)}${x.request.body ? `\n\n${cut(x.request.body, 4000)}` : ''}`;
  const res = x.response ? `HTTP ${x.response.status}\n${headerLines(x.response.headers)}${x.response.body ? `\n\n${cut(x.response.body, 4000)}` : ''}` : `transport error ${x.error?.code ?? '?'}: ${x.error?.message ?? ''}`;
  return `${head}<pre>${h(req)}</pre><pre>${h(res)}</pre>${e.curl ? `<pre class="curl">${h(cut(e.curl, 2000))}</pre>` : ''}`;
}

export function renderDiffHtml(d: ReportDiff): string {
  const block = (title: string, id: string, list: Listed[], extra?: (e: Listed) => string): string =>
    `<h2 id="${id}">${h(title)} (${list.length})</h2>${
      list.length === 0
        ? '<p>None.</p>'
        : list
            .map(
              (e) =>
                `<details class="entry"><summary>${h(where(e).replace(/`/g, ''))}</summary>${extra ? extra(e) : ''}<div class="cols"><div><h3>Base</h3>${exchangeBlock(e.base)}</div><div><h3>Head</h3>${exchangeBlock(e.head)}</div></div></details>`,
            )
            .join('\n')
    }`;
  const changeTable = (e: Listed): string => {
    const c = (e as ObservedChange).changes;
    return `<table><tr><th>Fact</th><th>Base</th><th>Head</th></tr>${c.map((x) => `<tr><td>${h(x.fact)}</td><td>${h(fact(x.base))}</td><td>${h(fact(x.head))}</td></tr>`).join('')}</table>`;
  };
  const body = `<h1>ISWC conformance: regression diff</h1>
<table class="meta"><tr><td>Base</td><td>${h(metaLine(d.base))}</td></tr><tr><td>Head</td><td>${h(metaLine(d.head))}</td></tr></table>
<p><b>${d.newlyFailing.length}</b> newly failing · <b>${d.newlyPassing.length}</b> newly passing · <b>${d.newlySkipped.length}</b> newly skipped · <b>${d.observedChanged.length}</b> observed behaviour changed${d.onlyInBase + d.onlyInHead > 0 ? ` · ${d.onlyInBase} only in base, ${d.onlyInHead} only in head` : ''}</p>
${block('Newly failing', 'newly-failing', d.newlyFailing)}
${block('Newly passing', 'newly-passing', d.newlyPassing)}
${block('Newly skipped', 'newly-skipped', d.newlySkipped)}
${block('Observed behaviour that changed', 'observed-changed', d.observedChanged, changeTable)}`;
  return page('ISWC conformance: regression diff', body);
}
