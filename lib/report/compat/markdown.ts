import type { CompatExchange, CompatReport } from './model.ts';
import { cellOf, columnLabel, columnsOf, countsText, SET_VERDICT_WORD, VERDICT_MARK } from './labels.ts';

/**
 * compat.md: the summary a pull request or a deployment's page shows: the verdict, the matrix in marks,
 * then each broken and changed exchange in a line (what, and why), the rest in compat.html. Expects a
 * redacted report.
 */

const LISTED = 30;

function md(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function line(e: CompatExchange): string {
  return `- **agency ${md(e.agency)}** · ${md(columnLabel(e.operation, e.format))} · \`${e.id}\` (${md(e.session)} #${e.seq}): ${md(e.reasons.slice(0, 3).join('; '))}`;
}

export function renderCompatMarkdown(report: CompatReport): string {
  const o = report.outcome;
  const f = report.figures;
  const columns = columnsOf(report);
  const out: string[] = [];
  out.push('## Will this build break an agency?', '');
  out.push(`**${VERDICT_MARK[o.verdict === 'incomplete' || o.verdict === 'unusable' || o.verdict === 'not judged' ? 'skipped' : o.verdict]} ${md(o.text)}** (exit code ${o.exitCode})`, '');
  out.push(`Build: ${report.target.embedded ? 'the embedded reference server' : `\`${report.target.baseUrl ?? ''}\``}, profile \`${md(report.target.profile)}\`. Traffic: ${f.sessions} session(s) of ${f.agencies} agencies, ${f.exchanges} exchanges in ${f.shapes} shapes; ${f.replayed} shapes replayed with ${f.requests.sent} requests.`, '');
  out.push(`| Agency | ${columns.map((c) => md(columnLabel(c.operation, c.format))).join(' | ')} | Verdict |`);
  out.push(`|---|${columns.map(() => '---').join('|')}|---|`);
  for (const a of report.agencies) {
    const cells = columns.map((c) => {
      const cell = cellOf(report, a.agency, c.operation, c.format);
      return cell ? `${VERDICT_MARK[cell.verdict]} ${countsText(cell.counts)}` : '·';
    });
    out.push(`| ${md(a.agency)} | ${cells.join(' | ')} | ${VERDICT_MARK[a.verdict]} ${SET_VERDICT_WORD[a.verdict]} |`);
  }
  out.push('', `${VERDICT_MARK.compatible} compatible: as recorded · ${VERDICT_MARK.changed} changed: within the document, but different · ${VERDICT_MARK.broken} broken: the document violated, no answer, or a success became a refusal · ${VERDICT_MARK.skipped} not replayed, or not judged: an agency with an exchange not replayed although its client met an answer of the API (see why in compat.html)`);
  for (const verdict of ['broken', 'changed'] as const) {
    const list = report.exchanges.filter((e) => e.verdict === verdict && e.judgedBy === e.id);
    if (list.length === 0) continue;
    out.push('', `### ${verdict === 'broken' ? 'Broken' : 'Changed'} (${list.length} request${list.length === 1 ? '' : 's'} replayed)`, '');
    for (const e of list.slice(0, LISTED)) {
      const also = report.exchanges.filter((x) => x.judgedBy === e.id && x.id !== e.id);
      out.push(`${line(e)}${also.length > 0 ? ` — also ${also.length} exchange(s) of the same shape (agencies ${[...new Set(also.map((x) => x.agency))].join(', ')})` : ''}`);
    }
    if (list.length > LISTED) out.push(`- … ${list.length - LISTED} more in compat.html`);
  }
  const found = report.exchanges.filter((e) => e.judgedBy === e.id && (e.findings?.length ?? 0) > 0);
  if (found.length > 0) {
    out.push('', `### Findings (${found.length}): nothing broken, but the client meets it`, '');
    for (const e of found.slice(0, LISTED)) out.push(`- **agency ${md(e.agency)}** · ${md(columnLabel(e.operation, e.format))} · \`${e.id}\`: ${md((e.findings ?? []).join('; '))}`);
    if (found.length > LISTED) out.push(`- … ${found.length - LISTED} more in compat.html`);
  }
  const gaps = report.agencies.filter((a) => a.verdict === 'skipped');
  if (gaps.length > 0) {
    out.push('', `### Not judged (${gaps.length} agenc${gaps.length === 1 ? 'y' : 'ies'})`, '');
    for (const a of gaps) {
      const first = report.exchanges.find((e) => e.agency === a.agency && e.notJudged === true);
      out.push(`- **agency ${md(a.agency)}**: ${a.notJudged} exchange(s) not replayed${first ? `: ${md(first.reasons[0] ?? '')}` : ''}`);
    }
  }
  out.push('', 'Each exchange, what the client met beside what the build answered: `compat.html`. Every figure: `compat.json`.', '');
  return out.join('\n');
}
