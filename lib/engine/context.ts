import { checkById, everyExchangeChecks } from '../checks/registry.ts';
import { decodeBody, sniffFormat } from '../codec/index.ts';
import { operation } from '../contract/operations.ts';
import type { Check, CheckExecution, Judgement } from '../checks/types.ts';
import type { Exchange, HttpClient } from '../http/types.ts';
import type { CaseContext, CaseDef, CaseFormat, CaseInput, Probe, Replay, Step } from './case.ts';
import { impliedSpecChecks } from './case.ts';
import { gating } from './config.ts';

interface Judged {
  check: Check<never>;
  params: unknown;
  judgement: Judgement;
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

  constructor(
    private readonly def: CaseDef,
    input: CaseInput,
    private readonly client: HttpClient,
  ) {
    this.format = input.format;
    this.profile = input.profile;
    this.entries = input.entries;
    this.seed = input.seed;
    this.runs = input.runs;
    this.strict = input.strict;
    this.noShrink = input.noShrink ?? false;
  }

  private judge(step: Step, exchange: Exchange): Judged[] {
    const authProbe = step.request.auth === 'none' || step.request.auth === 'wrong';
    const foreignAgency = actsForAnotherAgency(step, this.profile.agency);
    // Where the key is concerned (a probe without it, another agency than the key's), the answers the
    // contract lists as not shown (5.3) are documented too.
    const keyStatuses = step.operation ? [...operation(step.operation).statuses.filter((s) => s === 401), ...operation(step.operation).notShownStatuses] : [401, 403];
    const extraStatuses = [...(authProbe || foreignAgency ? keyStatuses : []), ...(step.extraStatuses ?? [])];
    const format = this.format === 'none' ? 'json' : this.format;
    const judged: Judged[] = [];
    for (const check of everyExchangeChecks()) {
      if (step.probe && check.level === 'spec') continue;
      const judgement = check.judge({ operation: step.operation, format, exchange, params: undefined as never, authProbe, extraStatuses, connectionMayClose: step.connectionMayClose ?? false, foreignAgency });
      if (judgement) judged.push({ check, params: undefined, judgement });
    }
    for (const { check, params } of step.expect) {
      const judgement = check.judge({ operation: step.operation, format, exchange, params: params as never, authProbe, extraStatuses, foreignAgency });
      if (judgement) judged.push({ check, params, judgement });
    }
    return judged;
  }

  private async exchangeFor(step: Step): Promise<Exchange> {
    const exchange = await this.client.send(step.request);
    this.stats.requests += 1;
    this.stats.retries += Math.max(0, exchange.attempts - 1);
    this.stats.waitedMs += exchange.waitedMs;
    return exchange;
  }

  async send(step: Step, replay?: Replay): Promise<Exchange> {
    const exchange = await this.exchangeFor(step);
    this.record(step, exchange, replay);
    return exchange;
  }

  async probe(step: Step): Promise<Probe> {
    const exchange = await this.exchangeFor(step);
    // Throttled even after the retries: nothing is known about conformance, so nothing fails.
    if (exchange.error?.code === 'THROTTLED') return { step, exchange, failures: [] };
    const failures = this.judge(step, exchange)
      .filter((j) => j.judgement.verdict === 'fail' && gating(j.check.level, this.strict))
      .map((j) => `${j.check.id} [${j.check.level}]: expected ${j.judgement.expected}; received ${j.judgement.received}`);
    return { step, exchange, failures };
  }

  record(step: Step, exchange: Exchange, replay?: Replay): void {
    this.exchanges.push({ label: step.label, exchange });
    if (exchange.error?.code === 'THROTTLED') {
      this.skipStep(step, `throttled by the server: ${exchange.error.message}; not a conformance failure (lower ISWC_RATE or ISWC_BUDGET)`);
      return;
    }
    let curl: string | undefined;
    for (const { check, params, judgement } of this.judge(step, exchange)) {
      const keep = judgement.verdict !== 'pass';
      if (keep) curl ??= this.curlFor(step);
      const sections = (params as { sections?: string[] } | undefined)?.sections ?? [...check.sections];
      this.executions.push({
        checkId: check.id,
        level: check.level,
        sections,
        operation: step.operation,
        format: this.format === 'none' ? 'json' : this.format,
        caseId: this.def.id,
        step: step.label,
        verdict: judgement.verdict,
        expected: judgement.expected,
        ...(judgement.verdict === 'skip' ? { skipReason: judgement.received } : { received: judgement.received }),
        ...(judgement.observation ? { observation: judgement.observation } : {}),
        ...(keep ? { exchange, curl } : {}),
        ...(replay ? { seed: replay.seed, ...(replay.path !== undefined ? { path: replay.path } : {}) } : {}),
        durationMs: Math.round(exchange.durationMs),
      });
    }
  }

  /** The replay line; a body over 64 KiB is described, not inlined (reports stay small). */
  private curlFor(step: Step): string {
    const body = step.request.body;
    const size = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    if (size <= 64 * 1024) return this.client.curl(step.request);
    const { body: _omitted, ...withoutBody } = step.request;
    return `${this.client.curl(withoutBody)} --data-binary @body.bin  # the ${size}-byte body is not inlined: write it to body.bin first`;
  }

  /** Records a step whose answer says nothing about conformance (throttled): its checks are skipped. */
  private skipStep(step: Step, reason: string): void {
    for (const check of [...step.expect.map((e) => e.check), ...everyExchangeChecks().filter((c) => c.level !== 'observed')]) {
      this.executions.push({
        checkId: check.id,
        level: check.level,
        sections: [...check.sections],
        operation: step.operation,
        format: this.format === 'none' ? 'json' : this.format,
        caseId: this.def.id,
        step: step.label,
        verdict: 'skip',
        skipReason: reason,
      });
    }
  }

  /** Records that the case's checks did not run, and why (for reports and certificates). */
  skip(reason: string): void {
    for (const checkId of new Set([...this.def.checks, ...impliedSpecChecks(this.def)])) {
      const check = checkById(checkId);
      this.executions.push({
        checkId,
        level: check.level,
        sections: [...check.sections],
        operation: this.def.operation,
        format: this.format === 'none' ? 'json' : this.format,
        caseId: this.def.id,
        step: '-',
        verdict: 'skip',
        skipReason: reason,
      });
    }
  }
}

/**
 * Does the request act for another agency than the profile's: the query `agency` of merge, delete and
 * demerge, or the agencyCode of an agent run? Which agency a key may act for is not shown (5.3).
 */
function actsForAnotherAgency(step: Step, agency: string): boolean {
  const queried = step.request.query?.find(([name]) => name === 'agency')?.[1];
  if (queried !== undefined) return queried !== agency;
  if (step.operation !== 'notifyAgentRun' || typeof step.request.body !== 'string') return false;
  const body = step.request.body;
  const format = sniffFormat(body);
  if (!format) return false;
  const decoded = decodeBody(format, 'AgentRun', body);
  const code = decoded.ok && decoded.value !== null && typeof decoded.value === 'object' ? (decoded.value as Record<string, unknown>).agencyCode : undefined;
  return code !== undefined && code !== agency;
}
