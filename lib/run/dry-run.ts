import { createHash } from 'node:crypto';
import type { Exchange } from '../contract/exchange.ts';
import type { DisposableKind, TargetProfile } from '../contract/profile/types.ts';
import type { CaseContext, CaseDef, CaseFormat, Probe, Step } from '../generate/case.ts';
import { plannedChecksOf } from '../generate/case.ts';
import { OpenRuns } from './open-runs.ts';
import { withRunId } from './run-ids.ts';
import { CHECK_MANIFEST } from '../generate/checks.generated.ts';
import type { CheckId } from '../generate/checks.generated.ts';
import { ampleEntriesFor } from './ample.ts';

/**
 * What a case does, derived by running it against nothing: every step it would send is counted and its
 * expectations collected, every answer is a plausible success. So no case states its checks or its
 * request count by hand; the planner and the reports read them from here.
 */
export interface CaseShape {
  /** Targeted checks its steps ask for, and the every-answer spec checks those imply. */
  checks: CheckId[];
  /**
   * Where those checks judge: `operation/check/format` of every gating (spec or http) check of every step,
   * the operation the step calls (a merge case's demerge steps judge the demerge). The spread a plan ranks by.
   */
  cells: string[];
  /** Requests it sends: `fixed + perRun × runs` (perRun is 0 for a fixed case), the line through 50 and 100 runs. */
  fixedRequests: number;
  requestsPerRun: number;
  /**
   * For a generated case, its requests measured at a few sizes ([runs, requests], by runs): what
   * requestsOf interpolates, since a case may not grow in a line (the model test sends at least ten
   * sequences, whatever the runs).
   */
  samples?: Array<[number, number]>;
  /** It tries generated inputs (probes): its request count grows with ISWC_RUNS. */
  generated: boolean;
  /**
   * Of a fixed case, the fewest requests it sends: when the target refuses every agent run whose
   * acceptance the case does not demand (it then ends none of them). The other counts are the most:
   * every agent run accepted (production validates nothing, docs/production.md), each then ended.
   */
  fewestRequests?: number;
}

/**
 * The answer a dry-run step gets: a 200 with an agent run identifier (a new one each time), which every
 * case can read on. Counting the fewest requests, an agent run whose acceptance the case does not demand
 * is refused instead (400): a target that refuses it opens no run, and the harness sends no end for it.
 */
function dryExchange(step: Step, n: number, fewest: boolean): Exchange {
  const refused = fewest && step.operation === 'notifyAgentRun' && !step.expect.some((e) => ACCEPTANCE.has(e.checkId));
  const body = refused ? 'Bad Request' : `{"runId":"iswc-conformance-dry-run-${n}"}`;
  return {
    request: { method: step.request.method, url: step.request.path, headers: {}, body: '', bodyBytes: 0, bodyTruncated: false, auth: step.request.auth ?? 'key' },
    response: { status: refused ? 400 : 200, headers: { 'content-type': refused ? 'text/plain' : 'application/json' }, body, bodyBytes: body.length, truncated: false },
    durationMs: 0,
    attempts: 1,
    waitedMs: 0,
  };
}

/** Checks that demand the request be accepted: an agent run they judge is never answered as refused. */
const ACCEPTANCE: ReadonlySet<string> = new Set(['status.success', 'limit.accepted', 'content-type.optional', 'outcome.run-ids-distinct', 'response.schema']);

type Entries = Partial<Record<DisposableKind, unknown[]>>;

async function sendsAt(def: CaseDef, format: CaseFormat, profile: TargetProfile, entries: Entries, runs: number, fewest = false): Promise<{ requests: number; probes: number; checks: Set<CheckId>; cells: Set<string> }> {
  let requests = 0;
  let probes = 0;
  const checks = new Set<CheckId>();
  const cells = new Set<string>();
  const cellFormat = format === 'none' ? 'none' : format;
  // Every agent run a case starts and leaves open costs one request more: the end the runner sends for it.
  const agentRuns = new OpenRuns(profile, undefined);
  const endCounted = (): Promise<void> => {
    requests += 1;
    return Promise.resolve();
  };
  const answer = async (step: Step): Promise<Exchange> => {
    const request = withRunId(step.operation, step.request, profile.runIds);
    const sent = await agentRuns.before(step.operation, request, endCounted);
    const exchange = dryExchange(step, requests, fewest);
    agentRuns.after(sent, exchange);
    return exchange;
  };
  const seen = (step: Step) => {
    // Probes of open points and requests outside the document are not judged by the every-answer spec checks.
    const judged = plannedChecksOf(step);
    for (const id of judged) {
      checks.add(id);
      if (CHECK_MANIFEST[id].level !== 'observed') cells.add(`${step.operation ?? 'http'}/${id}/${cellFormat}`);
    }
  };
  const ctx: CaseContext = {
    format,
    profile,
    entries,
    seed: 1,
    runs,
    strict: false,
    noShrink: false,
    send(step: Step): Promise<Exchange> {
      requests += 1;
      seen(step);
      return answer(step);
    },
    async probe(step: Step): Promise<Probe> {
      requests += 1;
      probes += 1;
      seen(step);
      return { step, exchange: await answer(step), failures: [] };
    },
    record(step: Step): void {
      seen(step);
    },
  };
  await def.run(ctx);
  await agentRuns.finish(endCounted);
  return { requests, probes, checks, cells };
}

const cache = new Map<string, CaseShape>();
const profileKeys = new WeakMap<TargetProfile, string>();

/** A key of everything in a profile (two profiles of one name may hold different data). */
function profileKey(profile: TargetProfile): string {
  let key = profileKeys.get(profile);
  if (key === undefined) {
    key = createHash('sha256').update(JSON.stringify(profile)).digest('hex');
    profileKeys.set(profile, key);
  }
  return key;
}

/**
 * The shape of a case in one format, given the profile and the disposable entries it was given (made-up
 * ones when it got none). A
 * generated case is run at two sizes and its request count read as a line through them (a property sends
 * one request a run, the model test a sequence every fifth run).
 */
export async function shapeOf(def: CaseDef, format: CaseFormat, profile: TargetProfile, entries: Entries = ampleEntriesFor(def, profile.agency)): Promise<CaseShape> {
  const key = `${profileKey(profile)}\u0001${def.id}\u0001${format}\u0001${JSON.stringify(entries)}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const low = await sendsAt(def, format, profile, entries, 50);
  let shape: CaseShape;
  if (low.probes === 0) {
    shape = { checks: [], cells: [], fixedRequests: low.requests, requestsPerRun: 0, generated: false, fewestRequests: await fewestOf(def, format, profile, entries, low.requests) };
  } else {
    const high = await sendsAt(def, format, profile, entries, 100);
    const perRun = Math.max(0, (high.requests - low.requests) / 50);
    const small: Array<[number, number]> = [];
    for (const runs of SMALL_SIZES) small.push([runs, (await sendsAt(def, format, profile, entries, runs)).requests]);
    shape = { checks: [], cells: [], fixedRequests: Math.max(0, Math.round(low.requests - 50 * perRun)), requestsPerRun: perRun, generated: true, samples: [...small, [50, low.requests], [100, high.requests]] };
    for (const c of high.checks) low.checks.add(c);
    for (const c of high.cells) low.cells.add(c);
  }
  shape.checks = [...low.checks];
  shape.cells = [...low.cells].sort();
  cache.set(key, shape);
  return shape;
}

/** The fewest requests of a fixed case (see CaseShape.fewestRequests); the most when a case cannot be run so. */
async function fewestOf(def: CaseDef, format: CaseFormat, profile: TargetProfile, entries: Entries, most: number): Promise<number> {
  try {
    return Math.min(most, (await sendsAt(def, format, profile, entries, 50, true)).requests);
  } catch {
    return most;
  }
}

/** The fewest requests a planned case sends at `runs` runs: a generated case's count varies with its inputs, and is taken as it is. */
export function fewestRequestsOf(shape: CaseShape, runs: number): number {
  return shape.generated ? requestsOf(shape, runs) : (shape.fewestRequests ?? shape.fixedRequests);
}

/** The sizes a generated case is measured at besides 50 and 100 runs (budgets give a few runs). */
const SMALL_SIZES = [1, 10] as const;

/**
 * Requests a case of this shape sends at `runs` runs per property: for a generated case, interpolated
 * between the sizes it was measured at (beyond the last, along the line through the last two).
 */
export function requestsOf(shape: CaseShape, runs: number): number {
  const samples = shape.samples;
  if (!samples || samples.length < 2) return Math.ceil(shape.fixedRequests + shape.requestsPerRun * runs);
  const first = samples[0];
  if (runs <= first[0]) return first[1];
  for (let i = 1; i < samples.length; i += 1) {
    const [r0, q0] = samples[i - 1];
    const [r1, q1] = samples[i];
    if (runs <= r1 || i === samples.length - 1) return Math.ceil(q0 + ((q1 - q0) * (runs - r0)) / (r1 - r0));
  }
  return first[1];
}
