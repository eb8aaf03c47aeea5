import { runIdOf } from '../contract/answer.ts';
import type { Exchange, RequestSpec } from '../contract/exchange.ts';
import type { OperationId } from '../contract/operations.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import type { CarriedRunId } from './run-ids.ts';
import { carriedRunId } from './run-ids.ts';
import { perClient } from './per-client.ts';

/**
 * Agent runs the harness starts, so it ends every one (polite on a shared staging: a run left open is a
 * run another agent of the agency sees), at the latest when the case that started it ends. Where the
 * target profile says `openRuns: "one"`, a case ends its open run before it may start another, and the
 * cases on one target take turns: a gate per HTTP client lets one case at a time hold runs open.
 */

/** One holder at a time, in the order they asked. */
export class RunGate {
  #holder: object | undefined;
  readonly #waiting: Array<() => void> = [];

  async acquire(owner: object): Promise<void> {
    while (this.#holder !== undefined && this.#holder !== owner) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#holder = owner;
  }

  release(owner: object): void {
    if (this.#holder !== owner) return;
    this.#holder = undefined;
    this.#waiting.shift()?.();
  }
}

/**
 * Why a sharded run cannot keep a target that lets one run be open at a time: the cases take turns within
 * one run (one engine, every worker), and shards are runs of their own that take no turns with each other,
 * so two of them could each have a run open and a start would be refused. Undefined when nothing stops it.
 */
export function shardRefusal(profile: Pick<TargetProfile, 'openRuns'>, shard: { current: number; total: number } | null | undefined, flag: string): string | undefined {
  if (profile.openRuns !== 'one' || !shard || shard.total <= 1) return undefined;
  return `${flag} ${shard.current}/${shard.total}: the target profile says openRuns "one" (one agent run of the agency open at a time), and the harness takes turns only within one run, across its workers: shards are runs of their own, so two could each have a run open and the target would refuse a start. Run unsharded (--workers spreads the cases over workers that take turns)`;
}

/** The gate of one target: every case sent through the same HTTP client shares it. */
export const runGateOf = perClient(() => new RunGate());

const RUN: OperationId = 'notifyAgentRun';

/** What a request was before it was sent: the runId it carried, and whether it may start a run. */
export interface RunRequest {
  carried: CarriedRunId;
  mayStart: boolean;
}

/** The runs one case started and has not ended yet. */
export class OpenRuns {
  readonly #open = new Set<string>();

  constructor(
    private readonly profile: Pick<TargetProfile, 'openRuns' | 'runIds'>,
    /** The target's gate, when it lets one run be open at a time. */
    private readonly gate: RunGate | undefined,
  ) {}

  /**
   * Before an agent run is sent: whether it may start a run (no runId, or with client-named runs one this
   * case has not started). With one open run at a time, the case's own open runs are ended first and the
   * gate is taken, so no other case has a run open while this one may start one.
   */
  async before(opId: OperationId | null, request: RequestSpec, end: (runId: string) => Promise<void>): Promise<RunRequest | undefined> {
    if (opId !== RUN) return undefined;
    const carried = carriedRunId(opId, request);
    const mayStart = this.profile.runIds === 'client' ? typeof carried !== 'string' || !this.#open.has(carried) : typeof carried !== 'string' || carried === '';
    if (mayStart && this.gate) {
      for (const runId of [...this.#open]) await end(runId);
      await this.gate.acquire(this);
    }
    return { carried, mayStart };
  }

  /** After the answer: a run that started is open, one that was ended is not; the gate is given back when none is open. */
  after(sent: RunRequest | undefined, exchange: Exchange): void {
    if (!sent) return;
    if (exchange.response?.status === 200) {
      const answered = runIdOf(exchange) ?? sent.carried ?? undefined;
      if (sent.mayStart && answered !== undefined && answered !== '') this.#open.add(answered);
      else if (typeof sent.carried === 'string') this.#open.delete(sent.carried);
    }
    if (this.#open.size === 0) this.gate?.release(this);
  }

  /** A run the case ends of its own accord (tried once: a target that refuses to end it is not asked again). */
  forget(runId: string): void {
    this.#open.delete(runId);
    if (this.#open.size === 0) this.gate?.release(this);
  }

  /** Ends every run still open (when the case ends) and gives the gate back. */
  async finish(end: (runId: string) => Promise<void>): Promise<void> {
    try {
      for (const runId of [...this.#open]) await end(runId);
    } finally {
      this.#open.clear();
      this.gate?.release(this);
    }
  }
}
