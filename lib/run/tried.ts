import type { Exchange } from '../contract/exchange.ts';
import { noAnswerToJudge } from './case-run.ts';
import { caughtByPlanned } from './plan-catches.ts';
import type { PlanMode } from './plan-rank.ts';
import type { PlannedCase } from './planned.ts';
import { PLAN_DATA } from './plans.generated.ts';

/** What a kind of run can show, from the committed measurement of the harness reading the ledger. */
export interface Catalogue {
  fingerprint: string;
  /** Faults a run of each mode can show, with their level (a run without --strict fails only on spec-level ones). */
  faults: Readonly<Record<'destructive' | 'safe', ReadonlyMap<string, 'spec' | 'http'>>>;
}

/** A case as it ran: as planned (its runs and parts), and every exchange it sent, read-backs included. */
export interface RanCase {
  planned: PlannedCase;
  exchanges: ReadonlyArray<{ exchange: Exchange }>;
}

/**
 * The faults of the reference server's catalogue a run tried: those the committed measurement
 * (lib/run/plans.generated.ts) says the cases it ran, at the runs and parts they ran with, catch. A case
 * counts only when every request it sent was answered and judged: one cut short (a stop, a target found
 * unresponsive, throttling past the resends) may not have sent the request that shows a fault, so it
 * claims none. What a gate tried is not what it caught: the target is not the reference server.
 */
export function triedFaults(ran: readonly RanCase[], mode: PlanMode): string[] {
  const whole = ran.filter((r) => r.planned.skipReason === undefined && r.exchanges.every(({ exchange }) => noAnswerToJudge(exchange) === undefined));
  return [...caughtByPlanned(whole.map((r) => r.planned), mode)].sort();
}

/** The measurement a list of tried faults refers to: its fingerprint (lib/run/plans.generated.ts). */
export function catalogueFingerprint(): string {
  return PLAN_DATA.fingerprint;
}

/** What this harness's committed measurement says each mode can show, with each fault's level. */
export function harnessCatalogue(): Catalogue {
  const of = (mode: 'destructive' | 'safe'): Map<string, 'spec' | 'http'> =>
    new Map(
      [...new Set(Object.values(PLAN_DATA.catches[mode]).flatMap((c) => Object.keys(c)))]
        .sort()
        .map((f) => [f, PLAN_DATA.faults[f] === 'http' ? ('http' as const) : ('spec' as const)]),
    );
  return { fingerprint: PLAN_DATA.fingerprint, faults: { destructive: of('destructive'), safe: of('safe') } };
}
