import { createHash } from 'node:crypto';
import type { Exchange } from '../contract/exchange.ts';
import type { DisposableKind, TargetProfile } from '../contract/profile/types.ts';
import type { CaseContext, CaseDef, CaseFormat, Probe, Step } from '../generate/case.ts';
import { impliedSpecChecks } from '../generate/case.ts';
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
  /** Requests it sends: `fixed + perRun × runs` (perRun is 0 for a fixed case). */
  fixedRequests: number;
  requestsPerRun: number;
  /** It tries generated inputs (probes): its request count grows with ISWC_RUNS. */
  generated: boolean;
}

/** The answer every dry-run step gets: a 200 with an agent run identifier (a new one each time), which every case can read on. */
function dryExchange(step: Step, n: number): Exchange {
  const body = `{"runId":"iswc-conformance-dry-run-${n}"}`;
  return {
    request: { method: step.request.method, url: step.request.path, headers: {}, body: '', bodyBytes: 0, bodyTruncated: false, auth: step.request.auth ?? 'key' },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body, bodyBytes: body.length, truncated: false },
    durationMs: 0,
    attempts: 1,
    waitedMs: 0,
  };
}

type Entries = Partial<Record<DisposableKind, unknown[]>>;

export async function sendsAt(def: CaseDef, format: CaseFormat, profile: TargetProfile, entries: Entries, runs: number): Promise<{ requests: number; probes: number; checks: Set<CheckId>; cells: Set<string> }> {
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
    const exchange = dryExchange(step, requests);
    agentRuns.after(sent, exchange);
    return exchange;
  };
  const seen = (step: Step) => {
    const own = step.expect.map((e) => e.checkId);
    // Probes of open points and requests outside the document are not judged by the every-answer spec checks.
    const judged = [...own, ...(step.probe ? [] : impliedSpecChecks(step.operation, own))];
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
    shape = { checks: [], cells: [], fixedRequests: low.requests, requestsPerRun: 0, generated: false };
  } else {
    const high = await sendsAt(def, format, profile, entries, 100);
    const perRun = Math.max(0, (high.requests - low.requests) / 50);
    shape = { checks: [], cells: [], fixedRequests: Math.max(0, Math.round(low.requests - 50 * perRun)), requestsPerRun: perRun, generated: true };
    for (const c of high.checks) low.checks.add(c);
    for (const c of high.cells) low.cells.add(c);
  }
  shape.checks = [...low.checks];
  shape.cells = [...low.cells].sort();
  cache.set(key, shape);
  return shape;
}

/** Requests a case of this shape sends at `runs` runs per property. */
export function requestsOf(shape: CaseShape, runs: number): number {
  return Math.ceil(shape.fixedRequests + shape.requestsPerRun * runs);
}
