/**
 * npm run report:baseline -- [reports/conformance.json] [--out baselines/conformance.json]
 *
 * Keeps the current conformance report as the baseline (commit it): `npm run report:diff` compares
 * against it by default. The report is validated against schemas/report.schema.json first.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readReport } from '../lib/report/validate.ts';
import { repoRoot } from '../lib/paths.ts';

try {
  const { values, positionals } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true });
  const reportDir = path.resolve(process.env.ISWC_REPORT_DIR?.trim() || path.join(repoRoot, 'reports'));
  const source = path.resolve(positionals[0] ?? path.join(reportDir, 'conformance.json'));
  const target = path.resolve(values.out ?? path.join(repoRoot, 'baselines', 'conformance.json'));
  const report = readReport(source);
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(source, target);
  process.stdout.write(`report:baseline: ${path.relative(process.cwd(), source)} → ${path.relative(process.cwd(), target)} (${report.executions.length} check executions, ${report.summary.verdict})\n`);
} catch (err) {
  process.stderr.write(`report:baseline: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}
