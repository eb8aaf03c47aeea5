/**
 * npm run bench [-- --duration 5 --connections 4 --runs 100 --seed 20260101 --skip-hostile --sandbox-only --profile --keep]
 *
 * The performance benchmark (issues 5 and 11), against the reference server on 127.0.0.1, in one run;
 * every ratio is taken from figures of the same run (the machine may be shared and noisy, so timings are
 * printed, never asserted):
 *
 *   1. raw server throughput: autocannon on a fixed mix of valid requests (keep-alive, a few
 *      connections, a fixed duration), the server alone in a child process;
 *   2. `npm run conformance` as its script runs it (one worker, its Node options), against the embedded
 *      server: wall time, checked requests per second, peak resident memory of the whole process tree
 *      sampled every 100 ms; then the same at ten times ISWC_RUNS (memory must stay flat);
 *   3. a passing and two failing runs against a server in a child process: the clean reference server,
 *      the reference server with several faults at once, and a schema-driven mock that fails most checks;
 *      the failing runs' wall times over the passing one's;
 *   4. the fourteen kinds of broken target (server/hostile/targets.ts): each run's wall time, exit
 *      status, message, and whether the key appears anywhere in its output or reports;
 *   5. the in-process engine (runSuiteInProcess, no Playwright) at ISWC_RUNS and on a deep property run
 *      (ten times ISWC_RUNS), requests per second next to the raw rate, and its peak memory;
 *   6. the sandbox (npx iswc-conformance sandbox): judged requests per second through it next to the
 *      bare reference server, the same mix one after the other, and the ratio (issue 17: at least 0.5);
 *   7. the run's peak memory measured from outside (issue 31): `npx iswc-conformance run` against the
 *      reference server in a child process, whole and with --budget 60: the largest process, and the
 *      tree's resident and proportional sums (scripts/bench/memory.ts);
 *   8. the plans: faults caught against requests, held-out and in-sample, each mode, as a plot
 *      (plans.svg, plans.html in the working directory; `npm run plan:heldout -- --out DIR` alone).
 *
 * Then each target of issue 11, met or not met. `--profile` adds CPU-profiled runs (the engine and its
 * server on the deep run, then a full Playwright run) and prints where the time goes; see
 * docs/performance.md. Only 127.0.0.1 is used; every process the benchmark starts runs in its own
 * process group, bounded in time, and is ended before it exits, whatever happens.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../lib/foundation/paths.ts';
import { RUN_PROCESS_DEFAULTS } from '../lib/cli/run-args.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { EMBEDDED_KEY } from '../server/index.ts';
import { HOSTILE_KINDS } from '../server/hostile/targets.ts';
import type { EngineRunResult } from './bench/engine-run.ts';
import { checkMix, measureThroughput, requestMix } from './bench/load.ts';
import type { LoadResult } from './bench/load.ts';
import type { ServerChild, TreePeak } from './bench/proc.ts';
import { MiB, endChild, killAllNow, nodeTs, procAvailable, sampleTree, startChild, startServerChild } from './bench/proc.ts';
import { formatSummary, summariseProfile } from './bench/profile.ts';
import { sandboxThroughput } from './bench/sandbox.ts';
import { describeMemoryRun, memoryRun } from './bench/memory.ts';
import type { MemoryRun } from './bench/memory.ts';
import type { SandboxBench } from './bench/sandbox.ts';

const TARGET_FILE = 'fixtures/targets/embedded.json';
const PLAYWRIGHT_CLI = path.join(repoRoot, 'node_modules', '@playwright', 'test', 'cli.js');

/** The targets of issue 11 (and the wall-time target of issue 5). */
const TARGET_WALL_S = 60;
const TARGET_FAILING_RATIO = 1.5;
const TARGET_PEAK_MIB = 300;
/** "Flat": peak RSS grows by at most this factor when ISWC_RUNS grows tenfold. */
const FLAT_FACTOR = 1.25;
const TARGET_DEEP_RATE = 3000;
const TARGET_BROKEN_S = 60;
/** Judging must not be what limits a client's test suite: the sandbox at least this share of the bare rate. */
const TARGET_SANDBOX_RATIO = 0.5;
/** Several faults at once: statuses, texts, schemas, outcomes and HTTP hygiene all go wrong. */
const FAULTS = ['run-success-201', 'merge-400-as-422', 'run-bad-request-text', 'merge-404-as-400', 'crash-on-malformed', 'no-body-204-violated'];
/** The key the broken-target runs hold: it must appear in none of their output or reports. */
const BROKEN_KEY = 'bench-broken-target-key-5d0c7e19a4';

/** Time limits of each child: generous, but every loop and process of the benchmark ends. */
const PLAYWRIGHT_TIMEOUT_MS = 10 * 60_000;
const ENGINE_TIMEOUT_MS = 10 * 60_000;
const SERVER_TIMEOUT_MS = 30 * 60_000;

const USAGE = `Usage: npm run bench [-- options]

Benchmarks the harness against the reference server (127.0.0.1 only) and prints, from one run: raw server
throughput (autocannon); npm run conformance's wall time, checked requests per second and peak memory, and
its memory at ten times ISWC_RUNS; a passing run against two failing ones; the fourteen kinds of broken target;
the in-process engine's rate on a deep property run next to the raw rate; the sandbox; the run's peak
memory measured from outside (npx iswc-conformance run against a server in a child process, whole and
with --budget 60); the plans' curve of faults caught against requests (plans.svg and plans.html in the
working directory, kept with --keep); then each target, met or not met. Timings are reported, never
asserted.

Options:
  --duration S       autocannon duration in seconds (default 5, 1 to 60)
  --connections N    autocannon connections, keep-alive (default 4, 1 to 64)
  --runs N           ISWC_RUNS of the runs (default 100); memory flatness and the deep run use 10 N
  --seed N           ISWC_SEED of every run (default 20260101), so request counts repeat
  --skip-hostile     leave out the fourteen broken targets (a few minutes)
  --sandbox-only     only the sandbox's judged requests per second next to the bare server (step 6)
  --memory-only      only the run's peak memory measured from outside (step 7, a few minutes)
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
    'skip-hostile': { type: 'boolean', default: false },
    'sandbox-only': { type: 'boolean', default: false },
    'memory-only': { type: 'boolean', default: false },
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

/** `npm run conformance` as the run command starts Playwright: its workers and Node options (lib/cli/run-args.ts). */
function conformanceScript(): { env: Record<string, string>; nodeOptions: string } {
  return { env: { ISWC_WORKERS: RUN_PROCESS_DEFAULTS.workers }, nodeOptions: RUN_PROCESS_DEFAULTS.nodeOptions };
}

/**
 * The environment of every child: this one without any ISWC_* setting (the benchmark always measures
 * local targets, and never holds a real key), plus what a step sets.
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
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

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

// ── 2 to 4. conformance runs under Playwright ─────────────────────────────────────────────────────────
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
  stdout: string;
  stderr: string;
}

interface ReportMeta {
  meta?: { requests?: number; startedAt?: string; finishedAt?: string };
}

/** `npm run conformance` (its workers and Node options), in a child process whose tree is sampled. */
async function playwrightRun(label: string, options: { env?: Record<string, string>; nodeOptions?: readonly string[]; runs?: number } = {}): Promise<PlaywrightRun> {
  const reportDir = path.join(work, label);
  mkdirSync(reportDir, { recursive: true });
  const script = conformanceScript();
  // Playwright forks its workers with this process's execArgv and environment, so node options reach them too.
  const args = [...(options.nodeOptions ?? []), PLAYWRIGHT_CLI, 'test', '--project=json', '--project=xml', `--output=${path.join(reportDir, 'test-results')}`];
  const started = startChild(process.execPath, args, {
    env: childEnv({
      ...script.env,
      ...(script.nodeOptions ? { NODE_OPTIONS: script.nodeOptions } : {}),
      ISWC_RUNS: String(options.runs ?? runs),
      ISWC_SEED: String(seed),
      ISWC_REPORT_DIR: reportDir,
      ...options.env,
    }),
    timeoutMs: PLAYWRIGHT_TIMEOUT_MS,
  });
  const sampler = started.child.pid !== undefined ? sampleTree(started.child.pid) : undefined;
  const finished = await started.done;
  const peak: TreePeak = sampler?.stop() ?? { peakBytes: 0, peakPssBytes: 0, largestProcessBytes: 0, peakProcesses: 0, samples: 0, perProcess: [] };
  await endChild(started.child);
  let requests: number | undefined;
  let runMs: number | undefined;
  const reportFile = path.join(reportDir, 'conformance.json');
  if (existsSync(reportFile)) {
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ReportMeta;
    requests = report.meta?.requests;
    if (report.meta?.startedAt && report.meta.finishedAt) runMs = Date.parse(report.meta.finishedAt) - Date.parse(report.meta.startedAt);
  }
  return {
    exitCode: finished.timedOut ? null : finished.code,
    wallMs: finished.wallMs,
    runMs,
    requests,
    tests: /tests: .*$/m.exec(finished.stdout)?.[0],
    peakRssBytes: peak.peakBytes,
    peakProcesses: peak.peakProcesses,
    samples: peak.samples,
    perProcess: peak.perProcess,
    reportDir,
    stdout: finished.stdout,
    stderr: finished.stderr,
  };
}

function describeRun(run: PlaywrightRun): void {
  const perSecond = run.requests !== undefined ? run.requests / (run.wallMs / 1000) : undefined;
  log(`  wall ${secs(run.wallMs)} (reporters' start to end ${run.runMs !== undefined ? secs(run.runMs) : '?'}), exit ${run.exitCode ?? 'timed out'}, ${run.tests ?? 'no test summary'}`);
  log(`  ${run.requests ?? '?'} checked requests → ${perSecond !== undefined ? rate(perSecond) : '?'} over the wall time`);
  log(`  peak RSS of the process tree ${mib(run.peakRssBytes)} (up to ${run.peakProcesses} processes, ${run.samples} samples); each process's own peak: ${run.perProcess.map((p) => `${p.label} ${mib(p.peakBytes)}`).join(', ')}`);
}

async function withServer<T>(options: { args?: string[]; script?: string }, fn: (server: ServerChild) => Promise<T>): Promise<T> {
  const server = await startServerChild({ key: EMBEDDED_KEY, target: TARGET_FILE, env: childEnv(), timeoutMs: SERVER_TIMEOUT_MS, ...options });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** A run against a server on this machine that is not the embedded one (the key is the server's). */
function againstServer(label: string, server: ServerChild): Promise<PlaywrightRun> {
  return playwrightRun(label, { env: { ISWC_BASE_URL: server.url, ISWC_SUBSCRIPTION_KEY: EMBEDDED_KEY } });
}

interface BrokenRun {
  id: string;
  description: string;
  wallMs: number;
  exitCode: number | null;
  /** The exit code the run's conformance.json records (summary.outcome): 3 for a target found unusable. */
  recordedExit: number | undefined;
  message: string | undefined;
  keyLeaked: boolean;
  requestsSeen: number;
}

/** Whether the key appears in any file under a directory (reports, Allure results, test results). */
function keyIn(dir: string, key: string): boolean {
  if (!existsSync(dir)) return false;
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      if (keyIn(file, key)) return true;
    } else if (readFileSync(file).includes(key)) {
      return true;
    }
  }
  return false;
}

async function brokenTargets(): Promise<BrokenRun[]> {
  const out: BrokenRun[] = [];
  for (const kind of HOSTILE_KINDS) {
    const target = await kind.start();
    try {
      // A deep answer over the default size limit needs a larger one to meet the depth limit, not the size limit.
      const maxBody: Record<string, string> = kind.maxBodyBytes !== undefined ? { ISWC_MAX_BODY: String(kind.maxBodyBytes) } : {};
      const run = await playwrightRun(`broken-${kind.id}`, { env: { ISWC_BASE_URL: target.url, ISWC_SUBSCRIPTION_KEY: BROKEN_KEY, ...maxBody } });
      const message = /TARGET UNUSABLE: [^\n]*/.exec(run.stdout)?.[0];
      const reportFile = path.join(run.reportDir, 'conformance.json');
      const recordedExit = existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, 'utf8')) as { summary?: { outcome?: { exitCode?: number } } }).summary?.outcome?.exitCode : undefined;
      const broken: BrokenRun = {
        id: kind.id,
        description: kind.description,
        wallMs: run.wallMs,
        exitCode: run.exitCode,
        recordedExit,
        message,
        keyLeaked: run.stdout.includes(BROKEN_KEY) || run.stderr.includes(BROKEN_KEY) || keyIn(run.reportDir, BROKEN_KEY),
        requestsSeen: target.hits(),
      };
      out.push(broken);
      log(
        `  ${kind.id.padEnd(19)} ${secs(run.wallMs).padStart(7)}  exit ${broken.exitCode ?? 'timed out'} (recorded ${broken.recordedExit ?? 'none'})  ${broken.requestsSeen} requests seen  key ${broken.keyLeaked ? 'LEAKED' : 'absent'}  ${(message ?? 'no "TARGET UNUSABLE" headline').slice(0, 110)}`,
      );
    } finally {
      await target.close();
    }
  }
  return out;
}

// ── 5. the in-process engine on a fresh server ─────────────────────────────────────────────────────────
async function engineRun(engineRuns: number, concurrency: number, profileDir?: string): Promise<EngineRunResult> {
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
      ['--base-url', server.url, '--runs', String(engineRuns), '--seed', String(seed), '--concurrency', String(concurrency), '--target', TARGET_FILE],
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

/** Cases in flight in the engine of a Playwright run (lib/engine/engine.ts): the in-process runs use as many. */
const ENGINE_CONCURRENCY = 4;

// ── 6. the sandbox next to the bare server ────────────────────────────────────────────────────────────
async function sandboxStep(): Promise<SandboxBench> {
  log(`6/8 the sandbox: judged requests per second next to the bare reference server (autocannon, the same mix, ${connections} connections for ${durationSeconds} s each after 2 s of warm-up, choices reference)`);
  const result = await sandboxThroughput({ key: EMBEDDED_KEY, target: TARGET_FILE, work, env: childEnv(), connections, durationSeconds, timeoutMs: SERVER_TIMEOUT_MS, log });
  log(`  ratio ${result.ratio.toFixed(2)} of the bare rate (target ≥ ${TARGET_SANDBOX_RATIO}: ${result.ratio >= TARGET_SANDBOX_RATIO ? 'met' : 'NOT met'})`);
  return result;
}

// ── 7. the run's peak memory, from outside ─────────────────────────────────────────────────────────────
async function memoryStep(): Promise<MemoryRun[]> {
  log(`7/8 the run's peak memory: npx iswc-conformance run (ISWC_RUNS=${runs}, ISWC_SEED=${seed}) against the reference server in a child process, its tree sampled every 100 ms`);
  const out: MemoryRun[] = [];
  for (const [label, args] of [
    ['whole run', []],
    ['--budget 60', ['--budget', '60']],
  ] as const) {
    const run = await memoryRun({
      label,
      args,
      key: EMBEDDED_KEY,
      target: TARGET_FILE,
      env: childEnv({ ISWC_RUNS: String(runs), ISWC_SEED: String(seed) }),
      reportDir: path.join(work, `memory-${out.length}`),
      timeoutMs: PLAYWRIGHT_TIMEOUT_MS,
    });
    log(`  ${describeMemoryRun(run)}`);
    out.push(run);
  }
  const largest = Math.max(...out.map((r) => r.largestProcessBytes));
  log(`  the run's peak memory (its largest process, what /usr/bin/time -v reports) ≤ ${TARGET_PEAK_MIB} MiB: ${procAvailable ? (largest <= TARGET_PEAK_MIB * MiB ? 'met' : 'NOT met') : 'unknown'} (${mib(largest)})`);
  return out;
}

// ── 8. the plans: faults caught against requests ─────────────────────────────────────────────────────────
async function plansStep(): Promise<void> {
  log('8/8 the plans: faults caught against requests, each mode, held-out (five folds) and in-sample, from the committed measurement');
  const file = path.join(work, 'plans');
  const [cmd, args] = nodeTs('scripts/plan-heldout.ts', ['--spec-only', '--budgets', '5,10,15,20,30,45,60,80,100,150,200,250', '--out', file]);
  const run = startChild(cmd, args, { env: childEnv(), timeoutMs: ENGINE_TIMEOUT_MS });
  const done = await run.done;
  if (done.code !== 0) throw new Error(`plan:heldout exited with ${done.code}: ${done.stderr.slice(-2000)}`);
  log(done.stdout.replace(/^/gm, '  ').trimEnd());
}

async function main(): Promise<number> {
  const cpus = os.cpus();
  const script = conformanceScript();
  log('iswc-conformance benchmark (reference server, 127.0.0.1 only; figures of this one run)');
  log(`  machine: ${os.availableParallelism()} cores (${cpus[0]?.model.trim() ?? '?'}), ${mib(os.totalmem())} RAM, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, Node ${process.version}`);
  log(`  settings: ISWC_RUNS=${runs}, ISWC_SEED=${seed}, autocannon ${connections} connections for ${durationSeconds} s; npm run conformance: ISWC_WORKERS=${script.env.ISWC_WORKERS ?? 'default'}, NODE_OPTIONS=${script.nodeOptions || '(none)'}${procAvailable ? '' : '; /proc is not available: tree memory cannot be sampled'}`);
  log();
  if (values['memory-only']) {
    const memory = await memoryStep();
    writeFileSync(path.join(work, 'bench.json'), `${JSON.stringify({ settings: { runs, seed }, memory: memory.map((m) => ({ ...m })) }, null, 2)}\n`);
    if (values.keep) log(`\nworking directory kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
    return memory.every((m) => m.exitCode === 0) ? 0 : 1;
  }
  if (values['sandbox-only']) {
    const only = await sandboxStep();
    writeFileSync(path.join(work, 'bench.json'), `${JSON.stringify({ settings: { connections, durationSeconds }, sandbox: only }, null, 2)}\n`);
    if (values.keep) log(`\nworking directory kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
    return only.bare.unexpected === 0 && only.sandbox.unexpected === 0 && only.judged !== undefined ? 0 : 1;
  }

  log('1/8 raw server throughput (autocannon, server alone in a child process)');
  const raw = await rawThroughput();
  log(`  ${rate(raw.requestsPerSecond)} (${raw.requests} answers in ${raw.durationSeconds.toFixed(1)} s; latency p50 ${raw.latencyP50Ms} ms, p99 ${raw.latencyP99Ms} ms; statuses ${JSON.stringify(raw.statuses)}; errors ${raw.errors}, timeouts ${raw.timeouts})`);
  if (raw.unexpected > 0 || raw.errors > 0) log(`  ✗ ${raw.unexpected} unexpected statuses, ${raw.errors} errors: the raw figure is not a clean measurement`);
  log();

  log(`2/8 npm run conformance against the embedded server, ISWC_RUNS=${runs}, then ISWC_RUNS=${runs * 10}`);
  const pw = await playwrightRun('conformance');
  describeRun(pw);
  const pw10 = await playwrightRun('conformance-deep', { runs: runs * 10 });
  log(`  at ISWC_RUNS=${runs * 10}:`);
  describeRun(pw10);
  const treeFlat = pw10.peakRssBytes / Math.max(1, pw.peakRssBytes);
  log();

  log(`3/8 a passing run and two failing ones, each server in a child process (ISWC_RUNS=${runs})`);
  const clean = await withServer({}, (s) => againstServer('clean', s));
  log('  the clean reference server:');
  describeRun(clean);
  const faulty = await withServer({ args: FAULTS.flatMap((f) => ['--fault', f]) }, (s) => againstServer('faulty', s));
  log(`  the reference server with ${FAULTS.length} faults (${FAULTS.join(', ')}):`);
  describeRun(faulty);
  const mock = await withServer({ script: 'scripts/bench/mock.ts' }, (s) => againstServer('mock', s));
  log('  a schema-driven mock (every operation answers its first success status with an example):');
  describeRun(mock);
  const faultyRatio = faulty.wallMs / clean.wallMs;
  const mockRatio = mock.wallMs / clean.wallMs;
  log(`  wall time over the clean run's: faults ${faultyRatio.toFixed(2)}, mock ${mockRatio.toFixed(2)}`);
  log();

  let broken: BrokenRun[] = [];
  if (values['skip-hostile']) {
    log('4/8 broken targets: skipped (--skip-hostile)');
  } else {
    log(`4/8 broken targets: npm run conformance against each of the ${HOSTILE_KINDS.length} kinds (ISWC_TIMEOUT_MS default)`);
    broken = await brokenTargets();
  }
  log();

  log(`5/8 in-process engine (runSuiteInProcess, ${ENGINE_CONCURRENCY} cases at once like the run's engine), fresh server in a child process`);
  const engine = await engineRun(runs, ENGINE_CONCURRENCY);
  const engineRate = engine.requests / (engine.elapsedMs / 1000);
  log(`  ISWC_RUNS=${runs}: ${engine.requests} requests in ${secs(engine.elapsedMs)} → ${rate(engineRate)}; ${engine.executions} check executions, ${engine.failed} failed; peak RSS ${mib(engine.peakRssBytes)}`);
  const deep = await engineRun(runs * 10, ENGINE_CONCURRENCY);
  const deepRate = deep.requests / (deep.elapsedMs / 1000);
  log(`  ISWC_RUNS=${runs * 10} (deep property run): ${deep.requests} requests in ${secs(deep.elapsedMs)} → ${rate(deepRate)} (raw server ${rate(raw.requestsPerSecond)}, ratio ${(deepRate / raw.requestsPerSecond).toFixed(3)}); peak RSS ${mib(deep.peakRssBytes)}`);
  log();

  const sandbox = await sandboxStep();
  log();
  const memory = await memoryStep();
  log();
  await plansStep();
  log();

  const pwRate = pw.requests !== undefined ? pw.requests / (pw.wallMs / 1000) : undefined;
  log('summary');
  log(`  raw server throughput                   ${rate(raw.requestsPerSecond)}`);
  log(`  npm run conformance, wall time          ${secs(pw.wallMs)} (${pwRate !== undefined ? rate(pwRate) : '?'})`);
  log(`  peak memory, npm run conformance tree   ${mib(pw.peakRssBytes)}; at ISWC_RUNS=${runs * 10} ${mib(pw10.peakRssBytes)} (×${treeFlat.toFixed(2)})`);
  log(`  failing run / passing run, wall time    faults ${faultyRatio.toFixed(2)}, mock ${mockRatio.toFixed(2)} (clean ${secs(clean.wallMs)}, faults ${secs(faulty.wallMs)}, mock ${secs(mock.wallMs)})`);
  if (broken.length > 0) log(`  broken targets, slowest                 ${secs(Math.max(...broken.map((b) => b.wallMs)))} (${broken.map((b) => `${b.id} ${secs(b.wallMs)}`).join(', ')})`);
  log(`  in-process engine                       ${rate(engineRate)} at ISWC_RUNS=${runs}, ${rate(deepRate)} on the deep run (raw ${rate(raw.requestsPerSecond)})`);
  for (const m of memory) log(`  the run's peak memory, ${m.label.padEnd(12)}  largest process ${mib(m.largestProcessBytes)}, tree ${mib(m.treeRssBytes)} resident, ${mib(m.treePssBytes)} proportional`);
  log(`  sandbox, judged requests                ${rate(sandbox.sandbox.requestsPerSecond)} (bare ${rate(sandbox.bare.requestsPerSecond)}, ratio ${sandbox.ratio.toFixed(2)}; CPU per answer ${sandbox.cpuPerRequestUs.sandbox?.toFixed(0) ?? '?'} µs, bare ${sandbox.cpuPerRequestUs.bare?.toFixed(0) ?? '?'} µs)`);
  log();

  const cores = os.availableParallelism();
  const verdict = (ok: boolean | undefined): string => (ok === undefined ? 'unknown' : ok ? 'met' : 'NOT met');
  const coreNote = cores === 2 ? '' : ` (measured on ${cores} cores; the targets are for 2)`;
  log(`targets${coreNote}`);
  log(`  npm run conformance within ${TARGET_WALL_S} s: ${verdict(pw.exitCode === 0 ? pw.wallMs / 1000 <= TARGET_WALL_S : undefined)} (${secs(pw.wallMs)})`);
  log(`  a run that fails most checks takes ≤ ${TARGET_FAILING_RATIO} × the clean run's wall time: ${verdict(faulty.exitCode === 1 && mock.exitCode === 1 ? Math.max(faultyRatio, mockRatio) <= TARGET_FAILING_RATIO : undefined)} (faults ${faultyRatio.toFixed(2)}, mock ${mockRatio.toFixed(2)}; both exit ${faulty.exitCode}/${mock.exitCode})`);
  if (broken.length > 0) {
    const ok = broken.every((b) => b.exitCode !== null && b.exitCode !== 0 && b.recordedExit === 3 && b.wallMs <= TARGET_BROKEN_S * 1000 && b.message !== undefined && !b.keyLeaked);
    log(`  every broken target ends the run in < ${TARGET_BROKEN_S} s, recorded exit 3 (target unusable), with a clear headline and no key: ${verdict(ok)} (slowest ${secs(Math.max(...broken.map((b) => b.wallMs)))})`);
  }
  const largest = Math.max(...memory.map((m) => m.largestProcessBytes));
  log(`  the run's peak memory ≤ ${TARGET_PEAK_MIB} MiB (its largest process, against a server in a child process): ${verdict(procAvailable ? largest <= TARGET_PEAK_MIB * MiB : undefined)} (${mib(largest)}; the tree's resident sum ${mib(Math.max(...memory.map((m) => m.treeRssBytes)))}, proportional ${mib(Math.max(...memory.map((m) => m.treePssBytes)))})`);
  log(`  memory flat as ISWC_RUNS grows tenfold (peak RSS ratio ≤ ${FLAT_FACTOR}): ${verdict(treeFlat <= FLAT_FACTOR)} (Playwright tree ×${treeFlat.toFixed(2)}; engine ×${(deep.peakRssBytes / engine.peakRssBytes).toFixed(2)})`);
  log(`  a deep property run checks ≥ ${TARGET_DEEP_RATE} requests/s: ${verdict(deepRate >= TARGET_DEEP_RATE)} (${rate(deepRate)}; the raw server ${rate(raw.requestsPerSecond)} on this machine now)`);
  log(`  the sandbox judges at ≥ ${TARGET_SANDBOX_RATIO} × the bare server's rate: ${verdict(sandbox.ratio >= TARGET_SANDBOX_RATIO)} (${sandbox.ratio.toFixed(2)})`);

  const summary = {
    machine: { cores, cpu: cpus[0]?.model.trim(), totalMemBytes: os.totalmem(), loadavg: os.loadavg(), node: process.version },
    settings: { runs, seed, connections, durationSeconds, conformance: script },
    raw,
    conformance: { ...pw, stdout: undefined, stderr: undefined },
    conformanceDeep: { ...pw10, stdout: undefined, stderr: undefined },
    clean: { ...clean, stdout: undefined, stderr: undefined },
    faulty: { ...faulty, stdout: undefined, stderr: undefined },
    mock: { ...mock, stdout: undefined, stderr: undefined },
    broken,
    engine: { ...engine, requestsPerSecond: engineRate },
    engineDeep: { ...deep, requestsPerSecond: deepRate },
    sandbox,
    memory,
    ratios: { faultyToClean: faultyRatio, mockToClean: mockRatio, treeTenfold: treeFlat, deepToRaw: deepRate / raw.requestsPerSecond, sandboxToBare: sandbox.ratio },
  };
  writeFileSync(path.join(work, 'bench.json'), `${JSON.stringify(summary, null, 2)}\n`);

  if (values.profile) {
    log();
    log('profile (node --cpu-prof; separate runs, so the figures above are unaffected)');
    const engineDir = path.join(work, 'profile-engine');
    const profiled = await engineRun(runs * 10, ENGINE_CONCURRENCY, engineDir);
    log(`  deep engine run under the profiler: ${profiled.requests} requests in ${secs(profiled.elapsedMs)}`);
    const engineProfile = newestProfiles(engineDir)[0];
    if (engineProfile) log(formatSummary(summariseProfile(engineProfile), 'in-process engine, deep run').replace(/^/gm, '  '));
    const serverProfile = newestProfiles(path.join(engineDir, 'server'))[0];
    if (serverProfile) log(formatSummary(summariseProfile(serverProfile), 'reference server during the engine run').replace(/^/gm, '  '));
    const pwDir = path.join(work, 'profile-playwright');
    const pwProfiled = await playwrightRun('playwright-profiled', { nodeOptions: ['--cpu-prof', `--cpu-prof-dir=${pwDir}`] });
    log(`  Playwright run under the profiler: wall ${secs(pwProfiled.wallMs)}, exit ${pwProfiled.exitCode ?? 'timed out'}`);
    // The biggest profiles are the runner (with the embedded server and the engine) and the worker.
    for (const file of newestProfiles(pwDir).slice(0, 2)) log(formatSummary(summariseProfile(file, 12), path.basename(file)).replace(/^/gm, '  '));
  }

  if (values.keep || values.profile) log(`\nworking directory kept: ${work}`);
  else rmSync(work, { recursive: true, force: true });
  const ok = raw.unexpected === 0 && raw.errors === 0 && pw.exitCode === 0 && pw.requests !== undefined && clean.exitCode === 0;
  return ok ? 0 : 1;
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
