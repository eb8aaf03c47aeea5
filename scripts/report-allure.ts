/**
 * npm run report:allure [-- --out dir]
 *
 * Turns the Allure results of the last run (ISWC_REPORT_DIR/allure-results, default reports/) into one
 * self-contained HTML file, ISWC_REPORT_DIR/allure-report/index.html, with the Allure 3 CLI (the `allure`
 * package of the lockfile, offline) and allurerc.json: the `allure2` plugin in single-file mode (the page
 * carries its data, so it opens from disk; the default plugin's page fetches its data and spins forever
 * from file://), with ALLURE_NO_ANALYTICS=true (the report pages otherwise load an analytics script from
 * outside). Then it checks that the page refers to nothing outside itself.
 * Exit status: 0 written, 1 the Allure CLI failed or the page refers outside, 2 no results to report.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../lib/paths.ts';

/** References a self-contained page must not hold: anything fetched from a network address. */
export function outsideReferences(html: string): string[] {
  const found = html.match(/\b(?:src|href|action)\s*=\s*["']?(?:https?:)?\/\/[^"'\s>]+|@import\s+(?:url\()?["']?(?:https?:)?\/\/[^"')\s]+|url\(\s*["']?(?:https?:)?\/\/[^"')\s]+/gi) ?? [];
  return [...new Set(found)];
}

function main(): number {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const reportDir = path.resolve(process.env.ISWC_REPORT_DIR?.trim() || path.join(repoRoot, 'reports'));
  const results = path.join(reportDir, 'allure-results');
  const out = path.resolve(values.out ?? path.join(reportDir, 'allure-report'));
  if (!existsSync(results) || !readdirSync(results).some((f) => f.endsWith('-result.json'))) {
    process.stderr.write(`report:allure: no Allure results in ${path.relative(process.cwd(), results) || results}: run the suite first (npm run conformance), with the same ISWC_REPORT_DIR\n`);
    return 2;
  }
  // A previous multi-file report would leave its files next to the single one.
  rmSync(out, { recursive: true, force: true });
  const cli = path.join(repoRoot, 'node_modules', 'allure', 'cli.js');
  const run = spawnSync(process.execPath, [cli, 'generate', results, '--config', path.join(repoRoot, 'allurerc.json'), '--output', out, '--cwd', repoRoot], {
    cwd: repoRoot,
    env: { ...process.env, ALLURE_NO_ANALYTICS: 'true' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const index = path.join(out, 'index.html');
  if (run.status !== 0 || !existsSync(index)) {
    process.stderr.write(`report:allure: allure generate failed (exit ${run.status ?? 'signal'}):\n${run.stdout}${run.stderr}\n`);
    return 1;
  }
  const outside = outsideReferences(readFileSync(index, 'utf8'));
  if (outside.length > 0) {
    process.stderr.write(`report:allure: ${path.relative(process.cwd(), index)} refers outside itself (${outside.slice(0, 5).join(', ')}); it would not open offline\n`);
    return 1;
  }
  process.stdout.write(`report:allure: ${path.relative(process.cwd(), index)} (one file, opens from disk, no outside requests)\n`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) process.exitCode = main();
