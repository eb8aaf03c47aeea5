/**
 * npm run bench [-- --duration 5 --connections 4 --runs 100 --seed 20260101 --profile --keep]
 *
 * The performance benchmark of issue 5, against the embedded reference server, in one run (every ratio
 * is taken from figures of the same run: the machine may be shared and noisy, so timings are printed,
 * never asserted):
 *
 *   1. raw server throughput: autocannon on a fixed mix of valid requests (keep-alive, a few
 *      connections, a fixed duration), the server alone in a child process;
 *   2. the full default run (`playwright test --project=json --project=xml`, ISWC_RUNS=100): wall time,
 *      checked requests per second (meta.requests of its conformance.json over the wall time), peak
 *      resident memory of its whole process tree (runner, workers, embedded server) sampled every 100 ms;
 *   3. the in-process engine (runSuiteInProcess, no Playwright) on a fresh server at the same
 *      ISWC_RUNS: its rate separates Playwright's overhead from the harness's own;
 *   4. memory flatness: the in-process engine's peak RSS at ISWC_RUNS and at ten times it.
 *
 * Then each target of the issue, met or not met. `--profile` adds CPU-profiled runs (the engine and its
 * server, then a full Playwright run) and prints where the time goes; see docs/performance.md.
 * Only 127.0.0.1 is used; every process the benchmark starts runs in its own process group, bounded in
 * time, and is ended before it exits, whatever happens.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../lib/paths.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { EMBEDDED_KEY } from '../server/index.ts';
import type { EngineRunResult } from './bench/engine-run.ts';
import { checkMix, measureThroughput, requestMix } from './bench/load.ts';
import type { LoadResult } from './bench/load.ts';
import type { TreePeak } from './bench/proc.ts';
import { MiB, endChild, killAllNow, nodeTs, procAvailable, sampleTree, startChild, startServerChild } from './bench/proc.ts';
import { formatSummary, summariseProfile } from './bench/profile.ts';

const TARGET_FILE = 'fixtures/targets/embedded.json';
const PLAYWRIGHT_CLI = path.join(repoRoot, 'node_modules', '@playwright', 'test', 'cli.js');

/** The issue's targets. */
const TARGET_WALL_S = 60;
const TARGET_RATIO = 0.5;
const TARGET_PEAK_MIB = 500;
/** "Flat": peak RSS grows by at most this factor when ISWC_RUNS grows tenfold. */
const FLAT_FACTOR = 1.25;

/** Time limits of each child: generous, but every loop and process of the benchmark ends. */
const PLAYWRIGHT_TIMEOUT_MS = 10 * 60_000;
const ENGINE_TIMEOUT_MS = 10 * 60_000;
const SERVER_TIMEOUT_MS = 15 * 60_000;

const USAGE = `Usage: npm run bench [-- options]

Benchmarks the harness against the embedded reference server (127.0.0.1 only) and prints, from one run:
raw server throughput (autocannon), the full default run's wall time and checked requests per second,
the in-process engine's rate, their ratios, peak memory, and memory flatness as ISWC_RUNS grows tenfold;
then each target of the issue, met or not met. Timings are reported, never asserted.

Options:
  --duration S       autocannon duration in seconds (default 5, 1 to 60)
  --connections N    autocannon connections, keep-alive (default 4, 1 to 64)
  --runs N           ISWC_RUNS of the full run and the engine run (default 100); flatness compares N and 10 N
  --seed N           ISWC_SEED of every run (default 20260101), so request counts repeat
  --profile          also CPU-profile the engine and its server, and a full Playwright run (node --cpu-prof),
                     and print the top self-time functions and areas of each
  --keep             keep the working directory (reports, profiles, bench.json) and print its path
  --help             this text`;

function intOption(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    process.stderr.write(`--${name} must be an integer from ${min} to ${max}, got "${raw}"\n`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({
  options: {
    duration: { type: 'string' },
    connections: { type: 'string' },
    runs: { type: 'string' },
    seed: { type: 'string' },
    profile: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const durationSeconds = intOption('duration', values.duration, 5, 1, 60);
const connections = intOption('connections', values.connections, 4, 1, 64);
const runs = intOption('runs', values.runs, 100, 1, 10_000);
const seed = intOption('seed', values.seed, 20260101, 1, 2 ** 31 - 1);

// Whatever happens, no process of the benchmark outlives it.
process.on('exit', killAllNow);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    killAllNow();
    process.exit(130);
  });
}

const work = mkdtempSync(path.join(os.tmpdir(), 'iswc-bench-'));

/**
 * The environment of every child: this one without any ISWC_* setting (the benchmark always measures
 * the embedded defaults, never a remote target, and never holds a real key), plus what a step sets.
 */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('ISWC_') && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, ...extra };
}

const log = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(0)} MiB`;
const rate = (n: number): string => `${n.toFixed(0)} req/s`;

// ── 1. raw server throughput ────────────────────────────────────────────────────────────────────────
async function rawThroughput(): Promise<LoadResult> {
  const server = await startServerChild({ key: EMBEDDED_KEY, target: TARGET_FILE, env: childEnv(), timeoutMs: SERVER_TIMEOUT_MS });
  try {
    const mix = requestMix(loadProfile(path.join(repoRoot, TARGET_FILE)), EMBEDDED_KEY);
    await checkMix(server.url, mix);
    log(`  mix: ${mix.map((r) => `${r.label} → ${r.expected}`).join('; ')}`);
    return await measureThroughput(server.url, mix, { connections, durationSeconds });
  } finally {
    await server.close();
  }
}

// ── 2. the full default run under Playwright ─────────────────────────────────────────────────────────
interface PlaywrightRun {
  exitCode: number | null;
  wallMs: number;
  /** finishedAt - startedAt of conformance.json: the reporters' view, without start-up and teardown. */
  runMs: number | undefined;
  requests: number | undefined;
  tests: string | undefined;
  peakRssBytes: number;
  peakProcesses: number;
  samples: number;
  perProcess: TreePeak['perProcess'];
  reportDir: string;
  outputTail: string;
}

interface ReportMeta {
  meta?: { requests?: number; startedAt?: string; finishedAt?: string };
}

async function playwrightRun(label: string, nodeOptions: readonly string[] = []): Promise<PlaywrightRun> {
  const reportDir = path.join(work, label);
  mkdirSync(reportDir, { recursive: true });
  // Playwright forks its workers with this process's execArgv, so node options reach them too.
  const args = [...nodeOptions, PLAYWRIGHT_CLI, 'test', '--project=json', '--project=xml', `--output=${path.join(reportDir, 'test-results')}`];
  const started = startChild(process.execPath, args, {
    env: childEnv({ ISWC_RUNS: String(runs), ISWC_SEED: String(seed), ISWC_REPORT_DIR: reportDir }),
    timeoutMs: PLAYWRIGHT_TIMEOUT_MS,
  });
  const sampler = started.child.pid !== undefined ? sampleTree(started.child.pid) : undefined;
  const finished = await started.done;
  const peak: TreePeak = sampler?.stop() ?? { peakBytes: 0, peakProcesses: 0, samples: 0, perProcess: [] };
  await endChild(started.child);
  let requests: number | undefined;
  let runMs: number | undefined;
  const reportFile = path.join(reportDir, 'conformance.json');
  if (existsSync(reportFile)) {
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ReportMeta;
    requests = report.meta?.requests;
    if (report.meta?.startedAt && report.meta.finishedAt) runMs = Date.parse(report.meta.finishedAt) - Date.parse(report.meta.startedAt);
  }
  const tests = /tests: .*$/m.exec(finished.stdout)?.[0];
  return {
    exitCode: finished.timedOut ? null : finished.code,
    wallMs: finished.wallMs,
    runMs,
    requests,
    tests,
    peakRssBytes: peak.peakBytes,
    peakProcesses: peak.peakProcesses,
    samples: peak.samples,
    perProcess: peak.perProcess,
    reportDir,
    outputTail: `${finished.stdout.slice(-3000)}\n${finished.stderr.slice(-3000)}`,
  };
}

// ── 3 and 4. the in-process engine on a fresh server ─────────────────────────────────────────────────
async function engineRun(engineRuns: number, profileDir?: string): Promise<EngineRunResult> {
  const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const server = await startServerChild({
    key: EMBEDDED_KEY,
    target: TARGET_FILE,
    env: childEnv(),
    timeoutMs: SERVER_TIMEOUT_MS,
    ...(profileDir ? { nodeOptions: ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, 'server')}`] } : {}),
  });
  try {
    const [cmd, args] = nodeTs(
      'scripts/bench/engine-run.ts',
      ['--base-url', server.url, '--runs', String(engineRuns), '--seed', String(seed), '--concurrency', '2', '--target', TARGET_FILE],
      profiling,
    );
    const started = startChild(cmd, args, { env: childEnv(), timeoutMs: ENGINE_TIMEOUT_MS });
    const finished = await started.done;
    const line = /^BENCH_ENGINE (.*)$/m.exec(finished.stdout)?.[1];
    if (finished.code !== 0 || !line) throw new Error(`engine run (ISWC_RUNS=${engineRuns}) ${finished.timedOut ? 'timed out' : `exited with ${finished.code}`}: ${finished.stderr.slice(-2000)}`);
    return JSON.parse(line) as EngineRunResult;
  } finally {
    await server.close();
  }
}

function newestProfiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
}

async function main(): Promise<number> {
  const cpus = os.cpus();
  log('iswc-conformance benchmark (embedded reference server, 127.0.0.1 only; figures of this one run)');
  log(`  machine: ${os.availableParallelism()} cores (${cpus[0]?.model.trim() ?? '?'}), ${mib(os.totalmem())} RAM, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, Node ${process.version}`);
  log(`  settings: ISWC_RUNS=${runs}, ISWC_SEED=${seed}, autocannon ${connections} connections for ${durationSeconds} s${procAvailable ? '' : '; /proc is not available: tree memory cannot be sampled'}`);
  log();

  log('1/4 raw server throughput (autocannon, server alone in a child process)');
  const raw = await rawThroughput();
  log(`  ${rate(raw.requestsPerSecond)} (${raw.requests} answers in ${raw.durationSeconds.toFixed(1)} s; latency p50 ${raw.latencyP50Ms} ms, p99 ${raw.latencyP99Ms} ms; statuses ${JSON.stringify(raw.statuses)}; errors ${raw.errors}, timeouts ${raw.timeouts})`);
  if (raw.unexpected > 0 || raw.errors > 0) log(`  ✗ ${raw.unexpected} unexpected statuses, ${raw.errors} errors: the raw figure is not a clean measurement`);
  log();

  log(`2/4 full default run: playwright test --project=json --project=xml, ISWC_RUNS=${runs}, 2 workers`);
  const pw = await playwrightRun('playwright');
  const pwRate = pw.requests !== undefined ? pw.requests / (pw.wallMs / 1000) : undefined;
  const pwRunRate = pw.requests !== undefined && pw.runMs ? pw.requests / (pw.runMs / 1000) : undefined;
  log(`  wall ${(pw.wallMs / 1000).toFixed(1)} s (reporters' start to end ${pw.runMs !== undefined ? `${(pw.runMs / 1000).toFixed(1)} s` : '?'}), exit ${pw.exitCode ?? 'timed out'}, ${pw.tests ?? 'no test summary'}`);
  log(`  ${pw.requests ?? '?'} checked requests → ${pwRate !== undefined ? rate(pwRate) : '?'} over the wall time (${pwRunRate !== undefined ? rate(pwRunRate) : '?'} between the reporters' start and end)`);
  log(`  peak RSS of the process tree ${mib(pw.peakRssBytes)} (up to ${pw.peakProcesses} processes, ${pw.samples} samples every 100 ms)`);
  if (pw.perProcess.length > 0) log(`  each process's own peak: ${pw.perProcess.map((p) => `${p.label} ${mib(p.peakBytes)}`).join(', ')}`);
  if (pw.exitCode !== 0 || pw.requests === undefined) log(`  ✗ the run did not complete cleanly:\n${pw.outputTail.replace(/^/gm, '    ')}`);
  log();

  log(`3/4 in-process engine (runSuiteInProcess, concurrency 2 like the 2 workers), ISWC_RUNS=${runs}, fresh server in a child process`);
  const engine = await engineRun(runs);
  const engineRate = engine.requests / (engine.elapsedMs / 1000);
  log(`  ${engine.requests} requests in ${(engine.elapsedMs / 1000).toFixed(1)} s → ${rate(engineRate)}; ${engine.executions} check executions, ${engine.failed} failed; peak RSS ${mib(engine.peakRssBytes)}`);
  log();

  log(`4/4 memory flatness: in-process engine at ISWC_RUNS=${runs * 10}`);
  const engine10 = await engineRun(runs * 10);
  const engine10Rate = engine10.requests / (engine10.elapsedMs / 1000);
  const flatRatio = engine10.peakRssBytes / engine.peakRssBytes;
  log(`  ${engine10.requests} requests in ${(engine10.elapsedMs / 1000).toFixed(1)} s → ${rate(engine10Rate)}; ${engine10.executions} check executions; peak RSS ${mib(engine10.peakRssBytes)}`);
  log(`  peak RSS ISWC_RUNS=${runs}: ${mib(engine.peakRssBytes)}, ISWC_RUNS=${runs * 10}: ${mib(engine10.peakRssBytes)}, ratio ${flatRatio.toFixed(2)} (requests ×${(engine10.requests / engine.requests).toFixed(1)})`);
  log();

  const ratio = pwRate !== undefined ? pwRate / raw.requestsPerSecond : undefined;
  const engineRatio = engineRate / raw.requestsPerSecond;
  log('summary');
  log(`  raw server throughput            ${rate(raw.requestsPerSecond)}`);
  log(`  harness, full Playwright run     ${pwRate !== undefined ? rate(pwRate) : '?'}   ratio to raw ${ratio !== undefined ? ratio.toFixed(3) : '?'}`);
  log(`  harness, in-process engine       ${rate(engineRate)}   ratio to raw ${engineRatio.toFixed(3)}`);
  log(`  Playwright run / engine          ${pwRate !== undefined ? (pwRate / engineRate).toFixed(2) : '?'} (the rest is Playwright's share: start-up, per-test overhead, attachments, reporters)`);
  log(`  full default run wall time       ${(pw.wallMs / 1000).toFixed(1)} s`);
  log(`  peak memory (Playwright tree)    ${mib(pw.peakRssBytes)}`);
  log(`  memory ×${runs * 10}/${runs} (engine)         ${flatRatio.toFixed(2)}`);
  log();

  const cores = os.availableParallelism();
  const verdict = (ok: boolean | undefined): string => (ok === undefined ? 'unknown' : ok ? 'met' : 'NOT met');
  const coreNote = cores === 2 ? '' : ` (measured on ${cores} cores; the target is for 2)`;
  log('targets (issue 5)');
  log(`  full default run within ${TARGET_WALL_S} s on 2 cores: ${verdict(pw.exitCode === 0 ? pw.wallMs / 1000 <= TARGET_WALL_S : undefined)} (${(pw.wallMs / 1000).toFixed(1)} s${coreNote})`);
  log(`  harness throughput ≥ ${TARGET_RATIO} × raw server throughput: ${verdict(ratio !== undefined ? ratio >= TARGET_RATIO : undefined)} (${ratio !== undefined ? ratio.toFixed(3) : '?'}; in-process engine ${engineRatio.toFixed(3)})`);
  log(`  peak memory under ${TARGET_PEAK_MIB} MiB: ${verdict(procAvailable && pw.samples > 0 ? pw.peakRssBytes < TARGET_PEAK_MIB * MiB : undefined)} (${mib(pw.peakRssBytes)} for the whole Playwright tree)`);
  log(`  memory flat as ISWC_RUNS grows tenfold (peak RSS ratio ≤ ${FLAT_FACTOR}): ${verdict(flatRatio <= FLAT_FACTOR)} (${flatRatio.toFixed(2)})`);

  const summary = {
    machine: { cores, cpu: cpus[0]?.model.trim(), totalMemBytes: os.totalmem(), loadavg: os.loadavg(), node: process.version },
    settings: { runs, seed, connections, durationSeconds },
    raw,
    playwright: { ...pw, outputTail: undefined, requestsPerSecond: pwRate, requestsPerSecondInRun: pwRunRate },
    engine: { ...engine, requestsPerSecond: engineRate },
    engineTenfold: { ...engine10, requestsPerSecond: engine10Rate },
    ratios: { harnessToRaw: ratio, engineToRaw: engineRatio, memoryTenfold: flatRatio },
  };
  writeFileSync(path.join(work, 'bench.json'), `${JSON.stringify(summary, null, 2)}\n`);

  if (values.profile) {
    log();
    log('profile (node --cpu-prof; separate runs, so the figures above are unaffected)');
    const engineDir = path.join(work, 'profile-engine');
    const profiled = await engineRun(runs, engineDir);
    log(`  engine run under the profiler: ${profiled.requests} requests in ${(profiled.elapsedMs / 1000).toFixed(1)} s`);
    const engineProfile = newestProfiles(engineDir)[0];
    if (engineProfile) log(formatSummary(summariseProfile(engineProfile), 'in-process engine').replace(/^/gm, '  '));
    const serverProfile = newestProfiles(path.join(engineDir, 'server'))[0];
    if (serverProfile) log(formatSummary(summariseProfile(serverProfile), 'reference server during the engine run').replace(/^/gm, '  '));
    const pwDir = path.join(work, 'profile-playwright');
    const pwProfiled = await playwrightRun('playwright-profiled', ['--cpu-prof', `--cpu-prof-dir=${pwDir}`]);
    log(`  Playwright run under the profiler: wall ${(pwProfiled.wallMs / 1000).toFixed(1)} s, exit ${pwProfiled.exitCode ?? 'timed out'}`);
    // The biggest profiles are the runner (with the embedded server) and the two workers.
    for (const file of newestProfiles(pwDir).slice(0, 3)) {
      log(formatSummary(summariseProfile(file, 12), path.basename(file)).replace(/^/gm, '  '));
    }
  }

  if (values.keep || values.profile) log(`\nworking directory kept: ${work}`);
  else rmSync(work, { recursive: true, force: true });
  const clean = raw.unexpected === 0 && raw.errors === 0 && pw.exitCode === 0 && pw.requests !== undefined;
  return clean ? 0 : 1;
}

main().then(
  (code) => {
    killAllNow();
    process.exitCode = code;
  },
  (e: unknown) => {
    killAllNow();
    process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    if (!values.keep) rmSync(work, { recursive: true, force: true });
    process.exitCode = 1;
  },
);
