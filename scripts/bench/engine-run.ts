/**
 * One run of the in-process engine (runSuiteInProcess, no Playwright) against a server that is already
 * running, for the benchmark: `node --import tsx scripts/bench/engine-run.ts --base-url URL --runs N
 * --seed S [--concurrency C]`. Prints one line `BENCH_ENGINE {json}`: requests sent (counted on undici's
 * diagnostics channel, so every request of the engine's own client is seen), check executions, wall time
 * and this process's peak resident memory (getrusage's maxRSS). Run it under `node --cpu-prof` to profile
 * the engine alone.
 */
import { subscribe } from 'node:diagnostics_channel';
import { parseArgs } from 'node:util';
import { runSuiteInProcess } from '../../lib/engine/pipeline.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { EMBEDDED_KEY } from '../../server/index.ts';

export interface EngineRunResult {
  runs: number;
  seed: number;
  concurrency: number;
  requests: number;
  executions: number;
  failed: number;
  elapsedMs: number;
  peakRssBytes: number;
  heapUsedBytes: number;
}

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    runs: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '2' },
    target: { type: 'string', default: 'fixtures/targets/embedded.json' },
  },
});

const baseUrl = values['base-url'];
if (!baseUrl || !/^http:\/\/127\.0\.0\.1:\d+$/.test(baseUrl)) {
  process.stderr.write('engine-run: --base-url http://127.0.0.1:PORT is required (the benchmark only talks to 127.0.0.1)\n');
  process.exit(2);
}
const runs = Number(values.runs);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);
if (![runs, seed, concurrency].every((n) => Number.isSafeInteger(n) && n >= 1)) {
  process.stderr.write('engine-run: --runs, --seed and --concurrency must be positive integers\n');
  process.exit(2);
}

let requests = 0;
subscribe('undici:request:create', () => {
  requests += 1;
});

const profile = loadProfile(fromRoot(values.target));
const started = performance.now();
const executions = await runSuiteInProcess({
  baseUrl,
  key: process.env.ISWC_SUBSCRIPTION_KEY || EMBEDDED_KEY,
  profile,
  destructive: true,
  concurrency,
  settings: { seed, runs, strict: false },
});
const elapsedMs = performance.now() - started;
const result: EngineRunResult = {
  runs,
  seed,
  concurrency,
  requests,
  executions: executions.length,
  failed: executions.filter((e) => e.verdict === 'fail').length,
  elapsedMs: Math.round(elapsedMs),
  // maxRSS is in kibibytes.
  peakRssBytes: process.resourceUsage().maxRSS * 1024,
  heapUsedBytes: process.memoryUsage().heapUsed,
};
process.stdout.write(`BENCH_ENGINE ${JSON.stringify(result)}\n`);
