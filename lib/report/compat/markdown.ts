import type { CompatExchange, CompatReport } from './model.ts';
import { cellOf, columnLabel, columnsOf, countsText, VERDICT_MARK, VERDICT_WORD } from './labels.ts';

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
  out.push(`**${VERDICT_MARK[o.verdict === 'incomplete' ? 'skipped' : o.verdict]} ${md(o.text)}** (exit code ${o.exitCode})`, '');
  out.push(`Build: ${report.target.embedded ? 'the embedded reference server' : `\`${report.target.baseUrl ?? ''}\``}, profile \`${md(report.target.profile)}\`. Traffic: ${f.sessions} session(s) of ${f.agencies} agencies, ${f.exchanges} exchanges in ${f.shapes} shapes; ${f.replayed} shapes replayed with ${f.requests.sent} requests.`, '');
  out.push(`| Agency | ${columns.map((c) => md(columnLabel(c.operation, c.format))).join(' | ')} | Verdict |`);
  out.push(`|---|${columns.map(() => '---').join('|')}|---|`);
  for (const a of report.agencies) {
    const cells = columns.map((c) => {
      const cell = cellOf(report, a.agency, c.operation, c.format);
      return cell ? `${VERDICT_MARK[cell.verdict]} ${countsText(cell.counts)}` : '·';
    });
    out.push(`| ${md(a.agency)} | ${cells.join(' | ')} | ${VERDICT_MARK[a.verdict]} ${VERDICT_WORD[a.verdict]} |`);
  }
  out.push('', `${VERDICT_MARK.compatible} compatible: as recorded · ${VERDICT_MARK.changed} changed: within the document, but different · ${VERDICT_MARK.broken} broken: the document violated, no answer, or a success became a refusal · ${VERDICT_MARK.skipped} not replayed (see why in compat.html)`);
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
  out.push('', 'Each exchange, what the client met beside what the build answered: `compat.html`. Every figure: `compat.json`.', '');
  return out.join('\n');
}
