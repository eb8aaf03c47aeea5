import path from 'node:path';
import { gating } from '../check/gating.ts';
import { createJudge } from '../check/judge.ts';
import { keySourceDbs } from '../contract/agency.ts';
import type { RunConfig } from '../config/config.ts';
import { OPERATION_LABEL } from '../contract/operations.ts';
import { sectionsText } from '../report/view.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import { reusableRun } from '../contract/profile/types.ts';
import { shownPath } from '../foundation/paths.ts';
import { Consumption, earlierConsumption, profileEntryNamer } from '../report/consumed.ts';
import { redactorFromEnv } from '../foundation/redact.ts';
import type { AllureData, ExecutionsAttachment } from '../report/attachment.ts';
import { describeFailure, describeWaived } from '../report/failure-text.ts';
import type { ReplayTarget } from '../report/identity.ts';
import { replayFilesOf } from '../report/identity.ts';
import { applyWaivers } from '../report/waivers/apply.ts';
import { runDay, runWaivers } from '../report/waivers/run.ts';
import type { CheckExecution } from '../run/execution.ts';
import { createHttpClient } from '../run/http/client.ts';
import type { RunClient } from '../run/http/client.ts';
import { localGate } from '../run/http/pacer.ts';
import { targetClientOptions } from '../run/http/target-client.ts';
import type { Gate } from '../run/http/pacer.ts';
import type { PlannedTest } from '../run/plan-file.ts';
import type { PlannedCase } from '../run/planned.ts';
import { catalogueFingerprint, triedFaults } from '../run/tried.ts';
import type { RanCase } from '../run/tried.ts';
import { inParallel, runPlannedCase } from '../run/runner.ts';
import type { CaseOutcome } from '../run/runner.ts';
import type { GroupVerdict } from './protocol.ts';
import type { RunHalt } from '../report/outcome.ts';
import { estimatedRequests } from '../run/budget.ts';
import { BudgetGate } from '../run/budget-gate.ts';
import type { CaseRun } from '../run/case-run.ts';
import type { RunSettings } from '../run/runner.ts';
import type { RunFigures } from '../report/model.ts';
import { randomUUID } from 'node:crypto';
import { PROGRESS_SLOT, VERDICTS_SLOT } from './progress.ts';
import type { RestoreOutcome } from '../run/restore.ts';
import { probesFirst, Steering } from '../run/steer.ts';
import type { CaseFormat, Step } from '../generate/case.ts';
import type { Exchange } from '../contract/exchange.ts';
import type { EngineProgress, JudgedVerdict } from './progress.ts';

/** Cases in flight at once over the whole run (each case keeps its own steps in order). */
const CONCURRENCY = 4;
/** Tests run ahead of the ones Playwright asked for, when the run's selection is known. */
const LOOKAHEAD = 6;

/** Where the global setup leaves the run's engine for the deferred-failures reporter (same process). */
export const ENGINE_SLOT = Symbol.for('iswc-conformance.run-engine');

/** The engine as the reporter sees it: it tells the engine which tests this run selected, in order. */
export interface SelectableEngine {
  select(tests: ReadonlyArray<{ project: string; title: string }>): void;
}

/** At most `limit` tasks at once. */
class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly limit: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await task();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}

const SEVERITY = { spec: 'critical', http: 'normal', observed: 'trivial' } as const;

export interface EngineSetup {
  cfg: Readonly<RunConfig>;
  profile: TargetProfile;
  /** The target actually used (the embedded server's URL when none was given). */
  baseUrl: string;
  seed: number;
  /** ISO time the run started: waivers are judged on its UTC day. */
  startedAt: string;
  /** The circuit breaker's file: once the target is found unusable, nothing more is sent. */
  breakerFile: string;
  /** Every planned case of the run. */
  planned: readonly PlannedCase[];
  /** The tests of the conformance projects (lib/run/plan-file.ts), to run ahead once the run's selection is known. */
  tests: readonly PlannedTest[];
  /** Requests per second over the whole run, or null for no limit. */
  rate: number | null;
  /** --max-duration (ISWC_MAX_DURATION): the engine stops sending once the run has lasted this long. */
  maxDurationMs?: number;
  /** How --max-duration was written (for the reason every skipped case carries), e.g. "20m". */
  maxDurationText?: string;
  /** The shard this run is (--shard I/N), when it is one: it takes its share of the budget. */
  shard?: { current: number; total: number };
}



/**
 * The run's engine: one HTTP client (one pool, one rate, one circuit breaker), one judge and one
 * redactor for the whole run, in the process that runs the global setup. The Playwright tests ask it to
 * run their cases (lib/engine/service.ts) and only report what it found, so a test costs a worker no
 * module, no validator and no connection of its own, and a worker that Playwright replaces costs little.
 *
 * Once the deferred-failures reporter has told it which tests the run selected (`select`, after
 * `--grep`, `--shard` and the project filter), it runs the next few of them ahead while the workers do
 * Playwright's bookkeeping, never a test that was not selected. Without that list it runs a test's cases
 * when the test asks.
 */
export class RunEngine implements SelectableEngine {
  private readonly byKey: Map<string, PlannedCase>;
  private readonly client: RunClient;
  private readonly gate: Gate | undefined;
  private readonly judge;
  private readonly redact = redactorFromEnv();
  /** The circuit breaker's trip has been reported by a test (only one test fails for it). */
  private tripReported = false;
  private readonly cases = new Semaphore(CONCURRENCY);
  /** Tests started (ahead, or because a test asked) and not yet collected, by their keys. */
  private readonly started = new Map<string, Promise<GroupVerdict>>();
  /**
   * The verdict of every test run, kept for the run's end: on a stop, the reporter writes those of the tests
   * Playwright did not get to end, run ahead or collected just before the signal (their requests were sent
   * and judged; lib/engine/progress.ts). The reporter holds as much of them already.
   */
  private readonly verdicts = new Map<string, GroupVerdict>();
  /** Selected tests not started yet, in the order Playwright runs them. */
  private ahead: string[][] = [];
  /** Requests the selected tests are estimated to send. */
  private planned: number;
  /** Gating failures so far. */
  private failures = 0;
  /** Why the run was stopped (a signal, the time limit), once it was. */
  private halted: RunHalt | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private readonly startedAtMs = performance.now();
  /** The request budget, case by case (ISWC_BUDGET), when the run has one. */
  private readonly budget: BudgetGate | undefined;
  /** Why a case was left out for the budget, once one was. */
  private budgetStop: string | undefined;
  /** Names this run's figures in the attachments, so that a merge of shards adds runs up, never tests. */
  private readonly runId = randomUUID();
  /** Under a request budget: what the answers show of the target steers the rest of it (lib/run/steer.ts). */
  private readonly steering: Steering | undefined;
  /** Changes to disposable entries the cases undid, and whether each was shown undone (a reusable profile). */
  private readonly restored: RestoreOutcome[] = [];
  /** Disposable entries this run consumes, and those an earlier run against the target consumed (lib/report/consumed.ts). */
  readonly consumption: Consumption;
  /** Tests being run (started and not ended), and of them those whose cases wait for the run's end. */
  private executing = 0;
  private parked = 0;
  /** The run's end (CaseContext.atRunEnd): open once every test is run but those waiting for it, or the run stopped. */
  private runEndOpen = false;
  private openRunEndNow: () => void = () => undefined;
  private readonly runEnd = new Promise<void>((resolve) => {
    this.openRunEndNow = resolve;
  });

  /** The cases that ran, as they ran (lib/run/tried.ts). */
  private readonly ran: RanCase[] = [];

  constructor(private readonly setup: EngineSetup) {
    this.byKey = new Map(setup.planned.map((p) => [p.key, p]));
    this.planned = this.requestsOf(setup.tests.flatMap((t) => t.keys));
    this.gate = setup.rate === null ? undefined : localGate(setup.rate);
    const { cfg } = setup;
    this.client = createHttpClient({
      ...targetClientOptions(setup.baseUrl, cfg, setup.profile.agency, { unresponsiveFile: setup.breakerFile, ...(this.gate ? { beforeSend: this.gate } : {}) }),
      ...(cfg.budget !== undefined ? { budget: cfg.budget } : {}),
    });
    this.budget = cfg.budget !== undefined ? new BudgetGate(cfg.budget, () => this.client.progress().sent) : undefined;
    const gate = this.budget;
    this.steering =
      gate && cfg.plan !== 'smoke'
        ? new Steering(
            setup.planned,
            setup.profile.unknownIswcs,
            () => gate.budget,
            () => gate.committed(),
            (p) => estimatedRequests(p, p.runs ?? cfg.runs),
          )
        : undefined;
    this.judge = createJudge({ strict: cfg.strict, agency: setup.profile.agency, sourceDbs: keySourceDbs(setup.profile) });
    // The report this run replaces, read before it is: what an earlier run against the same target consumed.
    // The embedded server starts afresh with each run: nothing of it is ever consumed.
    this.consumption = new Consumption(
      cfg.destructive && !cfg.embedded && !reusableRun(setup.profile, cfg.destructive),
      cfg.embedded ? undefined : earlierConsumption(path.join(cfg.reportDir, 'conformance.json'), setup.baseUrl),
      setup.startedAt,
      profileEntryNamer(setup.profile),
      (f) => shownPath(f),
    );
    if (setup.maxDurationMs !== undefined) {
      const limit = setup.maxDurationText ?? `${Math.round(setup.maxDurationMs / 1000)}s`;
      this.deadline = setTimeout(() => this.stop({ kind: 'max-duration', reason: `stopped at --max-duration ${limit} (ISWC_MAX_DURATION): the run's time limit` }), setup.maxDurationMs);
      this.deadline.unref();
    }
    (globalThis as Record<symbol, unknown>)[PROGRESS_SLOT] = () => this.progress();
    (globalThis as Record<symbol, unknown>)[VERDICTS_SLOT] = () => this.judgedVerdicts();
  }

  /** Requests the given cases are estimated to send. */
  private requestsOf(keys: readonly string[]): number {
    let total = 0;
    for (const key of keys) {
      const p = this.byKey.get(key);
      if (p && !p.skipReason) total += estimatedRequests(p, p.runs ?? this.setup.cfg.runs);
    }
    return total;
  }

  /**
   * Stops sending for good (a signal, the time limit): no request starts after this call, the cases in
   * flight end at their next request, and every later case is skipped with the reason. The first halt wins.
   */
  stop(halt: RunHalt): void {
    if (this.halted === undefined) this.halted = halt;
    if (this.deadline) clearTimeout(this.deadline);
    this.client.stop(halt.reason);
    this.budget?.wake();
    this.openRunEnd();
  }

  private openRunEnd(): void {
    if (this.runEndOpen) return;
    this.runEndOpen = true;
    this.openRunEndNow();
  }

  /**
   * The run's end is reached when no selected test is left to start and every test being run waits for it
   * (or the run was stopped): read-back steps are then the run's last requests. Without a selection (a
   * test run on its own), the tests being run are all there is.
   */
  private checkRunEnd(): void {
    if (this.halted !== undefined || (this.ahead.length === 0 && this.executing === this.parked)) this.openRunEnd();
  }

  /** Waits until the run's end (checkRunEnd); the engine meanwhile runs the selected tests left. */
  private async untilRunEnd(): Promise<void> {
    if (this.runEndOpen) return;
    this.parked += 1;
    try {
      this.checkRunEnd();
      this.pump();
      await this.runEnd;
    } finally {
      this.parked -= 1;
    }
  }

  /**
   * Why the run stopped sending, if it did: the target first (the breaker, the key), then a stop (a signal,
   * the time limit), then the request budget used up before every selected case was sent.
   */
  halt(): RunHalt | undefined {
    const unusable = this.client.unusable();
    if (unusable !== undefined && this.halted?.kind !== 'interrupted' && this.halted?.kind !== 'max-duration') return { kind: 'target-unusable', reason: unusable };
    if (this.halted) return this.halted;
    if (unusable !== undefined) return { kind: 'target-unusable', reason: unusable };
    if (this.client.budgetSpent() === undefined && this.budgetStop === undefined) return undefined;
    const budget = this.budget?.budget ?? this.setup.cfg.budget ?? 0;
    const whose = budget !== this.setup.cfg.budget ? `, this shard's share of ISWC_BUDGET=${this.setup.cfg.budget ?? 0}` : ` (ISWC_BUDGET=${budget})`;
    return { kind: 'budget', reason: `the request budget is used up: ${this.client.progress().sent} of ${budget} requests sent, resends included${whose}; the cases left were not sent` };
  }

  /** The run's four figures so far (and the wall time waited), as every output gives them. */
  figures(): RunFigures {
    const client = this.client.progress();
    return { planned: this.planned, sent: client.sent, retried: client.retried, answered: client.answered, waitedMs: client.waitedMs };
  }

  progress(): EngineProgress {
    const halt = this.halt();
    const { maxDurationMs } = this.setup;
    const consumedReason = this.consumption.reason();
    const consumedHint = this.consumption.hint(this.setup.cfg.reportDir);
    const { ran } = this;
    const mode = this.setup.cfg.destructive ? 'destructive' : 'safe';
    return {
      ...this.figures(),
      failures: this.failures,
      startedAtMs: this.startedAtMs,
      rate: this.setup.rate,
      ...(this.setup.cfg.budget !== undefined ? { budget: this.setup.cfg.budget } : {}),
      ...(maxDurationMs !== undefined ? { deadlineAtMs: this.startedAtMs + maxDurationMs } : {}),
      ...(halt ? { halt } : {}),
      consumed: this.consumption.ledger(),
      // Worked out when read (the report, at the run's end), not on every tick of the progress line that polls this.
      get tried() {
        return { faults: triedFaults(ran, mode), catalogue: catalogueFingerprint() };
      },
      ...(consumedReason !== undefined ? { consumedReason } : {}),
      ...(consumedHint !== undefined ? { consumedHint } : {}),
    };
  }

  /** Runs one case, within the request budget when the run has one (lib/run/budget-gate.ts). */
  /** A case that ran (not steered away, admitted by the budget), with its exchanges: what the run tried (lib/run/tried.ts). */
  private noteRan(p: PlannedCase, outcome: CaseOutcome): CaseOutcome {
    if (p.skipReason === undefined && outcome.skipReason === undefined) this.ran.push({ planned: p, exchanges: outcome.exchanges });
    return outcome;
  }

  private async runCase(planned: PlannedCase, settings: RunSettings): Promise<CaseOutcome> {
    const { profile } = this.setup;
    const steered = this.steering?.decide(planned);
    // The planned figure follows the steering: less what a case steered away would have sent, plus a standby case run in its place.
    const estimate = (q: PlannedCase): number => estimatedRequests(q, q.runs ?? settings.runs);
    if (steered && !steered.run) {
      if (planned.skipReason === undefined) this.planned -= estimate(planned);
      return runPlannedCase({ ...planned, skipReason: steered.reason }, this.client, profile, settings, this.judge);
    }
    const p = steered?.planned ?? planned;
    if (planned.skipReason !== undefined && p.skipReason === undefined) this.planned += estimate(p);
    const observe = this.steering ? (step: Step, format: CaseFormat, exchange: Exchange) => this.steering?.learner.observe(step, format, exchange) : undefined;
    if (!this.budget || p.skipReason !== undefined) return this.noteRan(p, await runPlannedCase(p, this.client, profile, settings, this.judge, undefined, observe));
    let run: CaseRun | undefined;
    const admission = await this.budget.admit(estimatedRequests(p, p.runs ?? settings.runs), () => (run ? run.stats.requests + run.stats.retries : 0));
    if (!admission.admitted) {
      this.budgetStop ??= admission.reason;
      return runPlannedCase({ ...p, skipReason: admission.reason ?? 'not sent: the request budget is used up' }, this.client, profile, settings, this.judge);
    }
    try {
      const outcome = await runPlannedCase(
        p,
        this.client,
        profile,
        settings,
        this.judge,
        (r) => {
          run = r;
        },
        observe,
      );
      this.steering?.ran(outcome.executions);
      return this.noteRan(p, outcome);
    } finally {
      admission.done();
    }
  }

  /** The tests this run selected, in order: the engine may run them ahead. */
  select(tests: ReadonlyArray<{ project: string; title: string }>): void {
    const byTitle = new Map(this.setup.tests.map((t) => [`${t.project}\u0001${t.title}`, t.keys]));
    const selected = tests.flatMap((t) => {
      const keys = byTitle.get(`${t.project}\u0001${t.title}`);
      return keys ? [keys] : [];
    });
    // Steering: the first test of each format that shows whether the target serves it runs first; in every run, the first test on each path early.
    this.ahead = probesFirst(selected, (keys) => keys.flatMap((k) => this.byKey.get(k) ?? []), this.steering !== undefined);
    this.planned = this.requestsOf(this.ahead.flat());
    this.shareBudget();
    this.pump();
  }

  /**
   * A shard of a run with a budget caps what it sends at its share: what its own tests count, and its
   * part of what the plan left over (resends come out of it), so that the shards together never send
   * more than the budget.
   */
  private shareBudget(): void {
    const { shard } = this.setup;
    const budget = this.setup.cfg.budget;
    if (budget === undefined || !shard || shard.total <= 1) return;
    const wholePlan = this.requestsOf(this.setup.tests.flatMap((t) => t.keys));
    const share = this.planned + Math.floor(Math.max(0, budget - wholePlan) / shard.total);
    this.client.limitBudget(share);
    if (this.budget) this.budget.budget = Math.min(this.budget.budget, share);
  }

  /**
   * Starts selected tests while fewer than LOOKAHEAD are started and not collected. While tests wait for
   * the run's end, their workers collect nothing more: then fewer than LOOKAHEAD being run is the limit.
   */
  private pump(): void {
    while ((this.started.size < LOOKAHEAD || (this.parked > 0 && this.executing - this.parked < LOOKAHEAD)) && this.ahead.length > 0) {
      const keys = this.ahead.shift() as string[];
      const id = keys.join('\n');
      if (this.started.has(id)) continue;
      const running = this.execute(keys);
      // A failure surfaces when the test collects it; nothing is left unhandled meanwhile.
      running.catch(() => undefined);
      this.started.set(id, running);
    }
  }

  /** The verdict of one test: run ahead already, or run now. */
  async runGroup(keys: readonly string[]): Promise<GroupVerdict> {
    const id = keys.join('\n');
    const started = this.started.get(id);
    this.ahead = this.ahead.filter((k) => k.join('\n') !== id);
    const running = started ?? this.execute(keys);
    this.started.delete(id);
    try {
      return await running;
    } finally {
      this.pump();
    }
  }

  /** The tests run and judged, with their verdicts (the reporter takes those of tests that did not end). */
  private judgedVerdicts(): JudgedVerdict[] {
    return this.setup.tests.flatMap((t) => {
      const verdict = this.verdicts.get(t.keys.join('\n'));
      return verdict ? [{ project: t.project, title: t.title, attachmentBody: verdict.attachmentBody }] : [];
    });
  }

  /** Runs the cases of one test and says what the test reports. */
  private async execute(keys: readonly string[]): Promise<GroupVerdict> {
    this.executing += 1;
    try {
      const verdict = await this.executeCases(keys);
      this.verdicts.set(keys.join('\n'), verdict);
      return verdict;
    } finally {
      this.executing -= 1;
      this.checkRunEnd();
      this.pump();
    }
  }

  private async executeCases(keys: readonly string[]): Promise<GroupVerdict> {
    const { cfg } = this.setup;
    const cases = keys.map((key) => {
      const p = this.byKey.get(key);
      if (!p) throw new Error(`the plan has no case ${key}`);
      return p;
    });
    // Read-back steps wait for the run's end; under a budget they are sent at once, within the case's reservation.
    const settings: RunSettings = { seed: this.setup.seed, runs: cfg.runs, strict: cfg.strict, reusable: reusableRun(this.setup.profile, cfg.destructive), runEnd: this.budget ? 'inline' : 'defer' };
    const outcomes = await inParallel(cases, CONCURRENCY, (p) => this.cases.run(() => this.runCase(p, settings)));
    const atRunEnd = outcomes.flatMap((o) => (o.atRunEnd ? [o.atRunEnd] : []));
    if (atRunEnd.length > 0) {
      await this.untilRunEnd();
      await Promise.all(atRunEnd.map((send) => this.cases.run(send)));
    }
    const stats = { requests: 0, retries: 0, waitedMs: 0 };
    const all: CheckExecution[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      const p = cases[i];
      all.push(...(p ? this.consumption.observe(p, outcome.executions) : outcome.executions));
      this.restored.push(...outcome.restored);
      stats.requests += outcome.stats.requests;
      stats.retries += outcome.stats.retries;
      stats.waitedMs += outcome.stats.waitedMs;
    }
    const executions = this.redact.deep(all);
    const waiverDate = runDay(this.setup.startedAt);
    const halt = this.halt();
    const consumption = this.consumption.attached();
    const attachment: ExecutionsAttachment = { executions, stats, waiverDate, ...(halt ? { halt: this.redact.deep(halt) } : {}), figures: { run: this.runId, ...this.figures() }, ...(consumption ? { consumption: this.redact.deep(consumption) } : {}) };
    // The same function as the reporter's, on the same executions and day: both reach the same verdicts.
    const waivers = runWaivers(cfg.waivers);
    const judged = waivers ? applyWaivers(executions, waivers.waivers, waiverDate).executions : executions;
    const skipped = cases.flatMap((p, i) => {
      const reason = outcomes[i]?.skipReason;
      return reason === undefined ? [] : [`${p.def.id}: ${reason}`];
    });
    const failures = judged.filter((e) => e.verdict === 'fail');
    const blocking = failures.filter((e) => gating(e.level, cfg.strict));
    this.failures += blocking.length;
    const messages: string[] = [];
    // The replay command as the run's caller types it: the report, the profile, and the target (not the embedded server's).
    const replay: ReplayTarget = { ...replayFilesOf(cfg), ...(cfg.embedded ? {} : { baseUrl: this.setup.baseUrl }) };
    if (blocking.length > 0) messages.push(`${blocking.length} check(s) failed:\n${blocking.map((e) => describeFailure(e, replay)).join('\n\n')}`);
    // The test during which the target was found unusable ends on an error saying so (one test of the run).
    const unusable = this.client.unusable();
    let unusableText: string | undefined;
    if (unusable !== undefined && !this.tripReported && outcomes.some((o) => o.stats.requests > 0)) {
      this.tripReported = true;
      unusableText = this.redact.text(`target unusable: ${unusable}. Nothing more is sent; every later case of the run is skipped with that reason.`);
    }
    // A test that judged nothing (every request not sent, throttled, or never reaching the target) is
    // skipped with the reason, never passed.
    const firstSkip = outcomes[0]?.skipReason ?? (executions.length > 0 && executions.every((e) => e.verdict === 'skip') ? executions[0]?.skipReason : undefined);
    return {
      attachmentBody: JSON.stringify({ ...attachment, allure: this.allureData(cases, outcomes, judged) } satisfies ExecutionsAttachment),
      ...((skipped.length === cases.length || executions.every((e) => e.verdict === 'skip')) && firstSkip !== undefined ? { allSkipped: firstSkip } : {}),
      skipped,
      waived: judged.filter((e) => e.verdict === 'waived').map(describeWaived),
      notGating: failures.filter((e) => !gating(e.level, cfg.strict)).map((e) => ({ level: e.level, text: describeFailure(e, replay) })),
      ...(messages.length > 0 ? { blocking: messages.join('\n\n') } : {}),
      ...(unusableText !== undefined ? { unusable: unusableText } : {}),
    };
  }

  /**
   * What the Allure report shows of a test: epic = operation, feature = check, severity from the highest
   * level among its checks, tag = format; one step per HTTP exchange with the request and the response,
   * both through the redactor, in the executions attachment, from which the Allure reporter writes them
   * (reporters/allure-playwright.ts).
   */
  private allureData(members: readonly PlannedCase[], outcomes: readonly CaseOutcome[], executions: readonly CheckExecution[]): AllureData {
    const first = members[0];
    const levels = new Set(executions.map((e) => e.level));
    const strict = this.setup.cfg.strict;
    const failedOn = new Map<string, CheckExecution[]>();
    for (const e of executions.filter((x) => x.verdict === 'fail')) failedOn.set(`${e.caseId}\u0001${e.step}`, [...(failedOn.get(`${e.caseId}\u0001${e.step}`) ?? []), e]);
    const format = !first || first.format === 'none' ? 'JSON' : first.format.toUpperCase();
    return {
      format,
      epic: first?.def.operation ? OPERATION_LABEL[first.def.operation] : 'outside the documented operations',
      features: [...new Set(members.flatMap((p) => p.shape.checks))],
      severity: levels.has('spec') ? SEVERITY.spec : levels.has('http') ? SEVERITY.http : SEVERITY.observed,
      tag: !first || first.format === 'none' ? 'no body' : first.format.toUpperCase(),
      sections: [...new Set(executions.flatMap((e) => e.sections))],
      steps: outcomes.flatMap((outcome, i) =>
        outcome.exchanges.map(({ label, exchange }) => {
          const status = exchange.response?.status ?? exchange.error?.code ?? 'no answer';
          const failed = failedOn.get(`${members[i]?.def.id ?? first?.def.id ?? ''}\u0001${label}`) ?? [];
          const note = failed.length > 0 ? `: ${[...new Set(failed.map((e) => e.checkId))].join(', ')} failed` : '';
          const lines = failed.map((e) => `${e.checkId} [${e.level}, ${sectionsText(e.sections)}]${gating(e.level, strict) ? '' : ' (not gating)'}: expected ${e.expected ?? ''}; received ${e.received ?? ''}`);
          return {
            name: `${exchange.request.method} ${new URL(exchange.request.url).pathname} → ${status} (${label})${note}`,
            request: JSON.stringify(this.redact.deep(exchange.request), null, 2),
            response: JSON.stringify(this.redact.deep(exchange.response ?? exchange.error ?? null), null, 2),
            ...(lines.length > 0 ? { failure: this.redact.text(lines.join('\n')) } : {}),
            durationMs: exchange.durationMs,
          };
        }),
      ),
    };
  }

  /**
   * What the run changed of its entries to undo it (the restoring merge, on any profile; every destructive
   * case, on a reusable one) and whether it showed each undone, in one line for the console (undefined when
   * it changed nothing). Only a reusable profile is said to be left as found.
   */
  restorations(): string | undefined {
    if (this.restored.length === 0) return undefined;
    const notShown = this.restored.filter((r) => !r.proven);
    const entries = new Set(this.restored.map((r) => r.entry)).size;
    const changes = `${this.restored.length} change${this.restored.length === 1 ? '' : 's'}`;
    // Only a reusable profile is left as found: on any other, the run's other destructive cases consumed entries (its summary names them).
    const reusable = reusableRun(this.setup.profile, true);
    if (notShown.length === 0) {
      return reusable
        ? `reusable profile: the run left its entries as it found them: ${changes} to ${entries} entr${entries === 1 ? 'y' : 'ies'} undone, each shown undone by its undo refused`
        : `the restoring merge undid what it changed: ${changes} to ${entries} merges entr${entries === 1 ? 'y' : 'ies'} undone, each shown undone by its undo refused (the profile is not reusable: what the other destructive cases consumed is in the summary)`;
    }
    return this.redact.text(
      `✗ ${reusable ? 'reusable profile: ' : 'the restoring merge: '}${notShown.length} of ${changes} not shown undone, so these entries may not be as the profile lists them; check or recreate them before the next run: ${notShown.map((r) => `${r.what} (${r.reason ?? 'not shown'})`).join('; ')}`,
    );
  }

  async close(): Promise<void> {
    if (this.deadline) clearTimeout(this.deadline);
    await this.client.close();
    await this.gate?.close();
  }
}
