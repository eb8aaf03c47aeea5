import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { shownPath } from '../../foundation/paths.ts';
import { buildLedger, renderLedger } from '../../report/ledger.ts';
import type { LedgerRun } from '../../report/ledger.ts';
import { readReport } from '../../report/validate.ts';
import { harnessCatalogue } from '../../run/tried.ts';
import type { Command } from '../command.ts';
import { EXIT, exitMeaning, reportDirOf, stringOption, UsageError } from '../command.ts';
import { environmentOf } from '../environment.ts';

/** Folders below a named one that are never a gate's reports. */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);
/** How deep below a named folder reports are looked for (reports/gate-17/conformance.json is two). */
const MAX_DEPTH = 6;

/** The conformance.json files a path names: the file itself, or those below a folder. */
function reportFiles(start: string): string[] {
  const stat = statSync(start, { throwIfNoEntry: false });
  if (stat === undefined) throw new UsageError(`no file or folder at ${start}`);
  if (stat.isFile()) return [start];
  const out: string[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth < MAX_DEPTH && !SKIPPED_DIRS.has(entry.name)) walk(full, depth + 1);
      else if (entry.isFile() && entry.name === 'conformance.json') out.push(full);
    }
  };
  walk(start, 0);
  return out;
}

/** --since: a day (YYYY-MM-DD, from its start, UTC) or a time (ISO 8601), as the ISO time reports record. */
export function sinceOption(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const value = /^\d{4}-\d{2}-\d{2}$/.test(text.trim()) ? `${text.trim()}T00:00:00Z` : text.trim();
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(value)) throw new UsageError(`--since ${text}: not a day (2026-12-01) nor a time (2026-12-01T09:30:00Z)`);
  return new Date(ms).toISOString();
}

/**
 * `npx iswc-conformance ledger [REPORT.json|DIR ...]`: which faults of the catalogue the gates whose reports
 * are at hand tried between them, and which not yet (issue 37, rotating gates).
 */
export const ledgerCommand: Command = {
  name: 'ledger',
  summary: 'which faults of the catalogue earlier gates tried between them, and which not yet',
  usage: 'npx iswc-conformance ledger [REPORT.json | DIR ...] [--since DAY] [--json]',
  description:
    'Reads the conformance.json of earlier runs (the files named, or every conformance.json below the folders named; default the report directory) and, for each kind of run (the same profile, mode, strictness, plan and budget), adds up the faults of the reference server\'s catalogue they tried: those the committed measurement says the cases each run sent whole catch, as each run recorded them. Tried is not caught: a gate against staging shows what staging does, not the catalogue. It prints the slices the gates took, the faults tried and those not yet tried. Keep each gate\'s conformance.json (a CI artifact, reports/gate-N/) and run this over them; a report a shard merge or an earlier harness wrote records nothing tried and is said not counted. Sends nothing.',
  options: {
    since: { type: 'string', value: 'DAY', description: 'Only the runs that started then or later: a day (2026-12-01, UTC) or a time (2026-12-01T09:30:00Z).' },
    json: { type: 'boolean', description: 'Print the ledger as JSON (each kind of run with its runs, slices, faults tried and not yet tried).' },
  },
  positionals: { min: 0, max: 1000 },
  environment: environmentOf(['ISWC_REPORT_DIR']),
  exitCodes: [exitMeaning(EXIT.OK, ': the ledger was printed'), exitMeaning(EXIT.USAGE, ': no conformance report could be read, or --since is not a day or a time')],
  run({ values, positionals }, io) {
    const since = sinceOption(stringOption(values, 'since'));
    const starts = positionals.length > 0 ? positionals.map((p) => path.resolve(io.cwd, p)) : [path.resolve(io.cwd, reportDirOf(io))];
    const shown = (file: string): string => shownPath(file, io.cwd);
    const runs: LedgerRun[] = [];
    const unreadable: string[] = [];
    for (const file of starts.flatMap(reportFiles)) {
      try {
        runs.push({ file, report: readReport(file) });
      } catch (e) {
        // The first line says why, the next the first violation of the schema (when that is why).
        const [why = '', first] = (e as Error).message.replace(`${file} `, '').split('\n');
        unreadable.push(`${shown(file)}: ${why}${first ? ` ${first.trim()}` : ''}`);
      }
    }
    for (const line of unreadable) io.stderr(`ledger: skipped ${line}\n`);
    if (runs.length === 0) throw new UsageError(`no conformance report read under ${starts.map(shown).join(', ')}: name the gates' conformance.json files, or the folder that holds them (reports/gate-N/conformance.json)`);
    const catalogue = harnessCatalogue();
    const groups = buildLedger(runs, catalogue, since);
    if (values.json === true) {
      io.stdout(`${JSON.stringify({ catalogue: catalogue.fingerprint, since: since ?? null, groups: groups.map((g) => ({ ...g, runs: g.runs.map((r) => ({ ...r, file: shown(r.file) })), unrecorded: g.unrecorded.map(shown) })) }, null, 2)}\n`);
      return EXIT.OK;
    }
    const header = `ledger: ${runs.length} report${runs.length === 1 ? '' : 's'} read${unreadable.length > 0 ? ` (${unreadable.length} skipped: not a conformance report)` : ''}${since ? `, ${groups.reduce((n, g) => n + g.runs.length + g.unrecorded.length, 0)} since ${since}` : ''}; the catalogue of this harness's measurement ${catalogue.fingerprint}`;
    io.stdout(`${[header, '', ...(groups.length === 0 ? [`no run started on or after ${since ?? ''}`, ''] : renderLedger(groups, catalogue, shown))].join('\n')}`);
    return EXIT.OK;
  },
};
