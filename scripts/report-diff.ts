/**
 * npm run report:diff -- [base/conformance.json] [head/conformance.json] [--out dir]
 *
 * base defaults to baselines/conformance.json (npm run report:baseline), head to reports/conformance.json.
 * Writes diff.md and diff.html (to ISWC_REPORT_DIR or reports/) and the Markdown to stdout.
 * Exit status: 1 when a `spec` check newly fails, 2 on a usage error, 0 otherwise.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { diffReports, renderDiffHtml, renderDiffMarkdown } from '../lib/report/diff.ts';
import { readReport } from '../lib/report/validate.ts';
import { writeRedacted } from '../lib/report/write.ts';
import { redactorFromEnv } from '../lib/redact.ts';
import { repoRoot } from '../lib/paths.ts';

// `report:diff | head` closes stdout early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});

function main(): number {
  const { values, positionals } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true });
  const reportDir = path.resolve(process.env.ISWC_REPORT_DIR?.trim() || path.join(repoRoot, 'reports'));
  const [first, second] = positionals;
  const baseFile = path.resolve(second ? (first ?? '') : path.join(repoRoot, 'baselines', 'conformance.json'));
  const headFile = path.resolve(second ?? first ?? path.join(reportDir, 'conformance.json'));
  const diff = diffReports(readReport(baseFile), readReport(headFile));
  const outDir = path.resolve(values.out ?? reportDir);
  const markdown = renderDiffMarkdown(diff);
  writeRedacted(path.join(outDir, 'diff.md'), markdown);
  writeRedacted(path.join(outDir, 'diff.html'), renderDiffHtml(diff));
  process.stdout.write(redactorFromEnv().text(markdown));
  process.stderr.write(`report:diff: ${path.relative(process.cwd(), path.join(outDir, 'diff.md'))} · ${path.relative(process.cwd(), path.join(outDir, 'diff.html'))}\n`);
  return diff.specRegression ? 1 : 0;
}

try {
  process.exitCode = main();
} catch (err) {
  process.stderr.write(`report:diff: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}
