/**
 * Judged requests per second through the sandbox (npx iswc-conformance sandbox) next to the bare
 * reference server, on the same fixed mix (scripts/bench/load.ts) and the same legitimate choices
 * (reference, which the mix's expected statuses are written for), one after the other in the same run,
 * each after 2 s of the same load to warm it up. The CPU time each server process used per answer is
 * read from /proc too: on a shared machine it moves less than the rates do.
 * The sandbox judges every request with every client check and records the findings; its reports are
 * written when it is ended, and read back to check that it judged every request the load sent.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { repoRoot } from '../../lib/foundation/paths.ts';
import type { ClientReport } from '../../lib/report/client/model.ts';
import { checkMix, measureThroughput, requestMix } from './load.ts';
import type { LoadResult } from './load.ts';
import { endChild, nodeTs, startChild, startServerChild } from './proc.ts';

export interface SandboxBench {
  bare: LoadResult;
  sandbox: LoadResult;
  /** CPU time (user and system) of each server process per answer, in µs: steadier than rates on a shared machine. */
  cpuPerRequestUs: { bare: number | undefined; sandbox: number | undefined };
  /** sandbox / bare requests per second. */
  ratio: number;
  /** Requests the sandbox's report says it judged (the load's, and the mix checked once first). */
  judged: number | undefined;
  /** How long the sandbox took to write its reports once ended. */
  reportMs: number;
  verdict: string | undefined;
}

/** CPU time (user and system) a process has used, in ms, from /proc; undefined where /proc is not available. */
function cpuMs(child: ChildProcess): number | undefined {
  try {
    const fields = readFileSync(`/proc/${child.pid ?? 0}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Seconds of the same load before each measured window: both servers are measured warm (JIT-compiled). */
const WARM_UP_SECONDS = 2;

/** Warms the server up, then runs the load and says how much CPU the server process used per answer meanwhile. */
async function measured(url: string, child: ChildProcess, mix: ReturnType<typeof requestMix>, options: { connections: number; durationSeconds: number }): Promise<{ load: LoadResult; cpuUs: number | undefined }> {
  await measureThroughput(url, mix, { connections: options.connections, durationSeconds: WARM_UP_SECONDS });
  const before = cpuMs(child);
  const load = await measureThroughput(url, mix, options);
  const after = cpuMs(child);
  return { load, cpuUs: before === undefined || after === undefined || load.requests === 0 ? undefined : ((after - before) * 1000) / load.requests };
}

export async function sandboxThroughput(options: { key: string; target: string; work: string; env: NodeJS.ProcessEnv; connections: number; durationSeconds: number; timeoutMs: number; log: (line: string) => void }): Promise<SandboxBench> {
  const mix = requestMix(loadProfile(path.join(repoRoot, options.target)), options.key);
  const bareServer = await startServerChild({ key: options.key, target: options.target, env: options.env, timeoutMs: options.timeoutMs, args: ['--choices', 'reference'] });
  let bare: LoadResult;
  let bareCpu: number | undefined;
  try {
    await checkMix(bareServer.url, mix);
    ({ load: bare, cpuUs: bareCpu } = await measured(bareServer.url, bareServer.started.child, mix, options));
  } finally {
    await bareServer.close();
  }
  const cpu = (us: number | undefined): string => (us === undefined ? '' : `, ${us.toFixed(0)} µs CPU per answer`);
  options.log(`  bare reference server: ${bare.requestsPerSecond.toFixed(0)} req/s${cpu(bareCpu)} (${bare.requests} answers; statuses ${JSON.stringify(bare.statuses)})`);

  const reportDir = path.join(options.work, 'sandbox');
  mkdirSync(reportDir, { recursive: true });
  const [cmd, args] = nodeTs('lib/cli/entry.ts', ['sandbox', '--port', '0', '--choices', 'reference', '--target', options.target, '--report-dir', reportDir]);
  const started = startChild(cmd, args, { env: { ...options.env, ISWC_SANDBOX_KEY: options.key }, timeoutMs: options.timeoutMs });
  let sandbox: LoadResult;
  let sandboxCpu: number | undefined;
  let reportMs = 0;
  try {
    const line = await started.waitForLine(/^listening (http:\/\/127\.0\.0\.1:\d+)\s*$/, 30_000);
    const url = line[1] ?? '';
    await checkMix(url, mix);
    ({ load: sandbox, cpuUs: sandboxCpu } = await measured(url, started.child, mix, options));
  } finally {
    const ending = performance.now();
    await endChild(started.child, 60_000);
    await started.done;
    reportMs = performance.now() - ending;
  }
  const file = path.join(reportDir, 'client-conformance.json');
  const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ClientReport) : undefined;
  options.log(`  through the sandbox: ${sandbox.requestsPerSecond.toFixed(0)} req/s judged${cpu(sandboxCpu)} (${sandbox.requests} answers; statuses ${JSON.stringify(sandbox.statuses)}); report ${report ? `${report.requests} requests judged, ${report.verdictText}` : 'NOT written'}, written in ${(reportMs / 1000).toFixed(1)} s after SIGTERM`);
  return { bare, sandbox, cpuPerRequestUs: { bare: bareCpu, sandbox: sandboxCpu }, ratio: sandbox.requestsPerSecond / bare.requestsPerSecond, judged: report?.requests, reportMs, verdict: report?.verdictText };
}
