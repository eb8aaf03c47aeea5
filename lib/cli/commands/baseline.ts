import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { shownPath } from '../../foundation/paths.ts';
import type { Command } from '../command.ts';
import { EXIT, stringOption, reportDirOf } from '../command.ts';
import { readReportArgument } from './diff.ts';
import { environmentOf } from '../environment.ts';

/** `npx iswc-conformance baseline [REPORT]`: keeps a run as the baseline the diff command compares with. */
export const baselineCommand: Command = {
  name: 'baseline',
  summary: 'keep a run as the baseline that diff compares with (commit it)',
  usage: 'npx iswc-conformance baseline [REPORT.json] [--out FILE]',
  description: 'Copies REPORT (default reports/conformance.json), validated against schemas/report.schema.json first, to --out (default baselines/conformance.json).',
  options: {
    out: { type: 'string', value: 'FILE', description: 'Where the baseline goes (default baselines/conformance.json).' },
  },
  positionals: { min: 0, max: 1 },
  environment: environmentOf(['ISWC_REPORT_DIR']),
  exitCodes: [
    [EXIT.OK, 'the baseline was written'],
    [EXIT.USAGE, 'the report cannot be read or is not a conformance report'],
  ],
  run({ values, positionals }, io) {
    const reportDir = reportDirOf(io);
    const source = path.resolve(io.cwd, positionals[0] ?? path.join(reportDir, 'conformance.json'));
    const target = path.resolve(io.cwd, stringOption(values, 'out') ?? path.join('baselines', 'conformance.json'));
    const report = readReportArgument(source, 'report');
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(source, target);
    io.stdout(`baseline: ${shownPath(source, io.cwd)} → ${shownPath(target, io.cwd)} (${report.executions.length} check executions, ${report.summary.verdict})\n`);
    return EXIT.OK;
  },
};
