import type { Exchange, HttpClient, RequestSpec } from '../contract/exchange.ts';
import type { CaseContext, CaseDef, CaseFormat, CaseInput, CaseReplay, Probe, Replay, Restoration, Step } from '../generate/case.ts';
import { plannedChecksOf } from '../generate/case.ts';
import { CHECK_MANIFEST } from '../generate/checks.generated.ts';
import type { CheckId } from '../generate/checks.generated.ts';
import type { CheckExecution, Judge } from './execution.ts';
import { bodyRequest } from '../generate/requests.ts';
import { validAgentRun } from '../generate/templates.ts';
import { OpenRuns, runGateOf } from './open-runs.ts';
import { RunIdLedger, runIdLedgerOf } from './run-id-ledger.ts';
import { runIdOf } from '../contract/answer.ts';
import { expectCheck } from '../generate/expectations.ts';
import { withRunId } from './run-ids.ts';
import { shapedRequest } from './xml-arrays.ts';
import { leftOutChecks } from './plan-file.ts';
import { irreversible, settle } from './restore.ts';
import type { RestoreOutcome } from './restore.ts';

/**
 * Why an exchange has nothing to judge, or undefined when it has: not sent (the circuit breaker tripped,
 * the key was refused on every request, the run was stopped), or the request never reached the target's
 * HTTP server: the target could not be reached at all (connection refused, unknown host), the proxy
 * could not be reached or refused the way (PROXY), or no TLS connection was made because this machine
 * does not accept the certificate (TLS: its trust store, or a name or date to fix on the target's
 * front). No server answered, so no check of the document can fail on it; the circuit breaker still
 * counts these and the run stops with "target unusable". (Throttling is handled apart: it is recorded as
 * a skip with its own advice.)
 */
export function noAnswerToJudge(exchange: Exchange): string | undefined {
  const error = exchange.error;
  if (!error) return undefined;
  if (error.code === 'UNRESPONSIVE' || error.code === 'NOT_SENT') return error.message;
  if (error.code === 'THROTTLED') return error.message;
  if (error.code === 'CONNECTION_REFUSED') return `no answer: the target could not be reached (${error.message}); not a conformance finding`;
  if (error.code === 'PROXY') return `no answer: the request never reached the target (${error.message}); not a conformance finding`;
  if (error.code === 'TLS') return `no answer: no TLS connection was made (${error.message}); not a conformance finding`;
  return undefined;
}

/** Runs one case in one format: sends each step, applies every check, records each execution. */
export class CaseRun implements CaseContext {
  readonly executions: CheckExecution[] = [];
  /** Requests sent, resends after throttling, and time waited for the pace or Retry-After. */
  readonly stats = { requests: 0, retries: 0, waitedMs: 0 };
  /** Every recorded exchange with its step label, in order (for per-exchange report steps such as Allure's). */
  readonly exchanges: Array<{ label: string; exchange: Exchange }> = [];
  readonly format: CaseFormat;
  readonly profile: CaseInput['profile'];
  readonly entries: CaseInput['entries'];
  readonly seed: number;
  readonly runs: number;
  readonly strict: boolean;
  readonly noShrink: boolean;
  readonly replay: CaseReplay | undefined;
  readonly parts: readonly string[] | undefined;
  readonly reusable: boolean;
  readonly runEnd: 'defer' | 'inline';
  /** Steps kept for the run's end (atRunEnd), with the part that registered them. */
  private readonly atEnd: Array<{ part: string | undefined; steps: () => Promise<void> }> = [];
  /** Changes to disposable entries the case registered, to undo and show undone when it ends (lib/run/restore.ts). */
  private readonly restorations: Restoration[] = [];
  /** What became of each, once the case ended. */
  readonly restored: RestoreOutcome[] = [];
  /** The part whose steps are being sent, if any. */
  private currentPart: string | undefined;
  /** The part each execution came from (executions of the core are absent): what the plans' measurement attributes a catch to. */
  readonly partOf = new Map<CheckExecution, string>();
  /**
   * Executions of the core judged after a part had sent something: what they show may rest on that part's
   * requests (a demerge refused after merges of neighbours), so the measurement credits the core alone with
   * nothing they caught.
   */
  readonly afterParts = new Set<CheckExecution>();
  /** Whether a part of the case has sent a step yet. */
  private partSent = false;
  /** The part that registered each change (its proof belongs to that part). */
  private readonly restorationPart = new Map<Restoration, string | undefined>();
  /** Agent runs this case started and has not ended. */
  private readonly agentRuns: OpenRuns;
  /** What each exchange sent, as shaped for the target (its replay line must show the same runId). */
  private readonly sent = new WeakMap<Exchange, RequestSpec>();
  /** The runIds the run's starts were answered, shared by every case sent through the same client (lib/run/run-id-ledger.ts). */
  private readonly runIds: RunIdLedger;
  /** A start answered a runId another start of the run was answered first: the runId, and that start. */
  private readonly repeatedRunId = new WeakMap<Exchange, { runId: string; earlier: string }>();

  constructor(
    private readonly def: CaseDef,
    input: CaseInput,
    private readonly client: HttpClient,
    private readonly judge: Judge,
    /** Told of every judged exchange (the steering of a budget learns the target from them, lib/run/steer.ts). */
    private readonly observe?: (step: Step, format: CaseFormat, exchange: Exchange) => void,
  ) {
    this.format = input.format;
    this.profile = input.profile;
    this.entries = input.entries;
    this.seed = input.seed;
    this.runs = input.runs;
    this.strict = input.strict;
    this.noShrink = input.noShrink ?? false;
    this.replay = input.replay;
    this.parts = input.parts;
    this.reusable = input.reusable ?? false;
    this.runEnd = input.runEnd ?? 'inline';
    this.agentRuns = new OpenRuns(this.profile, this.profile.openRuns === 'one' ? runGateOf(client) : undefined);
    this.runIds = input.runIdScope === 'case' ? new RunIdLedger() : runIdLedgerOf(client);
  }

  private get bodyFormat(): 'json' | 'xml' {
    return this.format === 'none' ? 'json' : this.format;
  }

  private async exchangeFor(step: Step): Promise<Exchange> {
    if (this.reusable) {
      const why = irreversible(step, this.entries);
      if (why !== undefined) throw new Error(`${this.def.id}: ${why}`);
    }
    const request = withRunId(step.operation, shapedRequest(step, this.profile.xmlArrays), this.profile.runIds);
    const run = await this.agentRuns.before(step.operation, request, (runId) => this.endRun(runId));
    const exchange = await this.sendCounted(request);
    this.agentRuns.after(run, exchange);
    this.sent.set(exchange, request);
    // A start the server names (its body carries no runId): with client-named runs the answer is the runId sent.
    if (run?.mayStart === true && run.carried === undefined && exchange.response?.status === 200) {
      const answered = runIdOf(exchange);
      const earlier = answered === undefined || answered === '' ? undefined : this.runIds.note(answered, `${this.def.id} (${this.format}), "${step.label}"`);
      if (answered !== undefined && earlier !== undefined) this.repeatedRunId.set(exchange, { runId: answered, earlier });
    }
    return exchange;
  }

  private async sendCounted(request: RequestSpec): Promise<Exchange> {
    const exchange = await this.client.send(request);
    // A request the client did not send (the run stopped, the target unusable) is no request.
    if (exchange.attempts > 0) this.stats.requests += 1;
    this.stats.retries += Math.max(0, exchange.attempts - 1);
    this.stats.waitedMs += exchange.waitedMs;
    return exchange;
  }

  /**
   * Ends a run the case started and left open: a valid agent run that has counted nothing, carrying its
   * runId. Housekeeping, not a check: the exchange is kept with the others, never judged.
   */
  private async endRun(runId: string): Promise<void> {
    const request = bodyRequest('notifyAgentRun', this.bodyFormat, { ...validAgentRun(this.profile), runId });
    const exchange = await this.sendCounted(request);
    this.agentRuns.forget(runId);
    this.exchanges.push({ label: `end the run ${runId} the case left open`, exchange });
  }

  /**
   * Ends every run the case started and left open, and undoes and shows undone every change it registered
   * (lib/run/restore.ts): called once the case has run, whatever happened.
   */
  async finish(): Promise<void> {
    await this.agentRuns.finish((runId) => this.endRun(runId));
    for (const change of this.restorations.splice(0)) {
      this.currentPart = this.restorationPart.get(change);
      this.restored.push(
        await settle(
          change,
          (step) => this.exchangeFor(step),
          (step, exchange) => this.record(step, exchange),
          (label, exchange) => this.exchanges.push({ label, exchange }),
        ),
      );
      this.currentPart = undefined;
    }
  }

  async atRunEnd(steps: () => Promise<void>): Promise<void> {
    if (this.def.readsBack !== true) throw new Error(`${this.def.id}: atRunEnd in a case that does not declare readsBack`);
    if (this.runEnd === 'inline') return steps();
    this.atEnd.push({ part: this.currentPart, steps });
  }

  /** Whether steps wait for the run's end (atRunEnd with runEnd 'defer'). */
  get waitsForRunEnd(): boolean {
    return this.atEnd.length > 0;
  }

  /** Sends the steps kept for the run's end, each in the part that registered it, then finishes again. */
  async sendAtRunEnd(): Promise<void> {
    try {
      for (const { part, steps } of this.atEnd.splice(0)) {
        this.currentPart = part;
        try {
          await steps();
        } finally {
          this.currentPart = undefined;
        }
      }
    } finally {
      await this.finish();
    }
  }

  async part(id: string, steps: () => Promise<void>): Promise<void> {
    if (this.currentPart !== undefined) throw new Error(`${this.def.id}: part "${id}" inside part "${this.currentPart}" (parts do not nest)`);
    if (!this.def.parts?.some((p) => p.id === id)) throw new Error(`${this.def.id}: part "${id}" is not declared in its parts`);
    if (this.parts !== undefined && !this.parts.includes(id)) return;
    this.currentPart = id;
    try {
      await steps();
    } finally {
      this.currentPart = undefined;
    }
  }

  restore(change: Restoration): void {
    this.restorations.push(change);
    this.restorationPart.set(change, this.currentPart);
  }

  async send(step: Step, replay?: Replay): Promise<Exchange> {
    const exchange = await this.exchangeFor(step);
    this.record(step, exchange, replay);
    return exchange;
  }

  async probe(step: Step): Promise<Probe> {
    const exchange = await this.exchangeFor(step);
    // Throttled even after the retries, not sent (the target is unusable, the run stopped), or the target
    // could not be reached at all: nothing is known about conformance, so nothing fails here.
    if (noAnswerToJudge(exchange) !== undefined) return { step, exchange, failures: [] };
    const failures = this.judge(step, exchange, this.bodyFormat)
      .filter((j) => j.gating)
      .map((j) => `${j.checkId} [${j.level}]: expected ${j.expected}; received ${j.received}`);
    return { step, exchange, failures };
  }

  record(step: Step, exchange: Exchange, replay?: Replay): void {
    this.exchanges.push({ label: step.label, exchange });
    if (exchange.error?.code === 'THROTTLED') {
      this.skipStep(step, `throttled by the server: ${exchange.error.message}; not a conformance failure (lower ISWC_RATE or ISWC_BUDGET)`);
      return;
    }
    const unjudged = noAnswerToJudge(exchange);
    if (unjudged !== undefined) {
      // Not sent, or never reached the target: the reason, not a failure of the checks (the answers that
      // tripped the circuit breaker are recorded where they happened).
      this.skipStep(step, unjudged);
      return;
    }
    this.observe?.(step, this.format, exchange);
    let curl: string | undefined;
    const planned = new Set<string>(plannedChecksOf(step));
    // A start answered the runId of another start of the run (the run-wide ledger): judged as a case judges its
    // own two starts, on this answer (not planned: no plan can know it comes).
    const repeated = this.repeatedRunId.get(exchange);
    const judged: Step = repeated
      ? { ...step, expect: [...step.expect, expectCheck('outcome.run-ids-distinct', { otherRunId: repeated.runId, because: `another run start of this run, ${repeated.earlier}, was answered it already: the answer to a run start identifies the run it started (sections 2.2, 4.1)` })] }
      : step;
    for (const j of this.judge(judged, exchange, this.bodyFormat)) {
      const keep = j.verdict !== 'pass';
      if (keep) curl ??= this.curlFor(step, exchange);
      const execution: CheckExecution = {
        checkId: j.checkId,
        level: j.level,
        sections: j.sections,
        operation: step.operation,
        format: this.bodyFormat,
        caseId: this.def.id,
        step: step.label,
        verdict: j.verdict,
        expected: j.expected,
        ...(j.verdict === 'skip' ? { skipReason: j.received } : { received: j.received }),
        ...(j.observation ? { observation: j.observation } : {}),
        // A spec check this step did not plan, judged on an answer the document leaves open (a probe's 204):
        // recorded and gating like any other, not counted as exercising the check (the plan could not know it would come).
        ...(j.level === 'spec' && !planned.has(j.checkId) ? { incidental: true as const } : {}),
        ...(keep ? { exchange, curl } : {}),
        ...(replay ? { seed: replay.seed, ...(replay.path !== undefined ? { path: replay.path } : {}), ...(replay.replayPath !== undefined ? { replayPath: replay.replayPath } : {}), ...(replay.modelState !== undefined ? { modelState: replay.modelState } : {}), ...(replay.generated !== undefined ? { generated: replay.generated } : {}) } : {}),
        durationMs: Math.round(exchange.durationMs),
      };
      this.executions.push(execution);
      if (this.currentPart !== undefined) {
        this.partOf.set(execution, this.currentPart);
        this.partSent = true;
      } else if (this.partSent) this.afterParts.add(execution);
    }
  }

  /** The replay line; a body over 64 KiB is described, not inlined (reports stay small). */
  private curlFor(step: Step, exchange: Exchange): string {
    const request = this.sent.get(exchange) ?? shapedRequest(step, this.profile.xmlArrays);
    const body = request.body;
    const size = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    if (size <= 64 * 1024) return this.client.curl(request);
    const { body: _omitted, ...withoutBody } = request;
    return `${this.client.curl(withoutBody)} --data-binary @body.bin  # the ${size}-byte body is not inlined: write it to body.bin first`;
  }

  /** A skipped execution of a check, by id, with its level and sections. */
  private skipped(checkId: CheckId, step: string, operation: Step['operation'], reason: string): CheckExecution {
    const check = CHECK_MANIFEST[checkId];
    return { checkId, level: check.level, sections: [...check.sections], operation, format: this.bodyFormat, caseId: this.def.id, step, verdict: 'skip', skipReason: reason };
  }

  /** Records a step whose answer says nothing about conformance (throttled): its checks are skipped. */
  private skipStep(step: Step, reason: string): void {
    const everyAnswer = (Object.keys(CHECK_MANIFEST) as CheckId[]).filter((id) => CHECK_MANIFEST[id].scope === 'every-exchange' && CHECK_MANIFEST[id].level !== 'observed');
    for (const checkId of [...step.expect.map((e) => e.checkId), ...everyAnswer]) this.executions.push(this.skipped(checkId, step.label, step.operation, reason));
  }

  /** Records that the case's checks did not run, and why (for reports and certificates). */
  skip(reason: string, checks: readonly CheckId[]): void {
    for (const checkId of leftOutChecks(checks) as readonly CheckId[]) this.executions.push(this.skipped(checkId, '-', this.def.operation, reason));
  }
}
