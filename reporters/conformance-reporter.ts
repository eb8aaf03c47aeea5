import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import type { CheckExecution } from '../lib/checks/types.ts';
import { readConfig } from '../lib/engine/config.ts';
import { buildConformanceReport } from '../lib/report/build.ts';
import type { ConformanceReport } from '../lib/report/model.ts';
import { writeConformanceReports } from '../lib/report/write.ts';
import { loadProfile } from '../lib/profile/load.ts';
import { redactorFromEnv } from '../lib/redact.ts';
import type { ExecutionsAttachment } from '../tests/conformance/declare.ts';

const ATTACHMENT = 'iswc-check-executions';

/** The attachment's bytes: in memory in a live run; a body or a file when replayed by `merge-reports`. */
function attachmentText(attachment: TestResult['attachments'][number]): string | undefined {
  if (attachment.body) return attachment.body.toString('utf8');
  if (attachment.path && existsSync(attachment.path)) return readFileSync(attachment.path, 'utf8');
  return undefined;
}

/**
 * Collects the check executions every conformance test attached and writes, from that one model,
 * `conformance.json` (validated against schemas/report.schema.json), `conformance-junit.xml` (one
 * testcase per check execution) and the self-contained `conformance.html`; then prints a one-screen
 * summary: checks per level, the failing ones with their section, the path of each report.
 * Works the same on a live run and on `npx playwright merge-reports` of blob reports (sharded runs):
 * blob reports keep the attachments.
 */
export default class ConformanceReporter implements Reporter {
  private executions: CheckExecution[] = [];
  private stats = { requests: 0, retries: 0, waitedMs: 0 };
  private tests = { passed: 0, failed: 0, skipped: 0 };
  private started = new Date();

  printsToStdio(): boolean {
    return true;
  }

  onBegin(): void {
    this.started = new Date();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status === 'passed') this.tests.passed += 1;
    else if (result.status === 'skipped') this.tests.skipped += 1;
    else if (test.outcome() !== 'flaky') this.tests.failed += 1;
    for (const attachment of result.attachments) {
      if (attachment.name !== ATTACHMENT) continue;
      const text = attachmentText(attachment);
      if (text === undefined) continue;
      const payload = JSON.parse(text) as ExecutionsAttachment;
      this.executions.push(...payload.executions);
      this.stats.requests += payload.stats.requests;
      this.stats.retries += payload.stats.retries;
      this.stats.waitedMs += payload.stats.waitedMs;
    }
  }

  onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    try {
      return this.finish(result);
    } catch (e) {
      // A reporter that fails quietly loses the run's verdict: say why, and fail the run.
      process.stderr.write(`iswc-conformance reporter: could not write the reports: ${redactorFromEnv().text((e as Error).message)}\n`);
      return Promise.resolve({ status: 'failed' });
    }
  }

  private finish(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    const out: string[] = [];
    let status: FullResult['status'] | undefined;
    if (this.executions.length > 0) {
      const config = readConfig({ requireKey: false });
      const report = this.buildReport(config.strict, config.destructive, config.runs, result);
      const written = writeConformanceReports(report, config.reportDir, redactorFromEnv());
      out.push(...this.summary(report, config.strict, [written.json, written.junit, written.html]));
      if (written.violations.length > 0) {
        out.push(`✗ ${path.relative(process.cwd(), written.json)} does not match schemas/report.schema.json:`, ...written.violations.map((v) => `    ${v}`));
        status = 'failed';
      }
    }
    out.push(`tests: ${this.tests.passed} passed, ${this.tests.failed} failed, ${this.tests.skipped} skipped`);
    process.stdout.write(`${redactorFromEnv().text(out.join('\n'))}\n`);
    return Promise.resolve(status ? { status } : undefined);
  }

  private buildReport(strict: boolean, destructive: boolean, runs: number, result: FullResult): ConformanceReport {
    let profileName = '?';
    try {
      profileName = loadProfile(readConfig({ requireKey: false }).targetFile).name;
    } catch {
      // the run itself reported the profile error
    }
    // A merge of blob reports happens later: the run's own start time is the better one then.
    const started = result.startTime.getTime() < this.started.getTime() ? result.startTime : this.started;
    return buildConformanceReport({
      executions: this.executions,
      stats: this.stats,
      baseUrl: process.env.ISWC_BASE_URL,
      embedded: process.env.ISWC_EMBEDDED === '1',
      profile: profileName,
      seed: process.env.ISWC_SEED ? Number(process.env.ISWC_SEED) : null,
      runs,
      strict,
      destructive,
      startedAt: started,
      finishedAt: new Date(Math.max(Date.now(), started.getTime() + result.duration)),
    });
  }

  private summary(report: ConformanceReport, strict: boolean, files: string[]): string[] {
    const { byLevel } = report.summary;
    const lines = ['', '─── ISWC conformance ───────────────────────────────────────────'];
    lines.push(`target ${report.meta.baseUrl ?? '?'} · profile ${report.meta.profile} · seed ${report.meta.seed ?? '-'} · ${report.meta.requests} requests`);
    for (const level of ['spec', 'http', 'observed'] as const) {
      const t = byLevel[level];
      lines.push(
        level === 'observed'
          ? `  observed  ${t.observed} recorded (never a failure)`
          : `  ${level.padEnd(8)}  ${t.pass} passed, ${t.fail} failed, ${t.skip} skipped${level === 'http' && !strict && t.fail > 0 ? ' (not gating: set ISWC_STRICT=1)' : ''}`,
      );
    }
    const failing = new Map<string, { sections: string[]; level: string; count: number; first: CheckExecution }>();
    for (const e of report.executions) {
      if (e.verdict !== 'fail') continue;
      const key = `${e.checkId}`;
      const entry = failing.get(key) ?? { sections: e.sections, level: e.level, count: 0, first: e };
      entry.count += 1;
      failing.set(key, entry);
    }
    if (failing.size > 0) {
      lines.push('failing checks:');
      for (const [id, f] of failing) {
        lines.push(`  ✗ ${id} [${f.level}, section ${f.sections.join(', ')}] ×${f.count} — e.g. ${f.first.caseId}: ${f.first.received ?? ''}`.slice(0, 220));
      }
    }
    const skipped = report.executions.filter((e) => e.verdict === 'skip');
    if (skipped.length > 0) lines.push(`skipped: ${skipped.length} check executions, e.g. ${skipped[0]?.caseId}: ${skipped[0]?.skipReason ?? ''}`.slice(0, 220));
    lines.push(`verdict: ${report.summary.verdict}${strict ? ' (strict)' : ''}`);
    const all = Object.values(byLevel).reduce((n, t) => n + t.pass + t.fail + t.skip, 0);
    lines.push(`checks: ${all - byLevel.spec.fail - byLevel.http.fail - byLevel.spec.skip - byLevel.http.skip - byLevel.observed.skip} passed, ${byLevel.spec.fail + byLevel.http.fail} failed, ${byLevel.spec.skip + byLevel.http.skip + byLevel.observed.skip} skipped`);
    lines.push(`reports: ${files.map((f) => path.relative(process.cwd(), f)).join(' · ')}`);
    return lines;
  }
}
