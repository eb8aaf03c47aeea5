/**
 * Judged requests per second through the sandbox (npx iswc-conformance sandbox) next to the bare
 * reference server, on the same fixed mix (scripts/bench/load.ts) and the same legitimate choices
 * (reference, which the mix's expected statuses are written for), one after the other in the same run.
 * The sandbox judges every request with every client check and records the findings; its reports are
 * written when it is ended, and read back to check that it judged every request the load sent.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { repoRoot } from '../../lib/paths.ts';
import type { ClientReport } from '../../lib/report/client/model.ts';
import { checkMix, measureThroughput, requestMix } from './load.ts';
import type { LoadResult } from './load.ts';
import { endChild, nodeTs, startChild, startServerChild } from './proc.ts';

export interface SandboxBench {
  bare: LoadResult;
  sandbox: LoadResult;
  /** sandbox / bare requests per second. */
  ratio: number;
  /** Requests the sandbox's report says it judged (the load's, and the mix checked once first). */
  judged: number | undefined;
  /** How long the sandbox took to write its reports once ended. */
  reportMs: number;
  verdict: string | undefined;
}

export async function sandboxThroughput(options: { key: string; target: string; work: string; env: NodeJS.ProcessEnv; connections: number; durationSeconds: number; timeoutMs: number; log: (line: string) => void }): Promise<SandboxBench> {
  const mix = requestMix(loadProfile(path.join(repoRoot, options.target)), options.key);
  const bareServer = await startServerChild({ key: options.key, target: options.target, env: options.env, timeoutMs: options.timeoutMs, args: ['--choices', 'reference'] });
  let bare: LoadResult;
  try {
    await checkMix(bareServer.url, mix);
    bare = await measureThroughput(bareServer.url, mix, { connections: options.connections, durationSeconds: options.durationSeconds });
  } finally {
    await bareServer.close();
  }
  options.log(`  bare reference server: ${bare.requestsPerSecond.toFixed(0)} req/s (${bare.requests} answers; statuses ${JSON.stringify(bare.statuses)})`);

  const reportDir = path.join(options.work, 'sandbox');
  mkdirSync(reportDir, { recursive: true });
  const [cmd, args] = nodeTs('lib/cli/entry.ts', ['sandbox', '--port', '0', '--choices', 'reference', '--target', options.target, '--report-dir', reportDir]);
  const started = startChild(cmd, args, { env: { ...options.env, ISWC_SANDBOX_KEY: options.key }, timeoutMs: options.timeoutMs });
  let sandbox: LoadResult;
  let reportMs = 0;
  try {
    const line = await started.waitForLine(/^listening (http:\/\/127\.0\.0\.1:\d+)\s*$/, 30_000);
    const url = line[1] ?? '';
    await checkMix(url, mix);
    sandbox = await measureThroughput(url, mix, { connections: options.connections, durationSeconds: options.durationSeconds });
  } finally {
    const ending = performance.now();
    await endChild(started.child, 60_000);
    await started.done;
    reportMs = performance.now() - ending;
  }
  const file = path.join(reportDir, 'client-conformance.json');
  const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ClientReport) : undefined;
  options.log(`  through the sandbox: ${sandbox.requestsPerSecond.toFixed(0)} req/s judged (${sandbox.requests} answers; statuses ${JSON.stringify(sandbox.statuses)}); report ${report ? `${report.requests} requests judged, ${report.verdictText}` : 'NOT written'}, written in ${(reportMs / 1000).toFixed(1)} s after SIGTERM`);
  return { bare, sandbox, ratio: sandbox.requestsPerSecond / bare.requestsPerSecond, judged: report?.requests, reportMs, verdict: report?.verdictText };
}
