import { createHash } from 'node:crypto';
import type { Exchange } from '../contract/exchange.ts';
import { runIdOf } from '../contract/answer.ts';
import type { DisposableKind, TargetProfile } from '../contract/profile/types.ts';
import type { CaseContext, CaseDef, CaseFormat, Probe, Restoration, Step } from '../generate/case.ts';
import { UNDO_LIMIT } from './restore.ts';
import { leftOutRequests } from './parts.ts';
import type { PartShape } from './parts.ts';
import { caseTells } from './tells.ts';
import type { CaseTells } from './tells.ts';
import { plannedChecksOf } from '../generate/case.ts';
import { OpenRuns } from './open-runs.ts';
import { withRunId } from './run-ids.ts';
import { CHECK_MANIFEST } from '../generate/checks.generated.ts';
import type { CheckId } from '../generate/checks.generated.ts';
import { ampleEntriesFor } from './ample.ts';
import { keepShape, keptShape } from './shape-cache.ts';
import { profileKey } from '../contract/profile/key.ts';

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
  /**
   * Of a generated case whose count falls when the target refuses the agent runs it does not demand be
   * accepted (fewestRequests), its requests so, at the sizes of `samples`; absent when the count does not fall.
   */
  fewestSamples?: Array<[number, number]>;
  /** It tries generated inputs (probes): its request count grows with ISWC_RUNS. */
  generated: boolean;
  /**
   * Of a fixed case, the fewest requests it sends: when the target refuses every agent run whose
   * acceptance the case does not demand (it then ends none of them). The other counts are the most:
   * every agent run accepted (production validates nothing, docs/production.md), each then ended.
   */
  fewestRequests?: number;
  /**
   * Of a case with parts (CaseDef.parts), what each part sends and judges on its own, in declaration
   * order; the core is what is left (`fixedRequests` less every part's requests).
   */
  parts?: PartShape[];
  /**
   * Of a case with parts, the checks and cells its core's own steps judge (a check both the core and a part
   * judge is the core's too: leaving the part out leaves it exercised).
   */
  coreChecks?: CheckId[];
  coreCells?: string[];
  /** What the steering of a budget reads of it (lib/run/steer.ts). */
  tells?: CaseTells;
  /**
   * A digest of what the case sends and asks of each answer in its dry run (every step's request and
   * expectations, in order, with its part): what scripts/plans.ts keys a case's measurement by, so that
   * only the cases whose requests changed are measured again.
   */
  digest?: string;
}

export type { PartShape };

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
const ACCEPTANCE: ReadonlySet<string> = new Set(['status.success', 'limit.accepted', 'content-type.optional', 'outcome.run-ids-distinct', 'outcome.run-end-same-id', 'response.schema']);

type Entries = Partial<Record<DisposableKind, unknown[]>>;

interface Sends {
  requests: number;
  probes: number;
  checks: Set<CheckId>;
  cells: Set<string>;
  /** Per part: what its steps sent and judged. */
  parts: Map<string, { requests: number; probes: number; checks: Set<CheckId>; cells: Set<string> }>;
  /** What the steps outside every part judged. */
  core: { checks: Set<CheckId>; cells: Set<string> };
  /** Every step it sent or recorded (what the steering reads, lib/run/steer.ts). */
  steps: Array<{ step: Step; format: CaseFormat }>;
}

async function sendsAt(def: CaseDef, format: CaseFormat, profile: TargetProfile, entries: Entries, runs: number, fewest = false): Promise<Sends> {
  let requests = 0;
  let probes = 0;
  const checks = new Set<CheckId>();
  const cells = new Set<string>();
  const parts: Sends['parts'] = new Map();
  const core: Sends['core'] = { checks: new Set(), cells: new Set() };
  const steps: Sends['steps'] = [];
  let current: string | undefined;
  const inPart = () => (current === undefined ? undefined : parts.get(current));
  const cellFormat = format === 'none' ? 'none' : format;
  // Every agent run a case starts and leaves open costs one request more: the end the runner sends for it.
  const agentRuns = new OpenRuns(profile, undefined);
  // The end of a run is counted to the part that started it (a part taken alone sends its runs' ends too).
  const startedIn = new Map<string, string | undefined>();
  const endCounted = (runId: string): Promise<void> => {
    requests += 1;
    const id = startedIn.has(runId) ? startedIn.get(runId) : current;
    const part = id === undefined ? undefined : parts.get(id);
    if (part) part.requests += 1;
    return Promise.resolve();
  };
  const answer = async (step: Step): Promise<Exchange> => {
    const request = withRunId(step.operation, step.request, profile.runIds);
    const sent = await agentRuns.before(step.operation, request, endCounted);
    const exchange = dryExchange(step, requests, fewest);
    agentRuns.after(sent, exchange);
    const runId = sent?.mayStart ? runIdOf(exchange) : undefined;
    if (runId !== undefined && runId !== '' && !startedIn.has(runId)) startedIn.set(runId, current);
    return exchange;
  };
  const seen = (step: Step) => {
    steps.push({ step, format });
    // Probes of open points and requests outside the document are not judged by the every-answer spec checks.
    const judged = plannedChecksOf(step);
    const part = inPart() ?? core;
    for (const id of judged) {
      checks.add(id);
      part.checks.add(id);
      if (CHECK_MANIFEST[id].level === 'observed') continue;
      const cell = `${step.operation ?? 'http'}/${id}/${cellFormat}`;
      cells.add(cell);
      part.cells.add(cell);
    }
  };
  const counted = (probe: boolean): void => {
    requests += 1;
    if (probe) probes += 1;
    const part = inPart();
    if (part) {
      part.requests += 1;
      if (probe) part.probes += 1;
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
      counted(false);
      seen(step);
      return answer(step);
    },
    async probe(step: Step): Promise<Probe> {
      counted(true);
      seen(step);
      return { step, exchange: await answer(step), failures: [] };
    },
    record(step: Step): void {
      seen(step);
    },
    async part(id: string, steps: () => Promise<void>): Promise<void> {
      if (current !== undefined) throw new Error(`${def.id}: part "${id}" inside part "${current}" (parts do not nest)`);
      if (!def.parts?.some((p) => p.id === id)) throw new Error(`${def.id}: part "${id}" is not declared in its parts`);
      if (parts.has(id)) throw new Error(`${def.id}: part "${id}" runs twice`);
      parts.set(id, { requests: 0, probes: 0, checks: new Set(), cells: new Set() });
      current = id;
      try {
        await steps();
      } finally {
        current = undefined;
      }
    },
    restore(change: Restoration): void {
      // Sent when the case ends, until refused (lib/run/restore.ts): counted at its most, to the part that made the change.
      for (let i = 0; i < UNDO_LIMIT; i += 1) counted(false);
      seen(change.undo);
    },
    // Read back at the run's end: counted where the case registers it, in its part.
    atRunEnd(steps: () => Promise<void>): Promise<void> {
      return steps();
    },
  };
  await def.run(ctx);
  await agentRuns.finish(endCounted);
  return { requests, probes, checks, cells, parts, core, steps };
}

/** The digest of a case's dry run (CaseShape.digest): its declaration's data, then every step it sent or recorded. */
function stepsDigest(def: CaseDef, steps: Sends['steps']): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ id: def.id, claims: def.claims ?? [], changesData: def.changesData ?? false, needs: def.needs ?? [], parts: def.parts?.map((p) => ({ ...p })) ?? [] }));
  for (const { step, format } of steps) hash.update('\u0000').update(format).update(JSON.stringify(step));
  return hash.digest('hex').slice(0, 16);
}

const cache = new Map<string, CaseShape>();

/**
 * The shape of a case in one format, given the profile and the disposable entries it was given (made-up
 * ones when it got none). A
 * generated case is run at two sizes and its request count read as a line through them (a property sends
 * one request a run, the model test a sequence every fifth run).
 */
export async function shapeOf(def: CaseDef, format: CaseFormat, profile: TargetProfile, entries: Entries = ampleEntriesFor(def, profile.agency)): Promise<CaseShape> {
  const key = `${profileKey(profile)}\u0001${def.id}\u0001${format}\u0001${JSON.stringify(entries)}`;
  const cached = cache.get(key) ?? keptShape<CaseShape>(profileKey(profile), key);
  if (cached) {
    cache.set(key, cached);
    return cached;
  }
  const low = await sendsAt(def, format, profile, entries, 50);
  let digestSteps = low.steps;
  let shape: CaseShape;
  if (low.probes === 0) {
    shape = { checks: [], cells: [], fixedRequests: low.requests, requestsPerRun: 0, generated: false, fewestRequests: await fewestOf(def, format, profile, entries, low.requests) };
  } else {
    const high = await sendsAt(def, format, profile, entries, 100);
    const perRun = Math.max(0, (high.requests - low.requests) / 50);
    const small: Array<[number, number]> = [];
    for (const runs of SMALL_SIZES) {
      const sent = await sendsAt(def, format, profile, entries, runs);
      small.push([runs, sent.requests]);
      // Its digest is of what it sends at ten runs: its fixed steps and ten generated inputs (at 50, a planning's time went into hashing them).
      if (runs === DIGEST_RUNS) digestSteps = sent.steps;
    }
    shape = { checks: [], cells: [], fixedRequests: Math.max(0, Math.round(low.requests - 50 * perRun)), requestsPerRun: perRun, generated: true, samples: [...small, [50, low.requests], [100, high.requests]] };
    const fewest = await fewestSamplesOf(def, format, profile, entries, shape.samples ?? []);
    if (fewest) shape.fewestSamples = fewest;
    for (const c of high.checks) low.checks.add(c);
    for (const c of high.cells) low.cells.add(c);
    for (const c of high.core.checks) low.core.checks.add(c);
    for (const c of high.core.cells) low.core.cells.add(c);
  }
  shape.checks = [...low.checks];
  shape.cells = [...low.cells].sort();
  const parts = partShapes(def, low);
  if (parts) {
    shape.parts = parts;
    shape.coreChecks = [...low.core.checks];
    shape.coreCells = [...low.core.cells].sort();
  }
  shape.tells = caseTells(low.steps, profile.unknownIswcs);
  shape.digest = stepsDigest(def, digestSteps);
  cache.set(key, shape);
  keepShape(profileKey(profile), key, shape);
  return shape;
}

/** What each declared part of a case sends and judges (the parts its dry run went through), in declaration order. */
function partShapes(def: CaseDef, sends: Sends): PartShape[] | undefined {
  if (!def.parts || def.parts.length === 0) return undefined;
  return def.parts.flatMap((decl): PartShape[] => {
    const seen = sends.parts.get(decl.id);
    if (!seen) return [];
    // A budget takes a part at a count known ahead: generated inputs belong to the core.
    if (seen.probes > 0) throw new Error(`${def.id}: part "${decl.id}" tries generated inputs; a part sends fixed requests only`);
    for (const before of decl.after ?? []) if (!def.parts?.some((p) => p.id === before)) throw new Error(`${def.id}: part "${decl.id}" comes after "${before}", which is not one of its parts`);
    return [{ id: decl.id, title: decl.title, after: [...(decl.after ?? [])], requests: seen.requests, checks: [...seen.checks], cells: [...seen.cells].sort(), ...(decl.shows !== undefined ? { shows: decl.shows } : {}) }];
  });
}

/**
 * A generated case's fewest requests at the sizes it was measured at (CaseShape.fewestSamples): measured at
 * 50 runs first, and at the other sizes only when that count falls short of the most.
 */
async function fewestSamplesOf(def: CaseDef, format: CaseFormat, profile: TargetProfile, entries: Entries, samples: ReadonlyArray<readonly [number, number]>): Promise<Array<[number, number]> | undefined> {
  const at50 = samples.find(([runs]) => runs === 50);
  if (!at50 || (await fewestOf(def, format, profile, entries, at50[1], 50)) >= at50[1]) return undefined;
  const fewest: Array<[number, number]> = [];
  for (const [runs, most] of samples) fewest.push([runs, await fewestOf(def, format, profile, entries, most, runs)]);
  return fewest;
}

/** The fewest requests of a fixed case (see CaseShape.fewestRequests); the most when a case cannot be run so. */
async function fewestOf(def: CaseDef, format: CaseFormat, profile: TargetProfile, entries: Entries, most: number, runs = 50): Promise<number> {
  try {
    return Math.min(most, (await sendsAt(def, format, profile, entries, runs, true)).requests);
  } catch {
    return most;
  }
}

/**
 * The fewest requests a planned case sends at `runs` runs (CaseShape.fewestRequests): of a generated case,
 * at the sizes it was measured at when the target refuses the agent runs it may refuse (fewestSamples).
 */
export function fewestRequestsOf(shape: CaseShape, runs: number, parts?: readonly string[]): number {
  const fewest = shape.generated && shape.fewestSamples ? interpolated(shape.fewestSamples, runs) : undefined;
  if (fewest !== undefined) return Math.max(0, fewest - leftOutRequests(shape, parts));
  if (shape.generated) return requestsOf(shape, runs, parts);
  return Math.max(0, (shape.fewestRequests ?? shape.fixedRequests) - leftOutRequests(shape, parts));
}

/** The sizes a generated case is measured at besides 50 and 100 runs (budgets give a few runs). */
const SMALL_SIZES = [1, 10] as const;
/** The runs of a generated case its digest is taken at (one of SMALL_SIZES). */
const DIGEST_RUNS = 10;

/**
 * Requests a case of this shape sends at `runs` runs per property: for a generated case, interpolated
 * between the sizes it was measured at (beyond the last, along the line through the last two).
 */
export function requestsOf(shape: CaseShape, runs: number, parts?: readonly string[]): number {
  return wholeRequestsOf(shape, runs) - leftOutRequests(shape, parts);
}

function wholeRequestsOf(shape: CaseShape, runs: number): number {
  return (shape.samples ? interpolated(shape.samples, runs) : undefined) ?? Math.ceil(shape.fixedRequests + shape.requestsPerRun * runs);
}

/** Requests at `runs`, read between the sizes measured ([runs, requests], by runs); beyond the last, along the line through the last two. */
function interpolated(samples: ReadonlyArray<readonly [number, number]>, runs: number): number | undefined {
  if (samples.length < 2) return undefined;
  const first = samples[0];
  if (runs <= first[0]) return first[1];
  for (let i = 1; i < samples.length; i += 1) {
    const [r0, q0] = samples[i - 1];
    const [r1, q1] = samples[i];
    if (runs <= r1 || i === samples.length - 1) return Math.ceil(q0 + ((q1 - q0) * (runs - r0)) / (r1 - r0));
  }
  return first[1];
}
