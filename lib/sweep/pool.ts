import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { repoRoot } from '../foundation/paths.ts';

/**
 * Jobs shared out over child processes, one job at a time to whichever child is free (jobs differ a lot
 * in cost), as JSON lines: the parent writes `{"id", "job"}` to a child's stdin and reads `{"id",
 * "result"}` from its stdout. Each child is `node --import tsx SCRIPT --child`, and runs `serveJobs`. In
 * one process the reference server and the harness share one core; children use the others.
 */
export async function runInChildren<J, R>(script: string, jobs: readonly J[], parallel: number, onResult: (job: J, result: R, index: number) => void): Promise<void> {
  let next = 0;
  const startChild = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, '--child'], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
      let current = -1;
      const send = (): void => {
        if (next >= jobs.length) {
          child.stdin.end();
          return;
        }
        current = next;
        next += 1;
        child.stdin.write(`${JSON.stringify({ id: current, job: jobs[current] })}\n`);
      };
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (!line.startsWith('{')) return;
        const { id, result } = JSON.parse(line) as { id: number; result: R };
        const job = jobs[id];
        if (id === current && job !== undefined) onResult(job, result, id);
        send();
      });
      child.on('error', reject);
      child.on('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`a sweep child ended with ${signal ?? `exit ${code}`} during job ${current}`))));
      send();
    });
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, jobs.length)) }, startChild));
}

/** The child side of runInChildren: answers each job line on stdin with a result line on stdout, in order. */
export async function serveJobs<J, R>(handle: (job: J) => Promise<R>): Promise<void> {
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const { id, job } = JSON.parse(line) as { id: number; job: J };
    const result = await handle(job);
    process.stdout.write(`${JSON.stringify({ id, result })}\n`);
  }
}
