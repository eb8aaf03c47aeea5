import path from 'node:path';
import type { Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { AllureReporter } from 'allure-playwright';
import { config as runConfig } from '../lib/config/config.ts';
import { runContext } from '../lib/config/run-context.ts';
import { EXECUTIONS_ATTACHMENT } from '../lib/report/attachment.ts';
import { documentDigest } from '../lib/report/meta.ts';
import { UnsyncedAllureWriter } from './allure-writer.ts';

type Attachment = TestResult['attachments'][number];
type AllureOptions = ConstructorParameters<typeof AllureReporter>[0];

/**
 * The attachments Allure shows for a test: each file once (Playwright attaches its error context twice
 * to a failing test, as the same file), and not the executions the tests hand to the conformance
 * reporter (a harness channel, whose exchanges the test's steps already attach one by one). Attachments
 * with a body are never merged: two requests may well be alike.
 */
export function allureAttachments(attachments: readonly Attachment[]): Attachment[] {
  const files = new Set<string>();
  return attachments.filter((a) => {
    if (a.name === EXECUTIONS_ATTACHMENT) return false;
    if (!a.path) return true;
    const key = `${a.name}\u0001${a.contentType}\u0001${path.resolve(a.path)}`;
    if (files.has(key)) return false;
    files.add(key);
    return true;
  });
}

/**
 * Allure's environment page, read when Allure writes it (at the end of the run): the seed the run used,
 * which the global setup chose, not the configuration's "random"; the target the run used (the embedded
 * server's address included); the profile, strictness, plan, the proxy (never its credentials) and the
 * interface document's digest.
 */
export function runEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  // A getter that cannot read the configuration says so rather than failing Allure's end of run.
  const define = (name: string, value: () => string) =>
    Object.defineProperty(env, name, {
      enumerable: true,
      get: () => {
        try {
          return value();
        } catch (e) {
          return `unknown (${(e as Error).message})`;
        }
      },
    });
  define('target', () => {
    const context = runContext();
    if (context) return `${context.baseUrl}${context.embedded ? ' (embedded reference server)' : ''}`;
    return runConfig().baseUrl ?? 'embedded reference server';
  });
  define('profile', () => path.basename(runConfig().targetFile));
  define('seed', () => String(runContext()?.seed ?? runConfig().seed ?? 'not recorded (set ISWC_SEED in a merge of shards)'));
  define('strict', () => (runConfig().strict ? 'yes' : 'no'));
  define('plan', () => `${runConfig().plan}${runConfig().budget === undefined ? '' : `, budget ${runConfig().budget}`}`);
  define('proxy', () => {
    const { proxy } = runConfig().network;
    return proxy ? `${proxy.shown} (${proxy.variable}, ${proxy.mode === 'connect' ? 'CONNECT tunnel' : 'absolute-form'})` : 'none';
  });
  define('document digest', () => documentDigest());
  return env;
}

/**
 * allure-playwright, as this harness uses it: the run's environment (the seed used) and each attachment
 * once. Its file name keeps "allure-playwright" in the reporter list, which the global setup reads to
 * start Allure's results directory afresh.
 */
export default class ConformanceAllureReporter extends AllureReporter {
  private readonly resultsDir: string;

  constructor(options: AllureOptions = {}) {
    super({ ...options, environmentInfo: runEnvironment() });
    this.resultsDir = options.resultsDir ?? 'allure-results';
  }

  /** Allure's runtime as allure-playwright makes it, writing its files without an fsync each (reporters/allure-writer.ts). */
  override onBegin(suite: Suite): void {
    super.onBegin(suite);
    const runtime = (this as unknown as { allureRuntime?: { writer: unknown } }).allureRuntime;
    if (runtime) runtime.writer = new UnsyncedAllureWriter(this.resultsDir);
  }

  override onTestEnd(test: TestCase, result: TestResult): Promise<void> {
    return super.onTestEnd(test, { ...result, attachments: allureAttachments(result.attachments) });
  }
}
