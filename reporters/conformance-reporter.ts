import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import type { CheckExecution } from '../lib/checks/types.ts';
import { gating, readConfig } from '../lib/engine/config.ts';
import type { ConformanceReport } from '../lib/report/model.ts';
import { sortExecutions, tallyByLevel } from '../lib/report/model.ts';
import { HARNESS_VERSION, documentDigest, safeBaseUrl, schemasDigest } from '../lib/report/meta.ts';
import { loadProfile } from '../lib/profile/load.ts';
import { redactorFromEnv } from '../lib/redact.ts';
import type { ExecutionsAttachment } from '../tests/conformance/declare.ts';

const ATTACHMENT = 'iswc-check-executions';

/**
 * Collects the check executions every conformance test attached, writes `reports/conformance.json`,
 * and prints a one-screen summary: checks per level, the failing ones with their section, report paths.
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
      if (attachment.name !== ATTACHMENT || !attachment.body) continue;
      const payload = JSON.parse(attachment.body.toString('utf8')) as ExecutionsAttachment;
      this.executions.push(...payload.executions);
      this.stats.requests += payload.stats.requests;
      this.stats.retries += payload.stats.retries;
      this.stats.waitedMs += payload.stats.waitedMs;
    }
  }

  onEnd(_result: FullResult): void {
    const out: string[] = [];
    if (this.executions.length > 0) {
      const config = readConfig();
      const report = this.buildReport(config.strict, config.destructive, config.runs);
      mkdirSync(config.reportDir, { recursive: true });
      const file = path.join(config.reportDir, 'conformance.json');
      writeFileSync(file, `${JSON.stringify(redactorFromEnv().deep(report), null, 2)}\n`);
      out.push(...this.summary(report, config.strict, file));
    }
    out.push(`tests: ${this.tests.passed} passed, ${this.tests.failed} failed, ${this.tests.skipped} skipped`);
    process.stdout.write(`${out.join('\n')}\n`);
  }

  private buildReport(strict: boolean, destructive: boolean, runs: number): ConformanceReport {
    const executions = sortExecutions(this.executions);
    const byLevel = tallyByLevel(executions);
    const gatingFailures = executions.filter((e) => e.verdict === 'fail' && gating(e.level, strict)).length;
    let profileName = '?';
    try {
      profileName = loadProfile(readConfig().targetFile).name;
    } catch {
      // the run itself reported the profile error
    }
    return {
      meta: {
        harnessVersion: HARNESS_VERSION,
        documentDigest: documentDigest(),
        schemasDigest: schemasDigest(),
        baseUrl: safeBaseUrl(process.env.ISWC_BASE_URL),
        embedded: process.env.ISWC_EMBEDDED === '1',
        profile: profileName,
        seed: process.env.ISWC_SEED ? Number(process.env.ISWC_SEED) : null,
        runs,
        strict,
        destructive,
        startedAt: this.started.toISOString(),
        finishedAt: new Date().toISOString(),
        ...this.stats,
      },
      summary: { byLevel, gatingFailures, verdict: gatingFailures === 0 ? 'conformant' : 'not conformant' },
      executions,
    };
  }

  private summary(report: ConformanceReport, strict: boolean, file: string): string[] {
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
    lines.push(`verdict: ${report.summary.verdict}${strict ? ' (strict)' : ''} · report ${path.relative(process.cwd(), file)}`);
    const all = Object.values(byLevel).reduce((n, t) => n + t.pass + t.fail + t.skip, 0);
    lines.push(`checks: ${all - byLevel.spec.fail - byLevel.http.fail - byLevel.spec.skip - byLevel.http.skip - byLevel.observed.skip} passed, ${byLevel.spec.fail + byLevel.http.fail} failed, ${byLevel.spec.skip + byLevel.http.skip + byLevel.observed.skip} skipped`);
    return lines;
  }
}
