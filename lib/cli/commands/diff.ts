import path from 'node:path';
import { shownPath } from '../../foundation/paths.ts';
import { redactorFromEnv } from '../../foundation/redact.ts';
import { diffReports, renderDiffHtml, renderDiffMarkdown } from '../../report/diff.ts';
import { readReport } from '../../report/validate.ts';
import { writeRedacted } from '../../report/write.ts';
import type { Command } from '../command.ts';
import { EXIT, stringOption, UsageError, reportDirOf } from '../command.ts';
import { environmentOf } from '../environment.ts';

/** Reads a conformance report a user named; a missing or malformed file is a usage error. */
export function readReportArgument(file: string, what: string): ReturnType<typeof readReport> {
  try {
    return readReport(file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(err.code === 'ENOENT' ? `${what}: no report at ${file}` : `${what}: ${err.message}`);
  }
}

/**
 * `npx iswc-conformance diff [BASE] [HEAD]`: what changed between two runs, grouped by check ×
 * operation, each change with both exchanges; writes diff.md and diff.html and the Markdown to stdout.
 */
export const diffCommand: Command = {
  name: 'diff',
  summary: 'what changed between two runs (newly failing, passing, skipped; observed changes)',
  usage: 'npx iswc-conformance diff [BASE.json] [HEAD.json] [--out DIR]',
  description:
    'BASE defaults to baselines/conformance.json (the baseline command), HEAD to reports/conformance.json. Settings that differ come first. When the runs generated different inputs (another seed, ISWC_RUNS, plan or budget, profile or harness), executions of generated inputs are compared only by case and check (a property failing in one run only is listed) and their observed facts not at all; run --same-inputs-as BASE makes a run with the same inputs. An observed change on a request that newly fails is shown with that failure. Writes diff.md and diff.html (to --out, default the report directory) and prints the Markdown.',
  options: {
    out: { type: 'string', value: 'DIR', description: 'Where diff.md and diff.html go (default: ISWC_REPORT_DIR or reports/).' },
  },
  positionals: { min: 0, max: 2 },
  environment: environmentOf(['ISWC_REPORT_DIR']),
  exitCodes: [
    [EXIT.OK, 'no spec check newly fails'],
    [EXIT.NOT_CONFORMANT, 'a spec check newly fails'],
    [EXIT.USAGE, 'a report cannot be read'],
  ],
  run({ values, positionals }, io) {
    const reportDir = reportDirOf(io);
    const [first, second] = positionals;
    const baseFile = path.resolve(io.cwd, second !== undefined ? (first ?? '') : path.join('baselines', 'conformance.json'));
    const headFile = path.resolve(io.cwd, second ?? first ?? path.join(reportDir, 'conformance.json'));
    const diff = diffReports(readReportArgument(baseFile, 'base'), readReportArgument(headFile, 'head'), { baseFile: shownPath(baseFile, io.cwd) });
    const outDir = path.resolve(io.cwd, stringOption(values, 'out') ?? reportDir);
    const markdown = renderDiffMarkdown(diff);
    writeRedacted(path.join(outDir, 'diff.md'), markdown);
    writeRedacted(path.join(outDir, 'diff.html'), renderDiffHtml(diff));
    io.stdout(redactorFromEnv().text(markdown));
    io.stderr(`diff: ${shownPath(path.join(outDir, 'diff.md'), io.cwd)} · ${shownPath(path.join(outDir, 'diff.html'), io.cwd)}\n`);
    return diff.specRegression ? EXIT.NOT_CONFORMANT : EXIT.OK;
  },
};
