/**
 * The run's peak memory, measured from outside (issue 31): `npx iswc-conformance run` as a user starts it
 * (bin/iswc-conformance.mjs, which starts Playwright's runner, which holds the engine and the reporters,
 * and its worker) against the reference server in a child process of its own (not counted), its whole
 * process tree sampled from /proc every 100 ms. Three figures, because "the memory of a tree" is read in
 * more than one way:
 *
 * - the largest process: the highest peak of one process of the tree (the runner), which is what
 *   `/usr/bin/time -v npx iswc-conformance run` reports as "Maximum resident set size";
 * - the tree's resident memory: the largest sum of VmRSS over the tree at one moment (a page shared by
 *   the Node processes, the binary's code, counts once per process);
 * - the tree's proportional memory: the largest sum of PSS (each shared page counted once).
 */
import path from 'node:path';
import { MiB, endChild, sampleTree, startChild, startServerChild } from './proc.ts';
import type { TreePeak } from './proc.ts';
import { repoRoot } from '../../lib/foundation/paths.ts';

export interface MemoryRun {
  label: string;
  args: readonly string[];
  exitCode: number | null;
  wallMs: number;
  largestProcessBytes: number;
  largestProcess: string;
  treeRssBytes: number;
  treePssBytes: number;
  perProcess: TreePeak['perProcess'];
  samples: number;
}

/** One `run` command, its tree sampled, against a fresh reference server in a child process. */
export async function memoryRun(options: {
  label: string;
  args: readonly string[];
  key: string;
  target: string;
  env: NodeJS.ProcessEnv;
  reportDir: string;
  timeoutMs: number;
}): Promise<MemoryRun> {
  const server = await startServerChild({ key: options.key, target: options.target, env: options.env, timeoutMs: options.timeoutMs });
  try {
    const started = startChild(process.execPath, [path.join(repoRoot, 'bin', 'iswc-conformance.mjs'), 'run', ...options.args], {
      env: { ...options.env, ISWC_BASE_URL: server.url, ISWC_SUBSCRIPTION_KEY: options.key, ISWC_TARGET: options.target, ISWC_REPORT_DIR: options.reportDir },
      timeoutMs: options.timeoutMs,
    });
    const sampler = started.child.pid !== undefined ? sampleTree(started.child.pid, 100, true) : undefined;
    const finished = await started.done;
    const peak = sampler?.stop();
    await endChild(started.child);
    return {
      label: options.label,
      args: options.args,
      exitCode: finished.timedOut ? null : finished.code,
      wallMs: finished.wallMs,
      largestProcessBytes: peak?.largestProcessBytes ?? 0,
      largestProcess: peak?.perProcess[0]?.label ?? '?',
      treeRssBytes: peak?.peakBytes ?? 0,
      treePssBytes: peak?.peakPssBytes ?? 0,
      perProcess: peak?.perProcess ?? [],
      samples: peak?.samples ?? 0,
    };
  } finally {
    await server.close();
  }
}

/** One line of figures of a memory run. */
export function describeMemoryRun(run: MemoryRun): string {
  const mib = (bytes: number): string => `${(bytes / MiB).toFixed(0)} MiB`;
  return `${run.label}: exit ${run.exitCode ?? 'timed out'}, ${(run.wallMs / 1000).toFixed(1)} s; largest process ${mib(run.largestProcessBytes)} (${run.largestProcess}); tree ${mib(run.treeRssBytes)} resident, ${mib(run.treePssBytes)} proportional; each process's peak: ${run.perProcess
    .filter((p) => p.peakBytes > 8 * MiB)
    .map((p) => `${p.label} ${mib(p.peakBytes)}`)
    .join(', ')} (${run.samples} samples)`;
}
