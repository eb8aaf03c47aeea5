import path from 'node:path';

/** One line of the log scripts/cpu-hook.mjs writes. */
export type CpuLine =
  | { kind: 'process'; pid: number; ppid: number; test: string | null; cpu: number; wallMs: number; argv: string }
  | { kind: 'group'; pid: number; test: string | null; file: string; cpu: number };

/** Where the CPU of one test file went: in the test's own worker, and in the processes its tests started. */
export interface FileCpu {
  file: string;
  /** In the worker of `npm test` that ran the file's tests. */
  own: number;
  /** In the processes its tests started (commands, servers, npm, nested Playwright runs) and theirs. */
  children: number;
  processes: number;
  /** Nested Playwright runs (a runner each, with its workers). */
  runs: number;
}

export interface CpuSummary {
  total: number;
  processes: number;
  /** The runner of `npm test` itself (reporters, the embedded conformance run's engine). */
  runner: number;
  /** Its workers, whole (the files' own CPU is part of it). */
  workers: number;
  /** Processes no test started and that are not the runner or a worker (npm, the shell's). */
  other: number;
  files: FileCpu[];
}

const isRunner = (argv: string): boolean => /(@playwright\/test\/cli\.js|\.bin\/playwright) test\b/.test(argv);
const isWorker = (argv: string): boolean => argv.includes('workerProcessEntry');

/** A test file named by its path in the repository, whatever clone it ran in. */
function repoPath(file: string): string {
  const found = /(?:^|\/)((?:tests|examples|lib)\/.+\.spec\.ts)$/.exec(file.split(path.sep).join('/'));
  return found?.[1] ?? file;
}

/** Adds up a log by test file; the files with the most CPU first. */
export function summarize(lines: readonly CpuLine[]): CpuSummary {
  const files = new Map<string, FileCpu>();
  const fileOf = (name: string): FileCpu => {
    const key = repoPath(name);
    let found = files.get(key);
    if (!found) {
      found = { file: key, own: 0, children: 0, processes: 0, runs: 0 };
      files.set(key, found);
    }
    return found;
  };
  const summary: CpuSummary = { total: 0, processes: 0, runner: 0, workers: 0, other: 0, files: [] };
  for (const line of lines) {
    if (line.kind === 'group') {
      // A nested run's worker is counted with the processes of the test that started the run.
      if (line.test === null) fileOf(line.file).own += line.cpu;
      continue;
    }
    summary.total += line.cpu;
    summary.processes += 1;
    if (line.test !== null) {
      const f = fileOf(line.test);
      f.children += line.cpu;
      f.processes += 1;
      if (isRunner(line.argv)) f.runs += 1;
    } else if (isRunner(line.argv)) summary.runner += line.cpu;
    else if (isWorker(line.argv)) summary.workers += line.cpu;
    else summary.other += line.cpu;
  }
  summary.files = [...files.values()].sort((a, b) => b.own + b.children - (a.own + a.children));
  return summary;
}

/** The table `npm run test:cpu` prints. */
export function renderSummary(s: CpuSummary, top: number): string {
  const sec = (n: number): string => `${n.toFixed(0)} s`.padStart(7);
  const lines = [
    `CPU of every process (user + system): ${s.total.toFixed(0)} s in ${s.processes} processes; over two cores at best ${(s.total / 2 / 60).toFixed(1)} min of wall time`,
    `  the runner of npm test ${sec(s.runner)}`,
    `  its workers            ${sec(s.workers)}  (the files' own CPU below is part of it)`,
    `  started by tests       ${sec(s.files.reduce((n, f) => n + f.children, 0))}  (commands, servers, npm, ${s.files.reduce((n, f) => n + f.runs, 0)} nested Playwright runs)`,
    `  other (npm)            ${sec(s.other)}`,
    '',
    `${'total'.padStart(7)} ${'own'.padStart(7)} ${'started'.padStart(7)}  processes (runs)  file`,
  ];
  for (const f of s.files.slice(0, top)) lines.push(`${sec(f.own + f.children)} ${sec(f.own)} ${sec(f.children)}  ${String(f.processes).padStart(9)} (${f.runs})  ${f.file}`);
  return lines.join('\n');
}
