/**
 * npm run test:shards -- --shard I/N [--junit FILE]: the test files of shard I of N, balanced by measured
 * duration (a JUnit file of an earlier whole run: test-reports/junit.xml, or the one a CI job kept), not
 * by test count as Playwright's --shard is. Prints them space-separated, for `npx playwright test $(…)`.
 * Files the measurement does not know (new ones) go to the shards with the least time, one each.
 */
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { scriptArgs } from './args.ts';

const args = scriptArgs(
  `Usage: npm run --silent test:shards -- --shard I/N [--junit FILE]

Prints the test files of shard I of N (1-based), the shards balanced by the test times of FILE (a JUnit file
Playwright wrote for a whole npm test; default test-reports/junit.xml). Without the file, by test count.
Use: npx playwright test $(npm run --silent test:shards -- --shard 2/4 --junit timings.xml)`,
  { shard: { type: 'string' }, junit: { type: 'string', default: 'test-reports/junit.xml' } },
);
const m = /^(\d+)\/(\d+)$/.exec(args.shard ?? '');
const index = Number(m?.[1]);
const total = Number(m?.[2]);
if (!m || index < 1 || index > total) {
  process.stderr.write(`--shard must be I/N with 1 <= I <= N, got ${JSON.stringify(args.shard ?? '')}\n`);
  process.exit(2);
}

/** Every test file of both tiers (npm test and npm run test:e2e), as Playwright lists them. */
function testFiles(): string[] {
  const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const listed = execFileSync(process.execPath, [cli, 'test', '--list', '--reporter=json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ISWC_BASE_URL: '', ISWC_TARGET: '' } });
  const report = JSON.parse(listed.slice(listed.indexOf('{'))) as { suites?: Array<{ file: string }> };
  const rootDir = process.cwd();
  return [...new Set((report.suites ?? []).map((s) => s.file))].map((f) => f.replace(`${rootDir}/`, '')).sort();
}

const measured = new Map<string, number>();
if (existsSync(args.junit)) {
  for (const t of readFileSync(args.junit, 'utf8').matchAll(/<testsuite name="([^"]+)"[^>]*time="([\d.]+)"/g)) measured.set(t[1] ?? '', (measured.get(t[1] ?? '') ?? 0) + Number(t[2]));
}
const files = testFiles();
const known = files.filter((f) => measured.has(f)).sort((a, b) => (measured.get(b) ?? 0) - (measured.get(a) ?? 0));
const unknown = files.filter((f) => !measured.has(f));
const load = Array.from({ length: total }, () => 0);
const shards: string[][] = Array.from({ length: total }, () => []);
const lightest = () => load.indexOf(Math.min(...load));
// Longest first onto the lightest shard (LPT): within 4/3 of the best split.
for (const f of known) {
  const s = lightest();
  shards[s]?.push(f);
  load[s] = (load[s] ?? 0) + (measured.get(f) ?? 0);
}
for (const f of unknown) {
  const s = lightest();
  shards[s]?.push(f);
  load[s] = (load[s] ?? 0) + 1;
}
process.stdout.write(`${(shards[index - 1] ?? []).join(' ')}\n`);
