import type { FullResult, Reporter, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { engineProgress, ProgressPrinter } from '../lib/engine/progress.ts';

/**
 * The progress of a conformance run (lib/engine/progress.ts), from the run's engine in this process.
 *
 * `live: true` (the run command on a terminal, ISWC_PROGRESS=live): it takes the place of the list
 * reporter: one live line at the bottom (requests sent of planned, failures, elapsed, time left, time
 * waiting on throttling), each failed test printed above it with the first lines of its error, the
 * output of tests and errors passed through. Otherwise (CI, a log): a line every 30 s while the run is
 * sending, next to the list reporter.
 */
export default class ProgressReporter implements Reporter {
  private readonly printer: ProgressPrinter;
  private readonly live: boolean;

  constructor(options: { live?: boolean } = {}) {
    this.live = options.live === true;
    this.printer = new ProgressPrinter({ source: engineProgress, write: (text) => process.stdout.write(text), live: this.live });
  }

  printsToStdio(): boolean {
    return this.live;
  }

  onBegin(): void {
    this.printer.start();
    if (this.live) this.printer.tick();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (!this.live || (result.status !== 'failed' && result.status !== 'timedOut' && result.status !== 'interrupted')) return;
    const project = test.parent.project()?.name ?? '';
    const message = (result.error?.message ?? result.status).split('\n').slice(0, 4);
    this.printer.above(`  ✗ [${project}] ${test.title}\n${message.map((l) => `      ${l}`).join('\n')}`);
  }

  onStdOut(chunk: string | Buffer): void {
    if (this.live) this.printer.above(chunk.toString());
  }

  onStdErr(chunk: string | Buffer): void {
    if (this.live) this.printer.above(chunk.toString());
  }

  onError(error: TestError): void {
    if (this.live) this.printer.above(`error: ${error.message ?? ''}`);
  }

  onEnd(_result: FullResult): void {
    this.printer.stop();
  }
}
