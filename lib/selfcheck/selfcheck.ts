import { allChecks } from '../check/registry.ts';
import type { CheckExecution } from '../run/execution.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import { gating } from '../check/gating.ts';
import { caseKeyOf } from './fault-proofs.ts';
import { runSuiteInProcess } from '../engine/pipeline.ts';
import { DEFAULT_TIMEOUT_MS } from '../run/http/client.ts';
import type { PlanName } from '../run/budget.ts';
import type { PlannedCase } from '../run/planned.ts';
import { isLenientFaultId } from '../../server/lenient.ts';

/**
 * The plan a fault is proven with: the lenient families (server/lenient.ts, derived from the schemas,
 * about a hundred) with the smoke plan, which must catch each of them, at a tenth of the whole suite's cost;
 * the faults written one by one with the whole suite.
 */
export function selfCheckPlanOf(faultId: string): PlanName | undefined {
  return isLenientFaultId(faultId) ? 'smoke' : undefined;
}

export interface FaultUnderTest {
  id: string;
  level: 'spec' | 'http';
  section: string;
  description: string;
}

export interface FaultResult {
  fault: FaultUnderTest;
  /** Checks whose gating failures caught the fault (spec; http too for http-level faults, i.e. strict mode). */
  caughtBy: string[];
  failures: number;
  /** Each catching check → the cases (PlannedCase keys, in the order they failed) where it caught the fault. */
  caughtIn: Record<string, string[]>;
  /** A failure to show in the table. */
  example?: CheckExecution;
}

/** How long a self-check run waits for each answer of the local reference server. */
export const SELFCHECK_TIMEOUT_MS = 2000;

export interface ServerHandle {
  url: string;
  close(): Promise<void>;
}

/**
 * Runs the whole suite against a server carrying each fault and records which checks caught it. A
 * spec-level fault must fail a default run; an http-level fault must fail a strict run.
 */
export async function selfCheck(
  faults: readonly FaultUnderTest[],
  start: (faultId: string | null) => Promise<ServerHandle>,
  options: {
    key: string;
    profile: TargetProfile;
    timeoutMs?: number;
    plan?: PlanName;
    budget?: number;
    /** Skip the run against the clean server (a caller that proves it apart); `clean` is then empty. */
    skipClean?: boolean;
    /**
     * The cases (PlannedCase keys) a fault is run with, when fewer than its whole plan can show it (the
     * committed measurement says which: lib/selfcheck/targeted.ts); undefined runs the whole plan.
     */
    casesOf?: (faultId: string) => ReadonlySet<string> | undefined;
    /** A request timeout of its own for a fault's run (one that withholds answers, waited out at each), else timeoutMs. */
    timeoutOf?: (faultId: string) => number | undefined;
  },
): Promise<{ clean: CheckExecution[]; results: FaultResult[] }> {
  // Strict wherever http-level failures count (the clean run, http-level faults): a property then stops on them too.
  const runAgainst = async (faultId: string | null, strict: boolean) => {
    const server = await start(faultId);
    const plan = options.plan ?? (faultId !== null ? selfCheckPlanOf(faultId) : undefined);
    const cases = faultId !== null ? options.casesOf?.(faultId) : undefined;
    try {
      return await runSuiteInProcess({
        baseUrl: server.url,
        key: options.key,
        profile: options.profile,
        destructive: true,
        settings: { strict },
        // The run's own default unless told otherwise (the tests give their one, generous, setting):
        // a tight one reads a loaded machine's slow answers as "no answer (TIMEOUT)", a false fault.
        timeoutMs: (faultId !== null ? options.timeoutOf?.(faultId) : undefined) ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        ...(plan ? { plan } : {}),
        ...(options.budget !== undefined ? { budget: options.budget } : {}),
        ...(cases ? { filter: (p: PlannedCase) => cases.has(p.key) } : {}),
      });
    } finally {
      await server.close();
    }
  };
  const plannedKey = caseKeyOf(options.profile);
  const clean = options.skipClean === true ? [] : await runAgainst(null, true);
  const results: FaultResult[] = [];
  for (const fault of faults) {
    const executions = await runAgainst(fault.id, fault.level === 'http');
    const caught = executions.filter((e) => e.verdict === 'fail' && gating(e.level, fault.level === 'http'));
    const first = caught.find((e) => e.level === fault.level) ?? caught[0];
    const caughtIn: Record<string, string[]> = {};
    for (const e of caught) {
      const cases = (caughtIn[e.checkId] ??= []);
      const key = plannedKey(e);
      if (!cases.includes(key)) cases.push(key);
    }
    results.push({ fault, caughtBy: Object.keys(caughtIn).sort(), caughtIn, failures: caught.length, ...(first ? { example: first } : {}) });
  }
  return { clean, results };
}

/** Checks (spec and http) that no fault of the catalogue made fail: each one is a check that cannot fail. */
export function unprovenChecks(results: readonly Pick<FaultResult, 'caughtBy'>[]): string[] {
  const proven = new Set(results.flatMap((r) => r.caughtBy));
  return allChecks()
    .filter((c) => c.level !== 'observed' && !proven.has(c.id))
    .map((c) => c.id);
}

export function faultTable(results: readonly FaultResult[]): string {
  const rows = results.map((r) => [r.caughtBy.length > 0 ? 'caught' : 'MISSED', r.fault.id, r.fault.level, r.fault.section, r.caughtBy.join(', ') || '-']);
  const header = ['', 'fault', 'level', 'section', 'caught by'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  const caught = results.filter((r) => r.caughtBy.length > 0).length;
  return [line(header), ...rows.map(line), `${caught}/${results.length} faults caught (${results.length === 0 ? 0 : Math.round((caught / results.length) * 100)}%)`].join('\n');
}
