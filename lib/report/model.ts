import type { ConsumedEntry } from './consumed.ts';
import type { CheckExecution, Level, Verdict } from '../run/execution.ts';
import type { WaiverSummary } from './waivers/types.ts';
import type { RunOutcome } from './outcome.ts';
import type { RunVerdict, SpecCoverage } from './verdict.ts';

/** `reports/conformance.json`: one run, every check execution. Every writer reads this; none re-derives verdicts. */
export interface RunMeta {
  harnessVersion: string;
  documentDigest: string;
  schemasDigest: string;
  baseUrl: string | null;
  embedded: boolean;
  profile: string;
  seed: number | null;
  runs: number;
  strict: boolean;
  destructive: boolean;
  startedAt: string;
  finishedAt: string;
  /** Requests sent to the target, resends included (RunFigures.sent). */
  requests: number;
  /** Of those, resends (RunFigures.retried). */
  retries: number;
  /** Wall time waited on throttling or maintenance (RunFigures.waitedMs). */
  waitedMs: number;
  /** Of the requests sent, those answered with an HTTP status; absent in reports of earlier harness versions. */
  answered?: number;
  /** Requests the plan counted for the selected cases; absent in reports of earlier harness versions. */
  planned?: number;
  /** ISWC_PLAN and ISWC_BUDGET, where the run recorded them (the reporter does; in-process builds need not). */
  plan?: RunPlan;
  /** The proxy and extra header names of the run, where it recorded them. */
  network?: RunNetwork;
  /** The report file and the profile (when not the default) as the run's caller types them, for the replay commands every output prints. */
  replay?: ReplayFiles;
  /** Disposable entries this run consumed, and an earlier run's it did not find back (lib/report/consumed.ts). */
  consumed?: ConsumedEntry[];
  /** SHA-256 of the target profile as used (lib/report/binding.ts); absent in reports of earlier harness versions. */
  profileDigest?: string;
  /** The agency the profile acts for; absent in reports of earlier harness versions. */
  agency?: string;
  /** The body formats the target serves (profile `formats`), when not both: ["json"] is a JSON-only run. */
  formats?: Array<'json' | 'xml'>;
  /** SHA-256 of the waivers' entries (lib/report/binding.ts), null without waivers; absent in earlier reports. */
  waiversDigest?: string | null;
}

/** Where a failure's replay command finds the run: paths as the run's caller types them, from the directory the run was started in. */
export interface ReplayFiles {
  report: string;
  /** The run's profile, when it is not the default one (replay's --target). */
  target?: string;
}

/**
 * What a run sent, in the four figures every output gives alike (the console's progress and summary,
 * conformance.json's meta, the HTML and the certificate): planned, sent, retried, answered; and the wall
 * time it waited on throttling or on a target in maintenance.
 */
export interface RunFigures {
  /** Requests the plan counts for the selected cases: at most this many for fixed cases (a target that refuses an agent run needs no request to end it); generated inputs vary with the seed and the answers. */
  planned: number;
  /** Requests sent to the target, resends included: what a budget caps and a gateway counts. */
  sent: number;
  /** Of those, resends (after 429, 502, 503, 504, or a connection that could not be made). */
  retried: number;
  /** Of those, the ones answered with an HTTP status. */
  answered: number;
  /** Wall time a request waited on throttling or on a target in maintenance (never summed over requests), in ms. */
  waitedMs: number;
}

/** How a run reached its target: never a proxy's credentials nor a header's value. */
export interface RunNetwork {
  proxy: { url: string; variable: string; mode: 'connect' | 'absolute-form' } | null;
  bypass?: string;
  extraHeaders: string[];
}

export interface RunPlan {
  name: 'full' | 'smoke';
  budget: number | null;
  /** ISWC_SLICE: the slice of the budget's rotation the run took (as asked; absent: 0, or no budget). */
  slice?: number;
  /**
   * The faults of the reference server's catalogue the run tried: those the committed measurement says the
   * cases it ran whole catch (lib/run/tried.ts); what `ledger` adds up across gates. Absent where the run did
   * not record it (a merge of shards, reports built in-process, earlier harness versions).
   */
  tried?: string[];
  /** The fingerprint of the measurement `tried` refers to (lib/run/plans.generated.ts), present with it. */
  catalogue?: string;
}

export type Tally = Record<Verdict, number>;

export interface RunSummary {
  byLevel: Record<Level, Tally>;
  gatingFailures: number;
  verdict: RunVerdict;
  /** What the verdict reads: "conformant on 14 of 19 spec checks with 1 waiver", "not conformant", … */
  verdictText: string;
  coverage: SpecCoverage;
  /** Present when the run had a waivers file (ISWC_WAIVERS): each entry with its status and count. */
  waivers?: WaiverSummary;
  /**
   * How the run ended (completed, interrupted, target unusable, stopped at --max-duration), why, and the
   * exit code that follows. Always written; absent only from reports written before it existed.
   */
  outcome?: RunOutcome;
}

export interface ConformanceReport {
  meta: RunMeta;
  summary: RunSummary;
  executions: CheckExecution[];
}

export function emptyTally(): Tally {
  return { pass: 0, fail: 0, skip: 0, observed: 0, waived: 0 };
}

export function tallyByLevel(executions: readonly CheckExecution[]): Record<Level, Tally> {
  const out: Record<Level, Tally> = { spec: emptyTally(), http: emptyTally(), observed: emptyTally() };
  for (const e of executions) out[e.level][e.verdict] += 1;
  return out;
}

/** Stable order: by case, format, step, check — so two runs diff cleanly whatever the worker order was. */
export function sortExecutions(executions: CheckExecution[]): CheckExecution[] {
  return executions.sort(
    (a, b) => a.caseId.localeCompare(b.caseId) || a.format.localeCompare(b.format) || a.step.localeCompare(b.step) || a.checkId.localeCompare(b.checkId),
  );
}
