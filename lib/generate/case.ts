import type { Expectation } from './expectations.ts';
import type { CheckId } from './checks.generated.ts';
import type { Format } from '../contract/codec/index.ts';
import type { OperationId } from '../contract/operations.ts';
import type { Exchange, RequestSpec } from '../contract/exchange.ts';
import type { DisposableKind, TargetProfile } from '../contract/profile/types.ts';
import type { Need } from './needs.ts';

/** The format a case is run in: a body format, or 'none' for operations without a body. */
export type CaseFormat = Format | 'none';

export type { Expectation };

export interface Step {
  /** Short label shown in reports: 'merge profile entry', 'repeat demerge'. */
  label: string;
  operation: OperationId | null;
  request: RequestSpec;
  expect: Expectation[];
  /** Statuses that are documented answers for this request beyond the operation's (401/403 for auth probes). */
  extraStatuses?: number[];
  /**
   * `open-point`: the request probes a point the document leaves open (an unknown runId, null fields, a
   * DOCTYPE), so which status answers it is open: `status.documented` does not judge it, and every other
   * every-answer check still does (a 200 of the run notification carries a runId, its 400 says "Bad
   * Request", a 204 has no body, whatever the status). `outside-document`: a request the document does not
   * describe at all (another method, an oversized body, another media type): only `http` and `observed`
   * checks judge it, with the step's own targeted checks.
   */
  probe?: 'open-point' | 'outside-document';
  /** The server may close the connection instead of answering (an oversized body, RFC 9110 §15.5.14). */
  connectionMayClose?: boolean;
}

export interface CaseInput {
  format: CaseFormat;
  profile: TargetProfile;
  /** Disposable entries given to this case (in claim order), when it claims any. */
  entries: Partial<Record<DisposableKind, unknown[]>>;
  /** fast-check seed of the run (ISWC_SEED) and runs per property (ISWC_RUNS). */
  seed: number;
  runs: number;
  /** ISWC_STRICT: http-level failures count as failures of a property too. */
  strict: boolean;
  /** Under a request budget a failing property stops at once instead of shrinking (each shrink is a request). */
  noShrink?: boolean;
  /** Set when one failure is replayed (`replay <id>`): what of the case's generated inputs to send. */
  replay?: CaseReplay;
  /**
   * The parts of the case (CaseDef.parts) the plan took, with every part they come after; absent: every
   * part. A request budget may take a case's core and some of its parts (lib/run/parts.ts).
   */
  parts?: readonly string[];
  /**
   * The run may change disposable entries only in ways it undoes, and must show it did (the profile's
   * `reusable`, lib/run/restore.ts): a claim marked `restores` is served so, and a case then keeps to
   * what it can undo and registers each change with `restore`.
   */
  reusable?: boolean;
  /**
   * What `atRunEnd` does with its steps: `defer` keeps them until every other case of the run has ended
   * (a run without a request budget), `inline` sends them at once (a budget, a case run alone: a
   * measurement, a replay). Absent: inline.
   */
  runEnd?: 'defer' | 'inline';
  /**
   * Whose run starts the ledger of runIds compares a start with (lib/run/run-id-ledger.ts): the whole run's
   * (default), or the case's own, for the plans' measurement, which credits each case with what it catches alone.
   */
  runIdScope?: 'run' | 'case';
}

/**
 * A part of a case that a request budget can take on its own: a complete proof with its own steps
 * (`ctx.part(id, …)`), sent after the case's core (the steps outside every part) and after the parts it
 * names in `after`, which taking it takes too. It must hold whichever other parts are left out: it
 * assumes nothing of what their requests did, and proves every item it names.
 */
export interface CasePart {
  id: string;
  /** What the part shows, for plans and reports: "the key refused on the merge that then succeeds". */
  title: string;
  /** Parts whose requests this one builds on (the state they leave): taken with it, sent before it. */
  after?: readonly string[];
  /**
   * The class of fault the part shows, when it is one no other part shows: a field read one lenient way
   * (`deleteSubmission.query.workcode/trim`), the key compared one loose way. The ranking covers each class
   * once, as it covers faults: a fault of that class no measurement saw is then caught all the same.
   */
  shows?: string;
}

/**
 * A change a case made to a disposable entry that the run undoes and shows undone (a work merged into a
 * preferred ISWC, demerged again). `undo` is sent until it is refused, at most `UNDO_LIMIT` times (a
 * conforming server refuses it once nothing is left to undo); its refusal is the proof, judged with the
 * check it names. Registered with `ctx.restore` right before the request that makes the change, so that
 * the proof is sent whatever happens after it (a failing step, a stop, a tripped circuit breaker aside).
 */
export interface Restoration {
  /** Which entry of the profile changed ("merges entry into T3100000004"), and what of it (`T3100000004 ← 128/IM00700100`). */
  entry: string;
  what: string;
  /** The request that undoes the change (a demerge): a 204 while something is left, refused once nothing is. */
  undo: Step;
}

/**
 * What a case sends when one of its failures is replayed. `generated`: the one generated input at `path`
 * (a property's shrunk counterexample or last input, a sequence of the model test), with the case's fixed
 * steps around it; `fixed`: the case's fixed steps, and no generated input at all.
 */
export type CaseReplay = { kind: 'generated'; seed: number; path: string; replayPath?: string; modelState?: unknown } | { kind: 'fixed' };

/** How to replay a generated input: the fast-check seed and the path of the shrunk counterexample. */
export interface Replay {
  seed: number;
  path?: string;
  /** fast-check's replayPath of a command sequence (the model test): needed to walk `path` again. */
  replayPath?: string;
  /** The model test's model of the target before the sequence ran: a replay starts from it. */
  modelState?: unknown;
  /**
   * What fast-check did to get the input (runs, shrinks, the sequence): it changes with the seed, so it is
   * kept here and never in the step's label, which feeds the failure's id (lib/report/identity.ts).
   */
  generated?: string;
}

/** A step sent and judged but not recorded: what a property tries many times. */
export interface Probe {
  step: Step;
  exchange: Exchange;
  /** Gating failures, one line each (empty when the answer is conformant). */
  failures: string[];
}

/** What a case can do while it runs. */
export interface CaseContext extends CaseInput {
  /** Sends, judges and records a step. */
  send(step: Step, replay?: Replay): Promise<Exchange>;
  /** Sends and judges a step without recording it. */
  probe(step: Step): Promise<Probe>;
  /** Records an exchange already sent (the last or the minimal failing input of a property). */
  record(step: Step, exchange: Exchange, replay?: Replay): void;
  /**
   * Runs the steps of one of the case's parts (CaseDef.parts) when the plan took it, and skips them
   * otherwise. Parts do not nest.
   */
  part(id: string, steps: () => Promise<void>): Promise<void>;
  /** Registers a change the run must undo and show undone (a reusable profile's entries; see Restoration). */
  restore(change: Restoration): void;
  /**
   * Read back (issue 38): steps that prove again, at the run's end, what the case's first steps changed
   * (a repeat of a delete, refused once more), so that an effect that lapses after its 204 is seen
   * whatever the pace. Sent when every other case of the run has ended (CaseInput.runEnd), in the part
   * that registered them; a case that calls it declares `readsBack`.
   */
  atRunEnd(steps: () => Promise<void>): Promise<void>;
}

/**
 * A case: one request or a short chain of requests that shows one thing about the API, with the checks
 * that judge its answers. Cases are data plus a small run function; the runner (Playwright, or the
 * in-process self-check) loops over them.
 */
export interface CaseDef {
  /** Stable id, e.g. `merge.limit.rejected.agencyWorks[].agencyCode.above-max`. */
  id: string;
  title: string;
  operation: OperationId | null;
  formats: readonly CaseFormat[];
  tags: readonly string[];
  /**
   * Disposable entries per format. A case with consuming claims is destructive; `readOnly` claims only
   * name existing data (e.g. next to a broken value that must get 400) and run in any mode. A claim with
   * `atLeast` runs with fewer entries, down to that many, and is topped up from what no other case needs.
   */
  claims?: ReadonlyArray<{ kind: DisposableKind; count: number; readOnly?: boolean; atLeast?: number; restores?: boolean }>;
  /**
   * What else the case needs of the profile (lib/generate/needs.ts): items of a list it reads, or what its
   * claimed entries must carry. Unmet, the case is skipped with what it lacks, or, for a need that names
   * its `checks`, runs without them and reports them skipped with what it lacks.
   */
  needs?: readonly Need[];
  /** Requests that may change data even on a conforming server (beyond consuming claims). */
  changesData?: boolean;
  /**
   * Parts a budget may take one at a time (CasePart); the steps outside every part are the case's core,
   * always sent when the case runs. Absent: the case is taken whole.
   */
  parts?: readonly CasePart[];
  /**
   * Its last steps wait for the run's end (`ctx.atRunEnd`): the test that runs it has no time limit of its
   * own (the run's limits bound it: a signal, --max-duration).
   */
  readsBack?: boolean;
  /** Cases sharing a group run as one Playwright test (the report still lists every check execution). */
  group?: { id: string; title: string };
  run(ctx: CaseContext): Promise<void>;
}


/**
 * The checks a plan counts on a step: those it asks for, and the every-answer spec checks they imply
 * (none on a probe, whose answer the document leaves open). A run counts a spec check exercised only
 * where a step planned it, so that `plan`, `profile check` and the run give one figure.
 */
export function plannedChecksOf(step: Pick<Step, 'operation' | 'expect' | 'probe'>): CheckId[] {
  const own = step.expect.map((e) => e.checkId);
  return [...own, ...(step.probe ? [] : impliedSpecChecks(step.operation, own))];
}

/** Spec checks on every answer that a step's targeted checks imply it will exercise (a success of merge, delete or demerge is a 204). */
export function impliedSpecChecks(operation: OperationId | null, checks: readonly CheckId[]): CheckId[] {
  if (operation === null) return [];
  const out: CheckId[] = ['status.documented'];
  const has = (id: CheckId) => checks.includes(id);
  if (operation === 'notifyAgentRun') {
    if (has('status.success') || has('limit.accepted')) out.push('response.schema');
    if (has('limit.rejected') || has('type.rejected') || has('body.malformed')) out.push('text.bad-request');
    if (has('auth.required')) out.push('text.not-authorized');
  } else if (has('status.success') || has('outcome.merge') || has('outcome.identity')) {
    out.push('response.no-body-204');
  }
  return out;
}
