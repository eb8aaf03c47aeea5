import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readConfig } from '../../lib/config/config.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';
import type { InProcessReportOptions } from '../../lib/selfcheck/in-process-report.ts';
import type { ConformanceReport } from '../../lib/report/model.ts';

/** The options a shared report is made from: data only, so that they name the run (no filter, no mutation). */
export type SharedReportOptions = Omit<InProcessReportOptions, 'filter' | 'mutate'>;

/** How long a worker waits for another that is making the same report before it makes its own. */
const WAIT_MS = 180_000;

/**
 * A report of a whole in-process run (lib/selfcheck/in-process-report.ts) made once per `npm test` for all
 * the test files that read the same one: several files read the clean run and the run of two faults,
 * each a whole run of the suite. Each caller gets its own copy (read from the file), so none sees
 * another's changes. The first worker to ask makes it; one that asks meanwhile waits for it. A test that
 * compares two runs of the same server keeps calling inProcessReport: a report shared with itself proves
 * nothing.
 */
export async function sharedReport(options: SharedReportOptions = {}): Promise<ConformanceReport> {
  // Runs of this npm test only: the workers are children of its one runner process.
  const root = path.join(readConfig().reportDir, 'shared-reports');
  const dir = path.join(root, String(process.ppid));
  if (!existsSync(dir)) forgetEndedRuns(root);
  mkdirSync(dir, { recursive: true });
  const name = createHash('sha256').update(JSON.stringify(Object.fromEntries(Object.entries(options).sort(([a], [b]) => a.localeCompare(b))))).digest('hex').slice(0, 16);
  const file = path.join(dir, `${name}.json`);
  const lock = `${file}.lock`;
  const read = () => JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport;
  if (existsSync(file)) return read();
  let mine = false;
  try {
    closeSync(openSync(lock, 'wx'));
    mine = true;
  } catch {
    // Another worker is making it.
  }
  if (!mine) {
    const until = Date.now() + WAIT_MS;
    while (Date.now() < until) {
      if (existsSync(file)) return read();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    const report = await inProcessReport(options);
    writeFileSync(`${file}.tmp`, JSON.stringify(report));
    renameSync(`${file}.tmp`, file);
    return read();
  } finally {
    if (mine) rmSync(lock, { force: true });
  }
}

/** The reports of runs whose runner has ended (a few megabytes each) go; those of a run going on beside this one stay. */
function forgetEndedRuns(root: string): void {
  if (!existsSync(root)) return;
  for (const pid of readdirSync(root)) {
    if (!/^\d+$/.test(pid) || isAlive(Number(pid))) continue;
    rmSync(path.join(root, pid), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
