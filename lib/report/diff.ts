import type { CheckExecution, Level } from '../run/execution.ts';
import type { Exchange } from '../contract/exchange.ts';
import { executionKey } from './build.ts';
import { canonicalJson } from './canonical.ts';
import { cut, escapeHtml as h } from './escape.ts';
import { page } from './html.ts';
import type { ConformanceReport, RunMeta } from './model.ts';
import { OPERATION_KEYS, exchangeLine, exchangeTexts, groupBy, operationKey, operationLabel, sectionsOf, sectionsText } from './view.ts';

/** A fact of an observed execution that changed between the runs. */
export interface FactChange {
  fact: string;
  base: unknown;
  head: unknown;
}

/** One check execution whose verdict (or observed facts) differs, with the exchange of each side. */
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
  head: CheckExecution | undefined;
  /**
   * The exchange of each side: the execution's own, or, where it kept none (a passing check keeps none),
   * the one another check of the same request kept.
   */
  baseExchange: { exchange: Exchange; curl?: string } | undefined;
  headExchange: { exchange: Exchange; curl?: string } | undefined;
  /** Observed facts of the same request that changed with it: echoes of this change, not listed again. */
  echoes: FactChange[];
  /** Why the entry is matched the way it is, when not by its exact key (a property's other counterexample). */
  note?: string;
}

/** An observed fact that changed on a request whose verdicts did not; a record in one report only has one side. */
export interface ObservedChange extends DiffEntry {
  changes: FactChange[];
}

/** A setting of the two runs that differs: results may differ because of it, not because the target changed. */
export interface SettingDifference {
  setting: string;
  base: string;
  head: string;
}

/**
 * Whether the two runs generated the same inputs. Generated inputs follow from the seed, ISWC_RUNS, the
 * plan and budget (which size each property), the profile and the harness's generators: when one of these
 * differs, executions of generated inputs (those carrying a seed) cannot be compared one by one.
 */
export interface GeneratedInputs {
  /** The settings that make them differ; empty when the inputs are the same. */
  differ: string[];
  /** Executions of generated inputs (distinct keys, both reports) compared only by case and check, or not at all. */
  notCompared: number;
}

export interface ReportDiff {
  base: RunMeta;
  head: RunMeta;
  settings: SettingDifference[];
  generatedInputs: GeneratedInputs;
  /** How the base report was named on the command line (for the advice to rerun with --same-inputs-as). */
  baseFile?: string;
  newlyFailing: DiffEntry[];
  newlyPassing: DiffEntry[];
  newlySkipped: DiffEntry[];
  observedChanged: ObservedChange[];
  /** Observed changes on requests already listed for a verdict change (folded into those entries). */
  echoes: number;
  /** Executions present in one report only and matched by nothing (another harness version or other settings). */
  onlyInBase: number;
  onlyInHead: number;
  /** True when a `spec` check newly fails: the diff gates. */
  specRegression: boolean;
}

/** One request of a run: its executions share (case, format, step). */
function requestKey(e: { caseId: string; format: string; step: string }): string {
  return `${e.caseId}\u0001${e.format}\u0001${e.step}`;
}

/** A check of a case in a format, whatever the step: a property keeps one per check, at a step named after its outcome. */
function caseCheckKey(e: Pick<CheckExecution, 'caseId' | 'format' | 'checkId'>): string {
  return `${e.caseId}\u0001${e.format}\u0001${e.checkId}`;
}

/** The exchange each request left, from whichever of its executions kept it. */
function exchangesByRequest(executions: readonly CheckExecution[]): Map<string, { exchange: Exchange; curl?: string }> {
  const out = new Map<string, { exchange: Exchange; curl?: string }>();
  for (const e of executions) {
    if (!e.exchange) continue;
    const key = requestKey(e);
    if (!out.has(key)) out.set(key, { exchange: e.exchange, ...(e.curl ? { curl: e.curl } : {}) });
  }
  return out;
}

function factChanges(b: CheckExecution | undefined, x: CheckExecution | undefined): FactChange[] {
  const facts = [...new Set([...Object.keys(b?.observation ?? {}), ...Object.keys(x?.observation ?? {})])];
  return facts.filter((f) => canonicalJson(b?.observation?.[f]) !== canonicalJson(x?.observation?.[f])).map((f) => ({ fact: f, base: b?.observation?.[f], head: x?.observation?.[f] }));
}

function settingDifferences(base: ConformanceReport, head: ConformanceReport): SettingDifference[] {
  const plan = (m: RunMeta) => (m.plan ? `${m.plan.name}${m.plan.budget === null ? '' : `, budget ${m.plan.budget}`}` : 'not recorded');
  const rows: Array<[string, (r: ConformanceReport) => string]> = [
    // The embedded server listens on another port each run: the same target.
    ['target', (r) => (r.meta.embedded ? 'the embedded reference server' : (r.meta.baseUrl ?? '?'))],
    ['profile', (r) => r.meta.profile],
    // The same name, another content: the profile's digest (reports of earlier versions do not record it).
    ['profile content', (r) => (r.meta.profileDigest === undefined ? 'not recorded' : `sha256:${r.meta.profileDigest.slice(0, 16)}…`)],
    ['harness version', (r) => r.meta.harnessVersion],
    ['interface document', (r) => r.meta.documentDigest],
    ['schemas', (r) => r.meta.schemasDigest],
    ['strict (ISWC_STRICT)', (r) => String(r.meta.strict)],
    ['destructive (ISWC_DESTRUCTIVE)', (r) => String(r.meta.destructive)],
    ['plan (ISWC_PLAN, ISWC_BUDGET)', (r) => plan(r.meta)],
    ['runs per property (ISWC_RUNS)', (r) => String(r.meta.runs)],
    ['seed (ISWC_SEED)', (r) => String(r.meta.seed ?? '—')],
    ['waivers (ISWC_WAIVERS)', (r) => r.summary.waivers?.file ?? 'none'],
  ];
  return rows.map(([setting, of]) => ({ setting, base: of(base), head: of(head) })).filter((d) => d.base !== d.head);
}

/** The settings of `settingDifferences` on which generated inputs depend. */
const INPUT_SETTINGS = new Set(['profile', 'profile content', 'harness version', 'plan (ISWC_PLAN, ISWC_BUDGET)', 'runs per property (ISWC_RUNS)', 'seed (ISWC_SEED)']);

/** An execution of a generated input: a property's, the model test's, a scenario step with generated values. */
function isGenerated(e: CheckExecution): boolean {
  return e.seed !== undefined;
}

/** What a case's check did over all its generated inputs: it failed on one, or passed, or was only observed or skipped. */
function overall(list: readonly CheckExecution[] | undefined): CheckExecution | undefined {
  if (!list || list.length === 0) return undefined;
  for (const verdict of ['fail', 'waived', 'pass', 'observed', 'skip'] as const) {
    const found = list.find((e) => e.verdict === verdict);
    if (found) return found;
  }
  return list[0];
}

/**
 * Compares two conformance reports execution by execution, keyed by (caseId, format, step, checkId): what
 * newly fails, newly passes, is newly skipped, and which `observed` facts changed. A check of a case that
 * is in one report only under another step (a property stops at its own counterexample) is matched by
 * (caseId, format, checkId): a property failure that went away is newly passing. Observed changes on a
 * request already listed for a verdict change are its echoes: folded into that entry, not listed again.
 * Each entry carries the exchange of both sides, taken from any execution of the same request. Settings
 * that differ between the runs are listed first. Verdicts are taken from the reports as written.
 */
export function diffReports(base: ConformanceReport, head: ConformanceReport, options: { baseFile?: string } = {}): ReportDiff {
  const settings = settingDifferences(base, head);
  const differ = settings.filter((d) => INPUT_SETTINGS.has(d.setting)).map((d) => d.setting);
  // Different inputs: executions of generated inputs are compared by case and check below, not one by one.
  const apart = (list: readonly CheckExecution[]) => (differ.length > 0 ? list.filter((e) => !isGenerated(e)) : list);
  const baseExecutions = apart(base.executions);
  const headExecutions = apart(head.executions);
  const baseByKey = new Map(baseExecutions.map((e) => [executionKey(e), e]));
  const headByKey = new Map(headExecutions.map((e) => [executionKey(e), e]));
  const baseByCaseCheck = groupBy(baseExecutions, caseCheckKey);
  const headByCaseCheck = groupBy(headExecutions, caseCheckKey);
  const baseExchanges = exchangesByRequest(base.executions);
  const headExchanges = exchangesByRequest(head.executions);
  const out: ReportDiff = {
    base: base.meta,
    head: head.meta,
    settings,
    generatedInputs: { differ, notCompared: 0 },
    ...(options.baseFile !== undefined ? { baseFile: options.baseFile } : {}),
    newlyFailing: [],
    newlyPassing: [],
    newlySkipped: [],
    observedChanged: [],
    echoes: 0,
    onlyInBase: 0,
    onlyInHead: 0,
    specRegression: false,
  };
  const entry = (b: CheckExecution | undefined, x: CheckExecution | undefined, note?: string): DiffEntry => {
    const one = (x ?? b) as CheckExecution;
    const bx = b ? (b.exchange ? { exchange: b.exchange, ...(b.curl ? { curl: b.curl } : {}) } : baseExchanges.get(requestKey(b))) : undefined;
    const hx = x ? (x.exchange ? { exchange: x.exchange, ...(x.curl ? { curl: x.curl } : {}) } : headExchanges.get(requestKey(x))) : undefined;
    return {
      key: executionKey(one),
      checkId: one.checkId,
      level: one.level,
      sections: one.sections,
      operation: operationKey(one),
      format: one.format,
      caseId: one.caseId,
      step: one.step,
      base: b,
      head: x,
      baseExchange: bx,
      headExchange: hx,
      echoes: [],
      ...(note ? { note } : {}),
    };
  };
  const observedChanges: ObservedChange[] = [];

  for (const x of headExecutions) {
    const b = baseByKey.get(executionKey(x));
    if (b) {
      if (x.verdict === 'fail' && b.verdict !== 'fail') out.newlyFailing.push(entry(b, x));
      else if (x.verdict === 'pass' && (b.verdict === 'fail' || b.verdict === 'skip' || b.verdict === 'waived')) out.newlyPassing.push(entry(b, x));
      else if (x.verdict === 'skip' && b.verdict !== 'skip') out.newlySkipped.push(entry(b, x));
      else if (x.verdict === 'observed' && b.verdict === 'observed') {
        const change = factChanges(b, x);
        if (change.length > 0) observedChanges.push({ ...entry(b, x), changes: change });
      }
      continue;
    }
    // Not under this step in base: the same check of the same case under another step, if any.
    const others = baseByCaseCheck.get(caseCheckKey(x)) ?? [];
    const change = x.verdict === 'observed' ? factChanges(undefined, x) : [];
    if (x.verdict === 'fail' && !others.some((o) => o.verdict === 'fail')) {
      const passed = others.find((o) => o.verdict === 'pass' || o.verdict === 'waived');
      out.newlyFailing.push(entry(passed, x, passed ? `base passed this check of the case at "${passed.step}"` : undefined));
    } else if (change.length > 0) observedChanges.push({ ...entry(undefined, x), changes: change });
    else out.onlyInHead += 1;
  }
  for (const [key, b] of baseByKey) {
    if (headByKey.has(key)) continue;
    const others = headByCaseCheck.get(caseCheckKey(b)) ?? [];
    const change = b.verdict === 'observed' ? factChanges(b, undefined) : [];
    if (b.verdict === 'fail' && others.length > 0 && !others.some((o) => o.verdict === 'fail' || o.verdict === 'waived')) {
      // A failure that went away: the property (or case) holds now, recorded under another step.
      const passed = others.find((o) => o.verdict === 'pass');
      if (passed) out.newlyPassing.push(entry(b, passed, `head passes this check of the case at "${passed.step}"`));
      else out.newlySkipped.push(entry(b, others[0], 'head skipped this check of the case'));
    } else if (change.length > 0) observedChanges.push({ ...entry(b, undefined), changes: change });
    else out.onlyInBase += 1;
  }

  if (differ.length > 0) compareGenerated(base, head, out, entry);

  // An observed change on a request listed for a verdict change is an echo of it: folded in, not repeated.
  const changed = new Map<string, DiffEntry>();
  for (const e of [...out.newlyFailing, ...out.newlyPassing, ...out.newlySkipped]) for (const side of [e.base, e.head]) if (side && !changed.has(requestKey(side))) changed.set(requestKey(side), e);
  for (const o of observedChanges) {
    const owner = changed.get(requestKey(o));
    if (owner) {
      owner.echoes.push(...o.changes.map((c) => ({ ...c, fact: `${o.checkId}: ${c.fact}` })));
      out.echoes += 1;
    } else out.observedChanged.push(o);
  }
  out.specRegression = out.newlyFailing.some((e) => e.level === 'spec');
  return out;
}

/**
 * Executions of generated inputs when the runs generated different ones: each case (in a format) is
 * compared over all its inputs. A check that failed on some input of one run and on none of the other's
 * is newly failing or passing (the other run's inputs may not have exercised that check at all: the case
 * ran, and did not fail it); a case skipped in one run only is newly skipped. Their observed facts, which
 * follow the inputs, are not compared at all.
 */
function compareGenerated(base: ConformanceReport, head: ConformanceReport, out: ReportDiff, entry: (b: CheckExecution | undefined, x: CheckExecution | undefined, note?: string) => DiffEntry): void {
  const baseGenerated = base.executions.filter(isGenerated);
  const headGenerated = head.executions.filter(isGenerated);
  out.generatedInputs.notCompared = new Set([...baseGenerated, ...headGenerated].map(executionKey)).size;
  const caseKey = (e: CheckExecution) => `${e.caseId}\u0001${e.format}`;
  const baseBy = groupBy(baseGenerated, caseKey);
  const headBy = groupBy(headGenerated, caseKey);
  const note = `generated inputs differ (${out.generatedInputs.differ.join(', ')}): compared by case over all its inputs`;
  const firstFailures = (list: readonly CheckExecution[]) => [...groupBy(list.filter((e) => e.verdict === 'fail'), (e) => e.checkId).values()].map((l) => l[0]);
  const ofCheck = (list: readonly CheckExecution[], checkId: string) => overall(list.filter((e) => e.checkId === checkId));
  const ran = (list: readonly CheckExecution[]) => list.some((e) => e.verdict !== 'skip');
  for (const [key, x] of headBy) {
    const b = baseBy.get(key);
    if (!b) continue;
    if (ran(x) && ran(b)) {
      for (const f of firstFailures(x)) if (!b.some((e) => e.checkId === f.checkId && e.verdict === 'fail')) out.newlyFailing.push(entry(ofCheck(b, f.checkId), f, note));
      for (const f of firstFailures(b)) if (!x.some((e) => e.checkId === f.checkId && e.verdict === 'fail')) out.newlyPassing.push(entry(f, ofCheck(x, f.checkId), note));
    } else if (!ran(x) && ran(b)) {
      out.newlySkipped.push(entry(overall(b), x[0], note));
    }
  }
}

/** Entries grouped by check × operation, in registry-free stable order: level, check, operation. */
export function groupByCheckAndOperation<T extends DiffEntry>(entries: readonly T[]): Array<{ checkId: string; level: Level; operation: string; sections: string[]; entries: T[] }> {
  const levelOrder: Record<Level, number> = { spec: 0, http: 1, observed: 2 };
  const opOrder = new Map(OPERATION_KEYS.map((k, i) => [k, i]));
  return [...groupBy(entries, (e) => `${e.checkId}\u0001${e.operation}`).values()]
    .map((list) => {
      const first = list[0];
      return { checkId: first.checkId, level: first.level, operation: first.operation, sections: sectionsOf(list), entries: list };
    })
    .sort((a, b) => levelOrder[a.level] - levelOrder[b.level] || a.checkId.localeCompare(b.checkId) || (opOrder.get(a.operation) ?? 1e9) - (opOrder.get(b.operation) ?? 1e9));
}

function fact(v: unknown): string {
  return v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v);
}

/** Markdown table cell: HTML-escaped (GitHub renders HTML), pipes escaped, one line. */
function md(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** One side of an entry in a line: its verdict, what came, and its request's answer. */
function sideSummary(e: CheckExecution | undefined, x: { exchange: Exchange } | undefined): string {
  if (!e) return '(not in this report)';
  const parts = [`${e.verdict}`];
  if (e.received) parts.push(cut(e.received, 300));
  else if (x) parts.push(exchangeLine(x.exchange));
  if (e.skipReason) parts.push(`skipped: ${e.skipReason}`);
  if (e.waiver) parts.push(`waived: ${e.waiver.reason} (until ${e.waiver.until})`);
  return parts.join(' — ');
}

/** What differing generated inputs mean for the comparison, and how to get the same ones; undefined when they are the same. */
export function generatedInputsText(d: ReportDiff): string | undefined {
  const { differ, notCompared } = d.generatedInputs;
  if (differ.length === 0) return undefined;
  const base = d.baseFile ?? 'base.json';
  return `Generated inputs differ (${differ.join(', ')}): ${notCompared} execution${notCompared === 1 ? '' : 's'} of generated inputs cannot be compared one by one; each case's check is compared over all its inputs (a property failing in one run only is listed) and their observed facts are not compared. For a comparison without this noise, rerun with npx iswc-conformance run --same-inputs-as ${base}.`;
}

function metaLine(m: RunMeta): string {
  return `${m.baseUrl ?? '?'} · profile ${m.profile} · seed ${m.seed ?? '—'} · harness ${m.harnessVersion} · ${m.finishedAt}`;
}

function echoText(e: DiffEntry): string {
  return e.echoes.length === 0 ? '' : `; observed with it: ${e.echoes.map((c) => `${c.fact} ${fact(c.base)} → ${fact(c.head)}`).join('; ')}`;
}

/** Rows of a group listed in Markdown; the rest are counted (diff.html lists every one). */
const MARKDOWN_ROWS = 20;

/** The diff's verdict, the same line in diff.md and diff.html: whether a spec check newly fails, and the exit status. */
export function diffResultText(d: Pick<ReportDiff, 'specRegression'>): string {
  return d.specRegression ? 'Result: a spec check newly fails (exit status 1).' : 'Result: no spec check newly fails (exit status 0).';
}

export function renderDiffMarkdown(d: ReportDiff): string {
  const lines: string[] = ['# ISWC conformance: regression diff', '', `- base: ${md(metaLine(d.base))}`, `- head: ${md(metaLine(d.head))}`];
  if (d.settings.length > 0) {
    lines.push('', `**⚠ The runs differ in ${d.settings.length} setting${d.settings.length === 1 ? '' : 's'}**: results may differ because of ${d.settings.length === 1 ? 'it' : 'them'}, not because the target changed.`, '', '| Setting | Base | Head |', '|---|---|---|');
    for (const s of d.settings) lines.push(`| ${md(s.setting)} | ${md(s.base)} | ${md(s.head)} |`);
  }
  const inputs = generatedInputsText(d);
  if (inputs) lines.push('', `**⚠ ${md(inputs)}**`);
  lines.push(
    '',
    `**${d.newlyFailing.length} newly failing** (${d.newlyFailing.filter((e) => e.level === 'spec').length} spec) · **${d.newlyPassing.length} newly passing** · **${d.newlySkipped.length} newly skipped** · **${d.observedChanged.length} observed behaviour changed**${d.echoes > 0 ? ` (and ${d.echoes} observed change${d.echoes === 1 ? '' : 's'} on requests listed above, shown with them)` : ''}`,
  );
  if (d.onlyInBase + d.onlyInHead > 0) lines.push('', `_${d.onlyInBase} check execution(s) only in base, ${d.onlyInHead} only in head (different harness version or settings); not compared._`);
  const section = (title: string, list: DiffEntry[]): void => {
    lines.push('', `## ${title} (${list.length})`);
    if (list.length === 0) {
      lines.push('', 'None.');
      return;
    }
    for (const g of groupByCheckAndOperation(list)) {
      lines.push('', `### \`${g.checkId}\` [${g.level}, ${sectionsText(g.sections)}] — ${operationLabel(g.operation)} (${g.entries.length})`, '', '| Case / step | Format | Base | Head |', '|---|---|---|---|');
      for (const e of g.entries.slice(0, MARKDOWN_ROWS)) {
        lines.push(`| ${md(`${e.caseId} / ${e.step}${e.note ? ` (${e.note})` : ''}`)} | ${e.format.toUpperCase()} | ${md(sideSummary(e.base, e.baseExchange))} | ${md(`${sideSummary(e.head, e.headExchange)}${echoText(e)}`)} |`);
      }
      if (g.entries.length > MARKDOWN_ROWS) lines.push('', `_… and ${g.entries.length - MARKDOWN_ROWS} more (diff.html lists every one)._`);
    }
  };
  section('Newly failing', d.newlyFailing);
  section('Newly passing', d.newlyPassing);
  section('Newly skipped', d.newlySkipped);
  lines.push('', `## Observed behaviour that changed (${d.observedChanged.length})`, '', '_Points the document leaves open ("not shown"), on requests whose verdicts did not change: not failures, but changes the API team should know about._');
  if (d.observedChanged.length === 0) lines.push('', 'None.');
  else {
    for (const g of groupByCheckAndOperation(d.observedChanged)) {
      lines.push('', `### \`${g.checkId}\` — ${operationLabel(g.operation)} (${g.entries.length})`, '', '| Case / step | Format | Fact | Base | Head |', '|---|---|---|---|---|');
      let rows = 0;
      for (const e of g.entries) {
        for (const c of e.changes) {
          if (rows++ < MARKDOWN_ROWS) lines.push(`| ${md(`${e.caseId} / ${e.step}`)} | ${e.format.toUpperCase()} | ${md(c.fact)} | ${md(fact(c.base))} | ${md(fact(c.head))} |`);
        }
      }
      if (rows > MARKDOWN_ROWS) lines.push('', `_… and ${rows - MARKDOWN_ROWS} more (diff.html lists every one)._`);
    }
  }
  const result = diffResultText(d).replace('spec', '`spec`');
  lines.push('', d.specRegression ? `**${result}**` : result, '');
  return lines.join('\n');
}

/** One side of an entry: verdict and what came, then the request and the response side by side, and the curl line. */
function sideBlock(e: CheckExecution | undefined, x: { exchange: Exchange; curl?: string } | undefined): string {
  if (!e) return '<p class="muted">(not in this report)</p>';
  const head = `<div class="verdict"><b>${h(e.verdict)}</b> ${h(e.received ?? e.skipReason ?? '')}</div>`;
  if (!x) return `${head}<p class="muted">no exchange recorded for this request in this report</p>`;
  const t = exchangeTexts(x.exchange, 4000);
  return `${head}<pre class="request">${h(t.request)}</pre><pre class="response">${h(t.response)}</pre>${x.curl ? `<pre class="curl">${h(cut(x.curl, 2000))}</pre>` : ''}`;
}

export function renderDiffHtml(d: ReportDiff): string {
  const factTable = (changes: readonly FactChange[]) =>
    `<table class="facts"><tr><th>Fact</th><th>Base</th><th>Head</th></tr>${changes.map((c) => `<tr><td>${h(c.fact)}</td><td>${h(fact(c.base))}</td><td>${h(fact(c.head))}</td></tr>`).join('')}</table>`;
  const entryHtml = (e: DiffEntry, changes?: readonly FactChange[]) =>
    `<details class="entry" data-key="${h(e.key)}"><summary><code>${h(e.caseId)}</code> / ${h(e.step)} · ${h(e.format.toUpperCase())}${e.note ? ` <span class="muted">(${h(e.note)})</span>` : ''} — <span class="muted">${h(cut(e.head?.received ?? e.base?.received ?? '', 160))}</span></summary>${changes ? factTable(changes) : ''}${e.echoes.length > 0 ? `<p class="muted">Observed facts of the same request that changed with it:</p>${factTable(e.echoes)}` : ''}<div class="cols"><div><h4>Base</h4>${sideBlock(e.base, e.baseExchange)}</div><div><h4>Head</h4>${sideBlock(e.head, e.headExchange)}</div></div></details>`;
  const block = (title: string, id: string, list: DiffEntry[]): string =>
    `<h2 id="${id}">${h(title)} (${list.length})</h2>${
      list.length === 0
        ? '<p>None.</p>'
        : groupByCheckAndOperation(list)
            .map(
              (g) =>
                `<details class="group" data-check="${h(g.checkId)}" data-op="${h(g.operation)}" data-count="${g.entries.length}"><summary><span class="count">${g.entries.length}</span> <b>${h(g.checkId)}</b> <span class="muted">[${h(g.level)}, ${h(sectionsText(g.sections))}]</span> ${h(operationLabel(g.operation))}</summary>${g.entries.map((e) => entryHtml(e, 'changes' in e ? (e as ObservedChange).changes : undefined)).join('\n')}</details>`,
            )
            .join('\n')
    }`;
  const settings =
    d.settings.length === 0
      ? '<p id="settings" class="muted">Both runs used the same settings.</p>'
      : `<div id="settings" class="warning"><b>⚠ The runs differ in ${d.settings.length} setting${d.settings.length === 1 ? '' : 's'}</b>: results may differ because of ${d.settings.length === 1 ? 'it' : 'them'}, not because the target changed.<table><tr><th>Setting</th><th>Base</th><th>Head</th></tr>${d.settings.map((s) => `<tr class="setting"><td>${h(s.setting)}</td><td>${h(s.base)}</td><td>${h(s.head)}</td></tr>`).join('')}</table></div>`;
  const inputs = generatedInputsText(d);
  const body = `<h1>ISWC conformance: regression diff <span id="result" class="badge ${d.specRegression ? 'bad' : 'ok'}" data-spec-regression="${d.specRegression ? 'yes' : 'no'}">${h(diffResultText(d))}</span></h1>
<table class="meta"><tr><td>Base</td><td>${h(metaLine(d.base))}</td></tr><tr><td>Head</td><td>${h(metaLine(d.head))}</td></tr></table>
${settings}
${inputs ? `<div id="generated-inputs" class="warning"><b>⚠</b> ${h(inputs)}</div>` : ''}
<p><b>${d.newlyFailing.length}</b> newly failing · <b>${d.newlyPassing.length}</b> newly passing · <b>${d.newlySkipped.length}</b> newly skipped · <b>${d.observedChanged.length}</b> observed behaviour changed${d.echoes > 0 ? ` (and ${d.echoes} observed change${d.echoes === 1 ? '' : 's'} on requests listed for a verdict change, shown with them)` : ''}${d.onlyInBase + d.onlyInHead > 0 ? ` · ${d.onlyInBase} only in base, ${d.onlyInHead} only in head` : ''}</p>
<p class="muted">Grouped by check × operation; each entry shows the base and the head exchange side by side.</p>
${block('Newly failing', 'newly-failing', d.newlyFailing)}
${block('Newly passing', 'newly-passing', d.newlyPassing)}
${block('Newly skipped', 'newly-skipped', d.newlySkipped)}
${block('Observed behaviour that changed', 'observed-changed', d.observedChanged)}`;
  return page('ISWC conformance: regression diff', body);
}
