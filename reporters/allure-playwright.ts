import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { AllureReporter } from 'allure-playwright';
import { Status } from 'allure-js-commons';
import type { RuntimeMessage } from 'allure-js-commons/sdk';
import { config as runConfig } from '../lib/config/config.ts';
import { runContext } from '../lib/config/run-context.ts';
import { EXECUTIONS_ATTACHMENT } from '../lib/report/attachment.ts';
import type { AllureData, ExecutionsAttachment } from '../lib/report/attachment.ts';
import { documentDigest } from '../lib/report/meta.ts';
import { UnsyncedAllureWriter } from './allure-writer.ts';

type Attachment = TestResult['attachments'][number];
type AllureOptions = ConstructorParameters<typeof AllureReporter>[0];

/**
 * The attachments Allure shows for a test: each file once (Playwright attaches its error context twice
 * to a failing test, as the same file), and not the executions the tests hand to the reporters (a
 * harness channel, whose exchanges become the test's steps, each with its request and response). Attachments
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

/** What Allure shows of a conformance test, from the executions attachment it handed in; undefined for any other test. */
export function allureDataOf(attachments: readonly Attachment[]): AllureData | undefined {
  const attachment = attachments.find((a) => a.name === EXECUTIONS_ATTACHMENT);
  // A live run has the body; a merge of blob reports may have a file.
  const text = attachment?.body?.toString('utf8') ?? (attachment?.path && existsSync(attachment.path) ? readFileSync(attachment.path, 'utf8') : undefined);
  if (text === undefined) return undefined;
  return (JSON.parse(text) as ExecutionsAttachment).allure;
}

/**
 * A conformance test as Allure's runtime messages, the ones its runtime API would send from the worker:
 * the title with its format (the JSON and XML tests of a case share a Playwright title), the labels
 * (suites are format then operation), and a step per exchange with the request and the response,
 * failed with the failing checks as its message when a check failed on it. Steps follow one another
 * from the test's start, each as long as its exchange took.
 */
export function allureMessages(title: string, data: AllureData, startMs: number): RuntimeMessage[] {
  const messages: RuntimeMessage[] = [
    {
      type: 'metadata',
      data: {
        displayName: `${title} · ${data.format}`,
        labels: [
          { name: 'parentSuite', value: data.format },
          { name: 'suite', value: data.epic },
          { name: 'epic', value: data.epic },
          ...data.features.map((value) => ({ name: 'feature', value })),
          { name: 'severity', value: data.severity },
          { name: 'tag', value: data.tag },
          ...data.sections.map((value) => ({ name: 'section', value })),
        ],
      },
    },
  ];
  let at = startMs;
  for (const step of data.steps) {
    const stop = at + Math.max(0, Math.round(step.durationMs));
    messages.push(
      { type: 'step_start', data: { name: step.name, start: at } },
      { type: 'attachment_content', data: { name: 'request', content: step.request, encoding: 'utf8', contentType: 'application/json' } },
      { type: 'attachment_content', data: { name: 'response', content: step.response, encoding: 'utf8', contentType: 'application/json' } },
      { type: 'step_stop', data: { stop, ...(step.failure !== undefined ? { status: Status.FAILED, statusDetails: { message: step.failure } } : { status: Status.PASSED }) } },
    );
    at = stop;
  }
  return messages;
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
 * allure-playwright, as this harness uses it: the run's environment (the seed used), each attachment
 * once, and the conformance tests' labels and steps written here, in the runner, from what each test
 * handed in (allureMessages). Its file name keeps "allure-playwright" in the reporter list, which the global setup reads to
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
    const data = allureDataOf(result.attachments);
    const internals = this as unknown as { allureRuntime?: { applyRuntimeMessages(uuid: string, messages: RuntimeMessage[]): void }; allureResultsUuids?: Map<string, string> };
    const uuid = internals.allureResultsUuids?.get(test.id);
    if (data && uuid !== undefined) internals.allureRuntime?.applyRuntimeMessages(uuid, allureMessages(test.title, data, result.startTime.getTime()));
    return super.onTestEnd(test, { ...result, attachments: allureAttachments(result.attachments) });
  }
}
