import { existsSync, readFileSync } from 'node:fs';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { shownPath } from '../lib/foundation/paths.ts';
import type { CheckExecution } from '../lib/run/execution.ts';
import { config as runConfig } from '../lib/config/config.ts';
import { runContext } from '../lib/config/run-context.ts';
import type { RunConfig } from '../lib/config/config.ts';
import { buildConformanceReport } from '../lib/report/build.ts';
import { runNetwork } from '../lib/report/meta.ts';
import type { ConformanceReport, RunFigures } from '../lib/report/model.ts';
import type { RunStats } from '../lib/report/build.ts';
import { figuresOf, figuresText } from '../lib/report/figures.ts';
import { keptReportLine, writeConformanceReports } from '../lib/report/write.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import type { TargetProfile } from '../lib/contract/profile/types.ts';
import { redactorFromEnv } from '../lib/foundation/redact.ts';
import type { ExecutionsAttachment } from '../lib/report/attachment.ts';
import { EXECUTIONS_ATTACHMENT } from '../lib/report/attachment.ts';
import type { ReplayTarget } from '../lib/report/identity.ts';
import { replayCommand, replayFilesOf, replayTargetOf } from '../lib/report/identity.ts';
import { deviations, deviationsHeadline } from '../lib/report/deviations.ts';
import { formatsLabel } from '../lib/contract/profile/types.ts';
import { utcDay } from '../lib/report/waivers/apply.ts';
import { runWaivers } from '../lib/report/waivers/run.ts';
import { endedEarly, interruptedBy, interruptionReason } from '../lib/foundation/interrupt.ts';
import { engineProgress, engineVerdicts } from '../lib/engine/progress.ts';
import { INTERRUPTED_PREFIX } from '../lib/engine/deferred-failures.ts';
import { firstHalt } from '../lib/report/outcome.ts';
import { plural } from '../lib/report/verdict.ts';
import { waiverFiguresText } from '../lib/report/waivers/figures.ts';
import type { RunHalt } from '../lib/report/outcome.ts';
import type { ConsumedEntry, ConsumptionAttached, EntryNamer } from '../lib/report/consumed.ts';
import { consumedByThisRun, mergedConsumption, profileEntryNamer } from '../lib/report/consumed.ts';
import { notRunExecutions, readLeftOutExecutions } from '../lib/run/plan-file.ts';

/** The attachment's bytes: in memory in a live run; a body or a file when replayed by `merge-reports`. */
function attachmentText(attachment: TestResult['attachments'][number]): string | undefined {
  if (attachment.body) return attachment.body.toString('utf8');
  if (attachment.path && existsSync(attachment.path)) return readFileSync(attachment.path, 'utf8');
  return undefined;
}

/**
 * A run of the harness's own quick tier (projects unit or browser) that found no test, as `npm test --
 * tests/unit/signals.spec.ts` does: the file's tests are tagged @e2e, which those projects leave out. Says
 * where they are, beside Playwright's "No tests found"; nothing for any other run.
 */
export function tierHint(argv: readonly string[], testsFound: number): string | undefined {
  if (testsFound > 0) return undefined;
  const projects = argv.flatMap((a, i) => (a.startsWith('--project=') ? [a.slice('--project='.length)] : a === '--project' && argv[i + 1] !== undefined ? [argv[i + 1] ?? ''] : []));
  if (!projects.some((p) => p === 'unit' || p === 'browser') || projects.includes('e2e')) return undefined;
  return 'no test found in the projects run: a test tagged @e2e, and the docs run as written, are in the second tier, npm run test:e2e (CONTRIBUTING.md, "Two tiers")';
}

/**
 * The summary's line per level, in check executions (one check on one answer), never checks or cases:
 * "every spec check exercised" can stand beside skipped executions. Every level says its skipped
 * executions, so that they add up to the figure of the summary's last line.
 */
export function levelLines(byLevel: ConformanceReport['summary']['byLevel'], strict: boolean): string[] {
  return (['spec', 'http', 'observed'] as const).map((level) => {
    const t = byLevel[level];
    if (level === 'observed') return `  observed  ${t.observed} recorded (never a failure)${t.skip > 0 ? `, ${t.skip} skipped check executions` : ''}`;
    return `  ${level.padEnd(8)}  ${t.pass} passed, ${t.fail} failed, ${t.waived ? `${t.waived} waived, ` : ''}${t.skip} skipped check executions${level === 'http' && !strict && t.fail > 0 ? ' (not gating: set ISWC_STRICT=1)' : ''}`;
  });
}

/**
 * Collects the check executions every conformance test attached and writes, from that one model,
 * `conformance.json` (validated against schemas/report.schema.json), `conformance-junit.xml` (one
 * testcase per check execution) and the self-contained `conformance.html`; then prints a one-screen
 * summary: checks per level, the failing ones with their section, the waived ones with their reason,
 * expired and unused waivers, the spec checks a partial run did not exercise, the path of each report.
 * Works the same on a live run and on `npx playwright merge-reports` of blob reports (sharded runs):
 * blob reports keep the attachments. Waivers (ISWC_WAIVERS) are applied when the report is built, on
 * the day the tests judged them (recorded in the attachments), so shards and merges agree.
 * Fails the run when the written report does not match its schema, and with ISWC_REQUIRE_ALL=1 when a
 * spec check was not exercised.
 */
export default class ConformanceReporter implements Reporter {
  private executions: CheckExecution[] = [];
  private stats = { requests: 0, retries: 0, waitedMs: 0 };
  /** The last figures each run's tests attached (cumulative), by run: what a merge of shards adds up. */
  private runFigures = new Map<string, RunFigures>();
  private tests = { passed: 0, failed: 0, interrupted: 0, skipped: 0 };
  private started = new Date();
  /** The days the tests judged waiver expiry against (one, unless a merge mixes runs). */
  private waiverDates = new Set<string>();
  /** Why the run stopped sending, as the tests' attachments say (one per test that ended after it). */
  private halts: RunHalt[] = [];
  /** The consumption of disposable entries the tests' attachments say (lib/report/consumed.ts): what a merge of shards records. */
  private consumptions: ConsumptionAttached[] = [];
  private mergedConsumption: { ledger: ConsumedEntry[]; reason?: string } | undefined;
  /** The executions of the cases the plan left out (no test stands for them). */
  private leftOut: CheckExecution[] | undefined;
  /** Why tests outside the conformance suite were skipped (a browser check without Chromium), with how many. */
  private readonly skipReasons = new Map<string, number>();
  /** The run has conformance tests (json, xml): it writes the reports even when interrupted before any ended. */
  private conformanceTests = 0;
  /** The conformance tests the run selected that have not handed in their executions (yet), by project and title. */
  private pending = new Map<string, { project: string; title: string }>();
  /** The run's plan file (a live run) as it was at the start: the global teardown removes the file before the end. */
  private planCopy: string | undefined;
  /** Tests the run selected, of every project. */
  private testsFound = 0;

  printsToStdio(): boolean {
    return true;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    this.started = new Date();
    const tests = suite.allTests();
    this.testsFound = tests.length;
    const conformance = tests.filter((t) => ['json', 'xml'].includes(t.parent.project()?.name ?? ''));
    this.conformanceTests = conformance.length;
    for (const t of conformance) this.pending.set(`${t.parent.project()?.name ?? ''}\u0001${t.title}`, { project: t.parent.project()?.name ?? '', title: t.title });
    // A live run: the plan file of the global setup (removed at its teardown, before onEnd).
    const planFile = runContext()?.planFile;
    if (planFile && existsSync(planFile)) {
      this.leftOut = readLeftOutExecutions(planFile);
      this.planCopy = readFileSync(planFile, 'utf8');
    }
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status === 'passed') this.tests.passed += 1;
    else if (result.status === 'skipped') {
      this.tests.skipped += 1;
      // Tests of the harness itself (not the conformance suite, whose skips the summary gives by case) say why they were skipped.
      const project = test.parent.project()?.name ?? '';
      if (project !== 'json' && project !== 'xml') {
        // Without a description it was not run (a failed hook before it: the failure says why) or skipped without one.
        const reason = [...test.annotations, ...result.annotations].find((a) => a.type === 'skip')?.description;
        if (reason) this.skipReasons.set(`[${project}] ${reason}`, (this.skipReasons.get(`[${project}] ${reason}`) ?? 0) + 1);
      }
    }
    // A test a signal cut short failed nothing: counted apart, as the headline says (interrupted, exit 130).
    else if (result.status === 'interrupted' || result.errors.some((e) => e.message?.startsWith(INTERRUPTED_PREFIX) === true)) this.tests.interrupted += 1;
    else if (test.outcome() !== 'flaky') this.tests.failed += 1;
    for (const attachment of result.attachments) {
      if (attachment.name !== EXECUTIONS_ATTACHMENT) continue;
      const text = attachmentText(attachment);
      if (text === undefined) continue;
      this.handIn(`${test.parent.project()?.name ?? ''}\u0001${test.title}`, JSON.parse(text) as ExecutionsAttachment);
    }
  }

  /** What one test of the conformance suite showed: its executions, figures and halt. */
  private handIn(test: string, payload: ExecutionsAttachment): void {
    this.pending.delete(test);
    this.executions.push(...payload.executions);
    this.stats.requests += payload.stats.requests;
    this.stats.retries += payload.stats.retries;
    this.stats.waitedMs += payload.stats.waitedMs;
    if (payload.waiverDate) this.waiverDates.add(payload.waiverDate);
    if (payload.halt) this.halts.push(payload.halt);
    if (payload.consumption) this.consumptions.push(payload.consumption);
    if (payload.figures) {
      const { run, ...figures } = payload.figures;
      const seen = this.runFigures.get(run);
      if (!seen || figures.sent >= seen.sent) this.runFigures.set(run, figures);
    }
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    try {
      // A merge of shards in another process: the plan is deterministic, so it is computed again.
      if (this.leftOut === undefined && this.executions.length > 0) this.leftOut = await leftOutFromConfig(runConfig());
      return await this.finish(result);
    } catch (e) {
      // A reporter that fails quietly loses the run's verdict: say why, and fail the run.
      process.stderr.write(`iswc-conformance reporter: could not write the reports: ${redactorFromEnv().text((e as Error).message)}\n`);
      return Promise.resolve({ status: 'failed' });
    }
  }

  private finish(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    const out: string[] = [];
    let status: FullResult['status'] | undefined;
    const halt = this.halt(result);
    // Tests the engine ran ahead and judged before a stop, which Playwright did not get to end: what they showed.
    if (halt) for (const v of engineVerdicts()) if (this.pending.has(`${v.project}\u0001${v.title}`)) this.handIn(`${v.project}\u0001${v.title}`, JSON.parse(v.attachmentBody) as ExecutionsAttachment);
    // Tests a stop kept from running (or cut short): their cases are listed, not sent, with the run's reason.
    const notRun = halt && this.planCopy !== undefined && this.pending.size > 0 ? this.notRun([...this.pending.values()], halt.reason) : [];
    const executions = [...this.executions, ...(this.leftOut ?? []), ...notRun];
    if (this.executions.length > 0 || this.conformanceTests > 0) {
      const config = runConfig();
      const report = this.buildReport(config, result, executions);
      const written = writeConformanceReports(report, config.reportDir, redactorFromEnv());
      if (written.kept !== undefined) out.push(keptReportLine(written.kept, (f) => shownPath(f)));
      out.push(...this.summary(report, config.strict, config.requireAll, [written.json, written.junit, written.html]));
      if (written.violations.length > 0) {
        out.push(`✗ ${shownPath(written.json)} does not match schemas/report.schema.json:`, ...written.violations.map((v) => `    ${v}`));
        status = 'failed';
      }
      const missing = report.summary.coverage.notExercised;
      if (config.requireAll && missing.length > 0) {
        out.push(`✗ ISWC_REQUIRE_ALL=1: ${missing.length} spec check(s) not exercised: ${missing.map((n) => n.checkId).join(', ')}`);
        status = 'failed';
      }
    }
    out.push(`tests: ${this.tests.passed} passed, ${this.tests.failed} failed, ${this.tests.interrupted > 0 ? `${this.tests.interrupted} interrupted, ` : ''}${this.tests.skipped} skipped`);
    for (const [reason, count] of this.skipReasons) out.push(`  skipped ×${count}: ${reason}`);
    const hint = tierHint(process.argv, this.testsFound);
    if (hint !== undefined) out.push(hint);
    process.stdout.write(`${redactorFromEnv().text(out.join('\n'))}\n`);
    return Promise.resolve(status ? { status } : undefined);
  }

  /** The skipped executions of tests that never handed theirs in, from the plan the run had (read at its start). */
  private notRun(tests: ReadonlyArray<{ project: string; title: string }>, reason: string): CheckExecution[] {
    return this.planCopy === undefined ? [] : notRunExecutions(this.planCopy, tests, `not sent: ${reason}`);
  }

  /** Why the run stopped sending, if it did: the tests' attachments, the engine of this process, the signal. */
  private halt(result: FullResult): RunHalt | undefined {
    const signal = interruptedBy();
    // A run that ended itself (the target unusable) was not interrupted: the engine's halt says why it stopped.
    const byUs = signal === undefined && endedEarly() !== undefined;
    const interrupted: RunHalt | undefined = (result.status === 'interrupted' && !byUs) || signal !== undefined ? { kind: 'interrupted', reason: interruptionReason() ?? `interrupted by ${signal ?? 'SIGINT'}` } : undefined;
    // The engine's own halt first, then the tests' latest: a budget halt attached by an early test counts the
    // requests sent by then, and later cases that fitted in what was left sent more. Disposable entries an
    // earlier run consumed (lib/report/consumed.ts) outweigh a partial run's end (budget, time limit): what
    // they leave unjudged is what the user must act on; a target unusable or a signal outweighs them.
    const live = engineProgress();
    const halt = firstHalt([live?.halt, ...[...this.halts].reverse(), interrupted]);
    const consumed = live ? live.consumedReason : this.merged()?.reason;
    if (consumed !== undefined && (halt === undefined || halt.kind === 'budget' || halt.kind === 'max-duration')) return { kind: 'data-consumed', reason: consumed };
    return halt;
  }

  /**
   * In a merge of shards: the consumption the tests attached, each shard's added up (undefined when none
   * attached any). Asked for once every test has ended (the outcome, then the report), so worked out once.
   */
  private merged(): { ledger: ConsumedEntry[]; reason?: string } | undefined {
    if (this.consumptions.length === 0) return undefined;
    this.mergedConsumption ??= mergedConsumption(this.consumptions, this.entryNamer());
    return this.mergedConsumption;
  }

  /** Names a disposable entry by its place in the run's profile (`submissions[1]`), or by what it holds. */
  private entryNamer(): EntryNamer {
    try {
      return profileEntryNamer(loadProfile(runConfig().targetFile));
    } catch {
      // the run itself reported the profile error: the entries are named by what they hold
      return (kind, entry) => `${kind} ${JSON.stringify(entry)}`;
    }
  }

  /**
   * The run's figures: in a live run, the engine's own (what reached the target, the requests of tests a
   * signal cut short included); in a merge of shards, each run's last attached figures, added up.
   */
  private figures(): RunStats {
    const live = engineProgress();
    const runs = live ? [live] : [...this.runFigures.values()];
    if (runs.length === 0) return this.stats;
    const sum = (pick: (f: RunFigures) => number): number => runs.reduce((n, f) => n + pick(f), 0);
    return { requests: sum((f) => f.sent), retries: sum((f) => f.retried), answered: sum((f) => f.answered), planned: sum((f) => f.planned), waitedMs: sum((f) => f.waitedMs) };
  }

  private buildReport(config: RunConfig, result: FullResult, executions: CheckExecution[]): ConformanceReport {
    let profile: TargetProfile | undefined;
    try {
      profile = loadProfile(config.targetFile);
    } catch {
      // the run itself reported the profile error
    }
    // A merge of blob reports happens later: the run's own start time is the better one then.
    const started = result.startTime.getTime() < this.started.getTime() ? result.startTime : this.started;
    const waivers = runWaivers(config.waivers);
    const waiverDate = [...this.waiverDates].sort()[0] ?? utcDay(started);
    // A live run has the context its global setup made; a merge of blob reports in another process has not.
    const context = runContext();
    const halt = this.halt(result);
    // What this run consumed, and what earlier runs did that it passes on (lib/report/consumed.ts): a live
    // run's engine says it; a merge of shards adds up what the shards' tests attached.
    const live = engineProgress();
    const consumed = live ? live.consumed : this.merged()?.ledger;
    return buildConformanceReport({
      executions,
      stats: this.figures(),
      baseUrl: context?.baseUrl ?? config.baseUrl,
      embedded: context?.embedded ?? false,
      profile: profile?.name ?? '?',
      ...(profile ? { targetProfile: profile } : {}),
      seed: context?.seed ?? config.seed ?? null,
      runs: config.runs,
      strict: config.strict,
      destructive: config.destructive,
      startedAt: started,
      finishedAt: new Date(Math.max(Date.now(), started.getTime() + result.duration)),
      ...(waivers ? { waivers: { set: waivers, date: waiverDate } } : {}),
      plan: {
        name: config.plan,
        budget: config.budget ?? null,
        ...(config.budget !== undefined && config.plan !== 'smoke' ? { slice: config.slice ?? 0 } : {}),
        // What the cases this run sent whole tried of the catalogue: only the run's own engine knows (not a merge of shards).
        ...(live?.tried ? { tried: live.tried.faults, catalogue: live.tried.catalogue } : {}),
      },
      network: runNetwork(config.network, config.headers),
      ...(halt ? { halt } : {}),
      ...(consumed ? { consumed } : {}),
      requireAll: config.requireAll,
      replay: replayFilesOf(config),
    });
  }

  private summary(report: ConformanceReport, strict: boolean, requireAll: boolean, files: string[]): string[] {
    const { byLevel, coverage, waivers } = report.summary;
    const lines = ['', '─── ISWC conformance ───────────────────────────────────────────'];
    const only = report.meta.formats ? formatsLabel({ formats: report.meta.formats }) : undefined;
    lines.push(`target ${report.meta.baseUrl ?? '?'} · profile ${report.meta.profile}${only ? ` (${only})` : ''} · seed ${report.meta.seed ?? '-'}`);
    lines.push(`requests: ${figuresText(figuresOf(report.meta))}`);
    const outcome = report.summary.outcome;
    if (outcome && outcome.status !== 'completed') lines.push(outcomeLine(outcome.status, outcome.reason ?? '', report.meta.requests));
    lines.push(...levelLines(byLevel, strict));
    // The headline counts deviations (a check failing on an operation), never the requests behind them.
    const failing = deviations(report.executions, 'fail');
    if (failing.length > 0 || report.executions.some((e) => e.verdict === 'waived')) lines.push(deviationsHeadline(report.executions));
    if (failing.length > 0) {
      lines.push(
        outcome?.status === 'target-unusable'
          ? 'failing checks before the run stopped (with the target unusable, they may be only its symptoms):'
          : outcome?.status === 'interrupted'
            ? 'failing checks before the run stopped:'
            : 'failing checks:',
      );
      for (const f of failing) {
        lines.push(line(`  ✗ ${f.checkId} [${f.level}, section ${f.first.sections.join(', ')}] on ${f.operation ?? 'requests outside the document'} ×${f.count} — e.g. ${f.first.caseId}: ${f.first.received ?? ''}`, 220));
        const hint = replayHint(report.executions.filter((e) => e.verdict === 'fail' && e.checkId === f.checkId && (e.operation ?? null) === f.operation), replayTargetOf(report.meta, shownPath(files[0] ?? 'conformance.json')));
        if (hint) lines.push(hint);
      }
      const consumedHint = engineProgress()?.consumedHint;
      if (consumedHint !== undefined) lines.push(`  ? ${consumedHint}`);
      // A base URL without --target: the default profile names the embedded server's data, which another target lacks.
      if (!report.meta.embedded && report.meta.replay?.target === undefined && outcome?.status !== 'target-unusable') {
        lines.push(`  ? no --target: the run used the embedded profile (${DEFAULT_PROFILE}), whose data only the reference server holds (\`iswc-conformance server\`); for a target that holds other data, describe it in a profile and pass --target (docs/target-profile.md), or these refusals may be only that`);
      }
    }
    const waived = groupByCheck(report.executions.filter((e) => e.verdict === 'waived'), (e) => `${e.checkId}\u0001${e.waiver?.index ?? ''}`);
    if (waived.size > 0) {
      lines.push('waived checks (known deviations, not gating):');
      // In the order of the waivers file; each reason in full, as its author wrote it.
      for (const f of [...waived.values()].sort((a, b) => (a.first.waiver?.index ?? 0) - (b.first.waiver?.index ?? 0))) {
        const w = f.first.waiver;
        const covers = waivers?.entries.find((u) => u.index === w?.index)?.covers;
        lines.push(`  ~ ${f.first.checkId} [${f.first.level}, section ${f.first.sections.join(', ')}] ×${f.count} — ${w ? `waiver ${w.index}${covers ? ` (${covers})` : ''}: ${w.reason} (until ${w.until})` : 'waived'}`);
      }
    }
    if (waivers) {
      // The one figure for waivers (lib/report/waivers/figures.ts), the same in every report.
      lines.push(`waivers of ${waivers.file}: ${waiverFiguresText(waivers.figures)}`);
      const heading: Record<'expired' | 'unused' | 'not exercised', string> = {
        expired: `expired waivers in ${waivers.file} (their failures gate again):`,
        unused: `unused waivers in ${waivers.file} (their check ran on the operation and cases they name, and nothing matched: remove them if the deviation is fixed):`,
        'not exercised': `waivers not exercised in ${waivers.file} (their check never ran on the operation and cases they name in this run: keep them):`,
      };
      for (const status of ['expired', 'unused', 'not exercised'] as const) {
        const list = waivers.entries.filter((w) => w.status === status);
        if (list.length === 0) continue;
        lines.push(heading[status]);
        for (const w of list) lines.push(`  ${status === 'not exercised' ? '-' : '!'} waiver ${w.index} (line ${w.line}) ${w.covers}, until ${w.until}${status === 'not exercised' ? '' : `: ${w.reason}`}`);
      }
      const missed = waivers.entries.filter((w) => w.missed > 0);
      for (const w of missed) lines.push(`  ✗ waiver ${w.index} (line ${w.line}) covers ${w.covers}: ${plural(w.missed, 'failure')} of its check looked otherwise and fail the run (see "not waived" above)`);
    }
    // Not sent: one line per reason with the number of cases, never one per check execution.
    const skippedCases = new Map<string, Set<string>>();
    for (const e of report.executions.filter((x) => x.verdict === 'skip')) {
      const reason = e.skipReason ?? 'skipped';
      skippedCases.set(reason, (skippedCases.get(reason) ?? new Set<string>()).add(`${e.caseId}\u0001${e.format}`));
    }
    const reasons = [...skippedCases.entries()].map(([reason, cases]): [string, number] => [reason, cases.size]);
    // A profile's lack of data matters only for the spec checks it leaves unexercised: when it leaves none
    // (every one was exercised, or one the run left out had a case with its entries: a budget, a run
    // stopped), the cases it held back are said in one line, as the optional additions they are.
    const dataLeavesOut = coverage.notExercised.some((n) => n.reasons.some((r) => /^needs /.test(r)));
    const lacking = !dataLeavesOut ? [...skippedCases.entries()].filter(([reason]) => /^needs /.test(reason)) : [];
    if (lacking.length > 0) {
      const why = coverage.notExercised.length === 0 ? 'every spec check was exercised' : 'every spec check left out had a case with its entries, which the run did not send';
      reasons.splice(0, reasons.length, ...reasons.filter(([reason]) => !/^needs /.test(reason)));
      reasons.push([`more profile data would add these cases, not checks: ${why} (optional; npx iswc-conformance profile check says what each entry adds)`, new Set(lacking.flatMap(([, cases]) => [...cases])).size]);
    }
    if (reasons.length > 0) {
      lines.push('not sent or not judged (cases, by reason):');
      reasons.sort((a, b) => b[1] - a[1]);
      for (const [reason, count] of reasons.slice(0, 6)) lines.push(line(`  ${String(count).padStart(4)} × ${reason}`, 240));
      if (reasons.length > 6) lines.push(`       … and ${reasons.length - 6} other reasons (conformance.json, conformance.html)`);
    }
    if (coverage.notExercised.length > 0 && outcome?.status === 'target-unusable') {
      // The reason is the headline's: one line, not one per check.
      lines.push(`spec checks not exercised: ${coverage.notExercised.length} of ${coverage.specChecks} (the run stopped: see above)`);
    } else if (coverage.notExercised.length > 0) {
      lines.push(`spec checks not exercised (${coverage.notExercised.length} of ${coverage.specChecks}; this is a partial run${requireAll ? '' : ', ISWC_REQUIRE_ALL=1 makes it fail'}):`);
      for (const n of coverage.notExercised) lines.push(line(`  - ${n.checkId} [section ${n.sections.join(', ')}]: ${n.reasons.join('; ')}`, 300));
    }
    lines.push(`verdict: ${report.summary.verdictText}${strict ? ' (strict)' : ''}`);
    const all = Object.values(byLevel).reduce((n, t) => ({ pass: n.pass + t.pass, fail: n.fail + t.fail, skip: n.skip + t.skip, waived: n.waived + t.waived }), { pass: 0, fail: 0, skip: 0, waived: 0 });
    // Skipped executions are counted as the cases not sent (above), never as hundreds of skipped checks.
    const notSent = new Set(report.executions.filter((e) => e.verdict === 'skip').map((e) => `${e.caseId}\u0001${e.format}`)).size;
    lines.push(`checks: ${all.pass} passed, ${all.fail} failed${all.waived ? `, ${all.waived} waived` : ''}${notSent > 0 ? `; ${notSent} case${notSent === 1 ? '' : 's'} not sent or not judged (${all.skip} check executions, by reason above)` : ''}`);
    // The report's ledger carries what earlier runs consumed too: this run's entries bear its start.
    const startedAt = runContext()?.startedAt;
    const consumedNow = report.meta.embedded || startedAt === undefined ? undefined : consumedByThisRun((report.meta.consumed ?? []).filter((c) => c.at === startedAt), shownPath(files[0] ?? 'conformance.json'), this.entryNamer());
    if (consumedNow !== undefined) lines.push(`consumed: ${consumedNow}`);
    lines.push(`reports: ${files.map((f) => shownPath(f)).join(' · ')}`);
    if (outcome) lines.push(`exit code: ${outcome.exitCode} (${outcome.status === 'data-consumed' && outcome.exitCode === 3 ? "the profile's disposable data is consumed" : EXIT_MEANING[outcome.exitCode]})`);
    return lines;
  }
}

/** Under a failing check: the replay command of its first failure, and the ids of a few others. */
function replayHint(failures: readonly CheckExecution[], replay: ReplayTarget): string | undefined {
  const ids = failures.map((e) => e.failureId).filter((id): id is string => id !== undefined);
  const [first, ...others] = ids;
  if (first === undefined) return undefined;
  const more = others.length > 3 ? `, … ${others.length - 3} more in the HTML report` : '';
  return `      failure ${first}: ${replayCommand(first, replay)}${others.length > 0 ? `  (other failures: ${others.slice(0, 3).join(', ')}${more})` : ''}`;
}

/** A console line of at most `max` characters: one cut ends in an ellipsis (the reports hold it whole). */
function line(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The profile a run without --target uses, as a user types it. */
const DEFAULT_PROFILE = 'fixtures/targets/embedded.json';

/** What the exit code of the run says (the words of every --help). */
const EXIT_MEANING: Record<number, string> = { 0: 'conformant', 1: 'not conformant', 3: 'target unusable', 130: 'interrupted' };

/** The headline of a run that did not complete its plan. */
function outcomeLine(status: string, reason: string, requests: number): string {
  if (status === 'target-unusable') return `✗ TARGET UNUSABLE: ${reason}. Nothing more was sent after ${requests} request(s).`;
  if (status === 'interrupted') return `✗ INTERRUPTED: ${reason} after ${requests} request(s); nothing was sent after the signal. The reports hold what was done.`;
  if (status === 'budget') return `! PARTIAL RUN: ${reason}. The checks not exercised are listed below.`;
  if (status === 'data-consumed') return `✗ DISPOSABLE DATA CONSUMED: ${reason}. Their cases' refusals were not judged.`;
  return `! PARTIAL RUN: ${reason}; ${requests} request(s) sent. The checks not exercised are listed below.`;
}

/** The executions of the cases the plan leaves out, from the configuration (a merge of shard reports). */
async function leftOutFromConfig(config: RunConfig): Promise<CheckExecution[]> {
  try {
    const { planSuite, suiteOptionsFrom } = await import('../lib/run/plan.ts');
    const { plannedLeftOutExecutions } = await import('../lib/run/plan-file.ts');
    return plannedLeftOutExecutions(await planSuite(loadProfile(config.targetFile), suiteOptionsFrom(config)));
  } catch {
    // An unreadable profile is reported where it is read; the report then lists what the tests did.
    return [];
  }
}

/** Executions grouped by check (or another key), in order of first appearance, with a count and the first one. */
function groupByCheck(executions: readonly CheckExecution[], key: (e: CheckExecution) => string = (e) => e.checkId): Map<string, { count: number; first: CheckExecution }> {
  const out = new Map<string, { count: number; first: CheckExecution }>();
  for (const e of executions) {
    const k = key(e);
    const entry = out.get(k) ?? { count: 0, first: e };
    entry.count += 1;
    out.set(k, entry);
  }
  return out;
}
