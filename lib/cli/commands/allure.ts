import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, shownPath } from '../../foundation/paths.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT, exitMeaning, reportDirOf, stringOption } from '../command.ts';
import { environmentOf } from '../environment.ts';

/** References a self-contained page must not hold: anything fetched from a network address. */
export function outsideReferences(html: string): string[] {
  const found = html.match(/\b(?:src|href|action)\s*=\s*["']?(?:https?:)?\/\/[^"'\s>]+|@import\s+(?:url\()?["']?(?:https?:)?\/\/[^"')\s]+|url\(\s*["']?(?:https?:)?\/\/[^"')\s]+/gi) ?? [];
  return [...new Set(found)];
}

/** The Allure 3 CLI of the lockfile. */
const ALLURE_CLI = path.join(repoRoot, 'node_modules', 'allure', 'cli.js');

/**
 * Writes the page of `results` into `out` with the Allure CLI (`cli`: the lockfile's; a test gives its
 * own) and checks it; the exit code of the command. The tool failing, or writing a page that refers
 * outside itself, is a defect on this side (4), never a verdict on the target.
 */
export function allurePage(results: string, out: string, io: Pick<CliIo, 'cwd' | 'env' | 'stdout' | 'stderr'>, cli = ALLURE_CLI): number {
  // A previous multi-file report would leave its files next to the single one.
  rmSync(out, { recursive: true, force: true });
  const run = spawnSync(process.execPath, [cli, 'generate', results, '--config', path.join(repoRoot, 'allurerc.json'), '--output', out, '--cwd', repoRoot], {
    cwd: repoRoot,
    env: { ...io.env, ALLURE_NO_ANALYTICS: 'true' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const index = path.join(out, 'index.html');
  if (run.status !== 0 || !existsSync(index)) {
    io.stderr(`allure: allure generate failed (exit ${run.status ?? 'signal'}):\n${run.stdout}${run.stderr}\n`);
    return EXIT.INTERNAL;
  }
  const outside = outsideReferences(readFileSync(index, 'utf8'));
  if (outside.length > 0) {
    io.stderr(`allure: ${shownPath(index, io.cwd)} refers outside itself (${outside.slice(0, 5).join(', ')}); it would not open offline\n`);
    return EXIT.INTERNAL;
  }
  io.stdout(`allure: ${shownPath(index, io.cwd)} (one file, opens from disk, no outside requests)\n`);
  return EXIT.OK;
}

/**
 * `npx iswc-conformance allure`: turns the Allure results of the last run into one self-contained page
 * with the Allure 3 CLI of the lockfile and allurerc.json (the allure2 plugin in single-file mode, so the
 * page carries its data and opens from disk; ALLURE_NO_ANALYTICS=true), then checks that the page refers
 * to nothing outside itself.
 */
export const allureCommand: Command = {
  name: 'allure',
  summary: 'turn the last run\'s Allure results into one self-contained HTML page',
  usage: 'npx iswc-conformance allure [--report-dir DIR] [--out DIR]',
  description: 'Reads REPORT_DIR/allure-results and writes REPORT_DIR/allure-report/index.html: one file that opens from disk and requests nothing outside itself.',
  options: {
    'report-dir': { type: 'string', value: 'DIR', description: 'The run\'s report directory (ISWC_REPORT_DIR, default reports/).' },
    out: { type: 'string', value: 'DIR', description: 'Where the page goes (default REPORT_DIR/allure-report).' },
  },
  environment: environmentOf(['ISWC_REPORT_DIR']),
  exitCodes: [
    [EXIT.OK, 'the page was written'],
    [EXIT.USAGE, 'no Allure results to report (run the suite first), or --out cannot be written'],
    exitMeaning(EXIT.INTERNAL, `: the Allure CLI failed, or the page it wrote refers outside itself`),
  ],
  run({ values }, io) {
    const reportDir = reportDirOf(io, stringOption(values, 'report-dir'));
    const results = path.join(reportDir, 'allure-results');
    const out = path.resolve(io.cwd, stringOption(values, 'out') ?? path.join(reportDir, 'allure-report'));
    if (!existsSync(results) || !readdirSync(results).some((f) => f.endsWith('-result.json'))) {
      io.stderr(`allure: no Allure results in ${shownPath(results, io.cwd)}: run the suite first (npx iswc-conformance), with the same report directory\n`);
      return EXIT.USAGE;
    }
    return allurePage(results, out, io);
  },
};
