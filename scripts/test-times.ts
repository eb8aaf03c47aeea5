/**
 * npm run test:times [-- --junit FILE] [--top N]: where the time of an `npm test` went, by project and by
 * file, read from the JUnit file Playwright wrote (test-reports/junit.xml by default). The sum of test
 * times is worker time: with N workers the run's wall time is about an Nth of it, plus the slowest tail.
 */
import { readFileSync } from 'node:fs';
import { scriptArgs } from './args.ts';

const args = scriptArgs(
  `Usage: npm run test:times [-- --junit FILE] [--top N]

Sums the test times of a Playwright JUnit file (default test-reports/junit.xml, which npm test writes) by
project and by file, slowest first. Run npm test first (or npx playwright test with the projects wanted).`,
  { junit: { type: 'string', default: 'test-reports/junit.xml' }, top: { type: 'string', default: '25' } },
);

interface Row {
  project: string;
  file: string;
  tests: number;
  seconds: number;
}

// Piped into head, the reader may leave before the table ends: that is no error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
const xml = readFileSync(args.junit, 'utf8');
const wall = Number(/<testsuites[^>]*\btime="([\d.]+)"/.exec(xml)?.[1] ?? 'NaN');
const rows: Row[] = [];
for (const m of xml.matchAll(/<testsuite name="([^"]+)"[^>]*hostname="([^"]*)"[^>]*tests="(\d+)"[^>]*time="([\d.]+)"/g)) {
  rows.push({ file: m[1] ?? '', project: m[2] ?? '', tests: Number(m[3]), seconds: Number(m[4]) });
}
const byProject = new Map<string, { tests: number; seconds: number }>();
for (const r of rows) {
  const p = byProject.get(r.project) ?? { tests: 0, seconds: 0 };
  byProject.set(r.project, { tests: p.tests + r.tests, seconds: p.seconds + r.seconds });
}
const total = rows.reduce((n, r) => n + r.seconds, 0);
const line = (seconds: number, tests: number, name: string) => `${seconds.toFixed(0).padStart(7)} s ${String(tests).padStart(5)} tests  ${name}`;
console.log(`${args.junit}: the run took ${Number.isFinite(wall) ? `${(wall / 60).toFixed(1)} min` : 'an unknown time'}; ${total.toFixed(0)} s of test time (over the workers)`);
console.log('\nBy project:');
for (const [name, p] of [...byProject].sort((a, b) => b[1].seconds - a[1].seconds)) console.log(line(p.seconds, p.tests, name));
console.log(`\nSlowest files (top ${args.top}):`);
for (const r of [...rows].sort((a, b) => b.seconds - a.seconds).slice(0, Number(args.top))) console.log(line(r.seconds, r.tests, `[${r.project}] ${r.file}`));
