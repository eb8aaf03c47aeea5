/**
 * npm run bench:report [-- --failures 2600 --loads 5 --out dir]
 *
 * Measures the HTML conformance report at scale, in Debian's Chromium (ISWC_CHROMIUM or /usr/bin/chromium;
 * never a browser download): a real report of the embedded reference server with several faults at once,
 * the failures of further faulty runs added until it holds --failures of them; then the size
 * of conformance.html, and over --loads fresh page loads from disk, offline: the time to the load event
 * and to the report's script being ready, "Expand all", a search and "Collapse all". Medians are
 * printed; timings are reported, never asserted (the machine may be shared and noisy).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { scriptArgs } from './args.ts';
import { chromium } from 'playwright-core';
import type { CheckExecution } from '../lib/run/execution.ts';
import { buildConformanceReport } from '../lib/report/build.ts';
import { writeConformanceReports } from '../lib/report/write.ts';
import { inProcessReport } from '../lib/selfcheck/in-process-report.ts';
import type { ChoiceSetName } from '../server/index.ts';

const CHROMIUM = process.env.ISWC_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** A faulty reference server: faults of its catalogue, and optionally one of its sets of legitimate choices. */
interface BenchRun {
  faults: readonly string[];
  choices?: ChoiceSetName;
}

const WIDE_FAULTS = ['run-bad-request-text', 'merge-404-as-400', 'stack-trace-in-error', 'missing-content-type', 'xml-request-unsupported'];

/**
 * Faulty reference servers, each failing many checks across the operations and both formats; the same
 * faults under another set of choices answer differently (problem+json, other texts). Their failures are
 * real ones (distinct requests and answers), which matters: the page carries its examples compressed, and
 * mere copies would compress far better than a real run's failures.
 */
export const BENCH_RUNS: readonly BenchRun[] = [
  { faults: WIDE_FAULTS },
  { faults: WIDE_FAULTS, choices: 'production' },
  { faults: WIDE_FAULTS, choices: 'alternative' },
  { faults: ['json-content-type-mislabelled', 'run-400-as-422', 'merge-400-as-422', 'crash-on-malformed', 'demerge-404-as-410'] },
  { faults: ['key-case-insensitive', 'work-code-tight', 'int32-tight', 'no-body-204-violated', 'run-success-201', 'unsupported-media-500'] },
  { faults: ['auth-wrong-key-accepted', 'run-not-authorized-text', 'run-401-as-403', 'length-in-bytes', 'run-agency-code-loose', '405-without-allow', 'unknown-path-200'] },
];

/**
 * The executions of a run with `failures` failures: those of the first faulty run, plus the failures of
 * the next runs (their steps marked `[run k]`, so every execution keeps its own key) until there are
 * enough; only if the runs run out are failures repeated (`#2`, `#3`, …). Returns how many are distinct.
 */
export async function scaledExecutions(failures: number): Promise<{ executions: CheckExecution[]; distinct: number; runs: number }> {
  const executions: CheckExecution[] = [];
  const failing: CheckExecution[] = [];
  let runs = 0;
  for (const [k, run] of BENCH_RUNS.entries()) {
    if (failing.length >= failures) break;
    const report = await inProcessReport({ faults: run.faults, ...(run.choices ? { choices: run.choices } : {}) });
    runs += 1;
    if (k === 0) executions.push(...report.executions.filter((e) => e.verdict !== 'fail'));
    for (const e of report.executions) if (e.verdict === 'fail') failing.push(k === 0 ? e : { ...e, step: `${e.step} [run ${k + 1}]` });
  }
  if (failing.length === 0) throw new Error('the faulty runs have no failure');
  const distinct = Math.min(failing.length, failures);
  for (let i = 0; i < failures; i += 1) {
    const e = failing[i % failing.length];
    const copy = Math.floor(i / failing.length);
    executions.push(copy === 0 ? e : { ...e, step: `${e.step} #${copy + 1}` });
  }
  return { executions, distinct, runs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function main(): Promise<number> {
  const values = scriptArgs(
    `Usage: npm run bench:report [-- --failures 2600 --loads 5 --out DIR]

Measures the HTML conformance report at scale in Debian's Chromium (ISWC_CHROMIUM or /usr/bin/chromium):
size, and over --loads page loads from disk, offline, the time to the load event, Expand all, a search and
Collapse all. Timings are reported, never asserted. Exit 2 on bad usage or without Chromium.`,
    { failures: { type: 'string', default: '2600' }, loads: { type: 'string', default: '5' }, out: { type: 'string' } },
  );
  const failures = Number(values.failures);
  const loads = Number(values.loads);
  if (!Number.isInteger(failures) || failures < 1 || !Number.isInteger(loads) || loads < 1) {
    process.stderr.write('usage: npm run bench:report -- [--failures N] [--loads N] [--out dir]\n');
    return 2;
  }
  if (!existsSync(CHROMIUM)) {
    process.stderr.write(`bench:report: no Chromium at ${CHROMIUM}: apt-get install -y chromium, or set ISWC_CHROMIUM\n`);
    return 2;
  }
  const dir = values.out ? path.resolve(values.out) : mkdtempSync(path.join(tmpdir(), 'iswc-bench-report-'));
  try {
    const { executions, distinct, runs } = await scaledExecutions(failures);
    const now = new Date();
    const report = buildConformanceReport({
      executions,
      stats: { requests: 0, retries: 0, waitedMs: 0 },
      baseUrl: 'http://127.0.0.1:1',
      embedded: true,
      profile: 'embedded',
      seed: 42,
      runs: 100,
      strict: false,
      destructive: true,
      startedAt: now,
      finishedAt: now,
    });
    const written = writeConformanceReports(report, dir);
    const bytes = statSync(written.html).size;
    const packed = /<script id="iswc-examples"[^>]*>([^<]*)<\/script>/.exec(readFileSync(written.html, 'utf8'))?.[1]?.length ?? 0;
    const groups = new Set(report.executions.filter((e) => e.verdict === 'fail').map((e) => `${e.checkId}\u0001${e.operation ?? ''}\u0001${e.format}`)).size;
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const timings = { load: [] as number[], ready: [] as number[], expand: [] as number[], search: [] as number[], collapse: [] as number[] };
    try {
      for (let i = 0; i < loads; i += 1) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
        const page = await context.newPage();
        await page.goto(pathToFileURL(written.html).href, { waitUntil: 'load' });
        await page.waitForFunction(() => (window as unknown as { iswcReady?: number }).iswcReady !== undefined, undefined, { timeout: 60_000 });
        const t = await page.evaluate(() => ({
          load: performance.getEntriesByType('navigation').map((n) => (n as PerformanceNavigationTiming).loadEventEnd)[0] ?? NaN,
          ready: (window as unknown as { iswcReady: number }).iswcReady,
        }));
        timings.load.push(t.load);
        timings.ready.push(t.ready);
        // Each action, then two frames: the time to a painted page.
        const act = (selector: string, fill?: string) =>
          page.evaluate(
            ([sel, text]) =>
              new Promise<number>((resolve) => {
                const start = performance.now();
                const el = document.querySelector<HTMLElement | HTMLInputElement>(sel);
                if (!el) throw new Error(`no ${sel}`);
                if (text !== undefined && 'value' in el) {
                  el.value = text;
                  el.dispatchEvent(new Event('input', { bubbles: true }));
                } else el.click();
                requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start)));
              }),
            [selector, fill] as const,
          );
        timings.expand.push(await act('#expand-all'));
        timings.search.push(await act('#search', 'merge'));
        await act('#search', '');
        timings.collapse.push(await act('#collapse-all'));
        await context.close();
      }
    } finally {
      await browser.close();
    }
    const ms = (v: number[]) => `${Math.round(median(v))} ms`;
    const lines = [
      `conformance.html with ${failures} failures (${distinct} distinct, from ${runs} runs of faulty reference servers${distinct < failures ? '; the rest repeated' : ''}), ${groups} groups (check × operation × format), ${report.executions.length} check executions`,
      `  size          ${(bytes / 1024 / 1024).toFixed(2)} MiB (${bytes} bytes; of which every example, gzip in base64: ${Math.round(packed / 1024)} KiB)`,
      `  load event    ${ms(timings.load)}   (median of ${loads} loads from disk, offline, headless ${path.basename(CHROMIUM)})`,
      `  script ready  ${ms(timings.ready)}`,
      `  expand all    ${ms(timings.expand)}`,
      `  search        ${ms(timings.search)}   ("merge")`,
      `  collapse all  ${ms(timings.collapse)}`,
      `  ${written.html}${values.out ? '' : ' (removed)'}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    if (!values.out) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`bench:report: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(2);
    },
  );
}
