/**
 * npm run test:cpu [-- --log FILE] [--top N] [--script test:e2e]: where the CPU of an `npm test` (or of the
 * second tier, `npm run test:e2e`) goes, by test file: in the
 * test's own worker, and in the processes its tests start (commands, servers, npm, nested Playwright
 * runs). On two cores the suite is bound by CPU, not by waits: this says what to cut.
 *
 * Without --log it runs `npm test` with scripts/cpu-hook.mjs loaded into every Node process, writing
 * test-reports/cpu.jsonl, then prints the table; with --log it prints the table of a log already written.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fromRoot } from '../lib/foundation/paths.ts';
import { scriptArgs } from './args.ts';
import type { CpuLine } from './cpu/summary.ts';
import { renderSummary, summarize } from './cpu/summary.ts';

const args = scriptArgs(
  `Usage: npm run test:cpu [-- --log FILE] [--top N] [--script test:e2e]

Runs npm test (or the npm script --script names: test:e2e, the second tier) with a hook in every Node process (scripts/cpu-hook.mjs) that logs its CPU to
test-reports/cpu.jsonl, tagged with the test file that started it, then prints the CPU by file, most
first: in the file's own worker and in the processes its tests started. --log FILE prints the table of a
log already written (no run). Exit status: npm test's, or 2 when the log cannot be read.`,
  { log: { type: 'string' }, top: { type: 'string', default: '30' }, script: { type: 'string', default: 'test' } },
);

let status = 0;
let log = args.log;
if (log === undefined) {
  log = fromRoot('test-reports', 'cpu.jsonl');
  rmSync(log, { force: true });
  const options = [process.env.NODE_OPTIONS ?? '', `--import ${fromRoot('scripts', 'cpu-hook.mjs')}`].join(' ').trim();
  const run = spawnSync('npm', ['run', args.script], { cwd: fromRoot(), stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: options, CPU_HOOK_LOG: log } });
  status = run.status ?? 1;
}
if (!existsSync(log)) {
  process.stderr.write(`test:cpu: no log at ${log}: run npm run test:cpu without --log first\n`);
  process.exit(2);
}
const lines = readFileSync(log, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as CpuLine);
process.stdout.write(`\n${renderSummary(summarize(lines), Number(args.top))}\n`);
process.exit(status);
