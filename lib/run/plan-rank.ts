import { createHash } from 'node:crypto';
import { fieldConstraints } from '../contract/constraints.ts';
import { ALL_AT_ONCE_PART } from '../contract/codec/spellings.ts';
import { CHECK_MANIFEST } from '../generate/checks.generated.ts';
import type { CheckId } from '../generate/checks.generated.ts';
import { requestsOf } from './dry-run.ts';
import { cellsTaken, checksTaken, closure, isWhole, leftOutRequests, selections } from './parts.ts';
import type { PlannedCase } from './planned.ts';
import { classesShown as faultClassesShown, faultClass, keyOperations } from './fault-classes.ts';

/**
 * Plans chosen by what they catch. `npm run generate` measures, once and ahead of any run, which faults
 * of the reference server's catalogue each case catches (scripts/plans.ts) and ranks the cases from
 * that (this file); the ranking is committed (plans.generated.ts) and a run with a request budget or the
 * smoke plan only walks it, so a run against staging computes nothing of it.
 *
 * The ranking, per mode (destructive or not), is greedy in five phases:
 *   0. key and breadth (issue 37): each class of fault (lib/run/fault-classes.ts) once, by the cheapest complete
 *      proof, in this order: the key on every operation (missing, wrong, a near miss), then every other
 *      class but the lenient readings, the request shapes and the valid spellings (second proofs of roles
 *      already shown, issue 38), then each lenient reading once across fields and each role on a request shape
 *      once, and each class of valid spellings by the request spelled every way at once; no entry of this phase
 *      costs more than BREADTH_CASE_CAP requests (a fair share of a budget of 30: a case that would take more
 *      is taken by its parts, or later);
 *   1. faults: the case (a generated case: at the runs it needed) that catches the most faults not yet
 *      caught per request, until no case adds one; ties go to the case exercising more checks per request;
 *      the valid spellings refused (issue 38) come after phase 2;
 *   2. spec: every spec check the mode can exercise, once, in as few requests as possible;
 *   3. spread: the most check × operation × format cells judged, and classes of input sent (a
 *      constraint's component and edge: Int32 above its maximum), not yet covered per request: what
 *      generalises to faults no measurement saw (`npm run plan:heldout`, docs/performance.md);
 *   4. the remaining fixed cases, in suite order.
 * The smoke plan is phases 1 and 2, less the cases the others of those phases make redundant (what a
 * case caught early, cases chosen after it may catch between them): a budget takes the ranked cases in
 * order, each that still fits, so the order is kept and the smoke plan names the cases it leaves out.
 */

/** What the measurement found for one case (a case in one format, by key): fault id → runs it needed (1 for a fixed case). */
export type Catches = Readonly<Record<string, number>>;

/**
 * Of a case with parts: fault id → the part that caught it ('' for the core), or the parts whose own steps
 * each caught it (any one of them taken catches it). A fault absent needs the whole case.
 */
export type PartCatches = Readonly<Record<string, string | readonly string[]>>;

/** Whether a selection of parts (undefined: the whole case) catches a fault attributed so (PartCatches). */
export function caughtInSelection(attributed: string | readonly string[] | undefined, parts: readonly string[] | undefined): boolean {
  if (parts === undefined) return true;
  if (attributed === undefined) return false;
  return (typeof attributed === 'string' ? [attributed] : attributed).some((part) => part === '' || parts.includes(part));
}

export type PlanPhase = 'key' | 'breadth' | 'faults' | 'spec' | 'coverage' | 'rest';

/** Destructive checks on, or not: each mode has its own measurement and ranking. */
export type PlanMode = 'destructive' | 'safe';

export interface RankedEntry {
  key: string;
  /** Runs of a generated case (what it needed to catch its faults, with a margin); absent for a fixed case. */
  runs?: number;
  /** Of a case with parts, the parts this entry takes (closed under `after`); absent: the whole case. */
  parts?: string[];
  phase: PlanPhase;
}

export interface RankedPlan {
  /**
   * In order; a generated case may appear again later at more runs (an upgrade of its earlier entry). What a
   * strict run (ISWC_STRICT=1) walks under a budget: every fault of the catalogue counts.
   */
  entries: RankedEntry[];
  /**
   * What a run without --strict walks under a budget: the same phases over the faults it can fail on, those
   * of level `spec` (gatingCatches). A fault of level `http` is caught by `http` checks alone, which fail
   * only a strict run: ranked for it, a gate spent a sixth of its 60 requests on faults that could not fail
   * it (docs/performance.md, "A gate ranked for what fails it"). Absent (older data): `entries` serve both.
   */
  nonStrict?: RankedEntry[];
  /**
   * The smoke plan, in order: its own greedy cover of every fault (by faults per request alone), then of
   * every spec check once (phases faults and spec); `entries` is what budgets walk.
   */
  smoke: RankedEntry[];
  /**
   * Cases of the smoke entries the smoke plan leaves out: every fault each catches and every spec check it
   * exercises, the rest of the smoke plan catches and exercises too (greedy cover, then the costliest
   * redundant case dropped first).
   */
  smokeLeftOut?: string[];
}

export interface PlanData {
  /** Over the cases, faults, choice sets and seeds the measurement used: a change makes the data stale. */
  fingerprint: string;
  seeds: readonly number[];
  /** Runs a generated case was given in the measurement. */
  runs: number;
  /** The catalogue measured: fault id → level. */
  faults: Readonly<Record<string, 'spec' | 'http'>>;
  /** The sets of legitimate choices every case was run against (none may fail). */
  choiceSets: readonly string[];
  /**
   * Choice sets the self-check declares red until the harness is fixed, and the cases (keys) that fail
   * against them: recorded, not refused (scripts/plans.ts SETS_RED_IN_SELFCHECK). Every other set passed
   * every case at every seed.
   */
  falseAlarms: Readonly<Record<string, readonly string[]>>;
  /**
   * Per mode (a non-destructive run changes nothing in the target, so what a case catches can differ),
   * case key → what it caught at every seed; cases that caught nothing are left out.
   */
  catches: Readonly<Record<PlanMode, Readonly<Record<string, Catches>>>>;
  /**
   * Per mode, of cases with parts (CaseDef.parts): for each fault it caught, the part whose steps caught it
   * ('' for the core). A fault caught in a part is caught by any selection that takes that part.
   */
  partCatches?: Readonly<Record<PlanMode, Readonly<Record<string, PartCatches>>>>;
  /**
   * What the measurement was taken with: the fingerprint of the harness, server and fixtures it ran on, and
   * each case's dry-run digest. `npm run generate:plans` measures again only the cases whose digest changed
   * while the fingerprint holds (scripts/plans/incremental.ts).
   */
  measuredWith?: { harness: string; cases: Readonly<Record<string, string>> };
  destructive: RankedPlan;
  safe: RankedPlan;
}

const SPEC = new Set((Object.keys(CHECK_MANIFEST) as CheckId[]).filter((id) => CHECK_MANIFEST[id].level === 'spec'));

/** Spec checks a case exercises (with the parts the plan took). */
export function specChecksOf(p: PlannedCase): string[] {
  return specChecksTaken(p, p.parts);
}

/** Spec checks a case exercises with the parts a selection takes (undefined: whole). */
export function specChecksTaken(p: PlannedCase, parts: readonly string[] | undefined): string[] {
  return checksTaken(p.shape, parts).filter((id) => SPEC.has(id));
}

/** The operations whose key a selection of a case judges (the operations a key fault of every operation counts on). */
export function keyJudgedOn(p: PlannedCase, parts: readonly string[] | undefined): string[] {
  return keyOperations(cellsTaken(p.shape, parts));
}

/** Component of each constrained field (Int32, AgencyCode, Iswc, …), by constraint id. */
let components: Map<string, string> | undefined;
function componentOf(id: string): string | undefined {
  components ??= new Map(fieldConstraints().map((c) => [c.id, c.component ?? c.type]));
  return components.get(id);
}

/**
 * What a case shows, as coverage atoms that generalise to faults no measurement saw: each check ×
 * operation × format cell it judges, and for a limit or type case the class of its input (the
 * constraint's component, where the value sits, and which edge: `Int32/body/above-max/json`), not the
 * field: a server that mishandles an edge of a 32-bit counter mishandles it in any counter.
 */
export function coverage(p: PlannedCase): string[] {
  return coverageTaken(p, p.parts);
}

/** The coverage atoms of a case with the parts a selection takes (undefined: whole). */
export function coverageTaken(p: PlannedCase, parts: readonly string[] | undefined): string[] {
  const atoms = [...cellsTaken(p.shape, parts)];
  const limit = /^(limit|type)\.(\w+)\.(body|query)\.(.+)\.([\w-]+)$/.exec(p.def.id);
  // A case only recorded (observed) reveals no fault, whatever input it sends.
  if (limit && atoms.length > 0) atoms.push(`${limit[1]}/${componentOf(`${limit[2]}.${limit[3]}.${limit[4]}`) ?? limit[4]}/${limit[3]}/${edgeOf(limit[5] ?? '')}/${p.format}`);
  if (p.def.id.startsWith('scenario.')) atoms.push(p.key);
  return atoms;
}

/** The edge a limit case's value sits on, coarsely: every pattern variant is one, every lossy type one. */
function edgeOf(variant: string): string {
  if (variant.startsWith('pattern-')) return 'pattern';
  if (/^at-(limit|max|min)$/.test(variant)) return 'at-limit';
  return variant;
}

/** The runs a generated case gets for faults it needed `needed` runs to catch: a margin for other seeds. */
export function runsWithMargin(needed: number, most: number): number {
  return Math.min(most, Math.max(needed + 1, Math.ceil(needed * 1.5)));
}

/** Requests a ranked entry sends (a case with parts: its core and the parts taken; undefined: whole). */
export function entryRequests(p: PlannedCase, runs: number | undefined, parts?: readonly string[]): number {
  return p.shape.generated ? requestsOf(p.shape, runs ?? 1, parts) : p.shape.fixedRequests - leftOutRequests(p.shape, parts);
}

interface Item {
  p: PlannedCase;
  index: number;
  runs: number | undefined;
  /** Parts the item takes (closed); undefined: the whole case. */
  parts: string[] | undefined;
  atoms: readonly string[];
}

type Chosen = RankedEntry & { cost: number };

/** What choosing an item adds to what was chosen of its case: its runs and parts merged with theirs, or undefined when it adds nothing. */
function merged(item: Item, already: Chosen | undefined): { runs: number | undefined; parts: string[] | undefined; cost: number } | undefined {
  const runs = item.runs === undefined ? already?.runs : Math.max(item.runs, already?.runs ?? 0);
  let parts: string[] | undefined;
  if (!already) parts = item.parts;
  else if (already.parts === undefined || item.parts === undefined) parts = undefined;
  else parts = closure(item.p.shape, [...already.parts, ...item.parts]);
  if (parts !== undefined && isWhole(item.p.shape, parts)) parts = undefined;
  if (already && (runs ?? 0) <= (already.runs ?? 0) && (parts ?? ['\u0000whole']).join('\u0001') === (already.parts ?? ['\u0000whole']).join('\u0001')) return undefined;
  return { runs, parts, cost: entryRequests(item.p, runs, parts) };
}

/**
 * What the first phase of the ranking weighs, against 1 for a fault caught or a class of fault shown: a
 * spec check first exercised (CHECK_WEIGHT), the same check judged on one more operation and format
 * (CELL_WEIGHT). Chosen on folds of the catalogue (`npm run plan:heldout`, docs/performance.md): with
 * checks at 1, a budget of 60 exercised 15 spec checks and, on a profile with one entry of each kind, 11;
 * at 2, 18 and 14, for half a point of held-out faults at 60; a check on one more operation and format at
 * 0.5 caught more held-out faults than 0, 0.2 or 1 at 15 and 30 requests and lost none at 60 and above.
 */
const CHECK_WEIGHT = 2;
const CELL_WEIGHT = 0.5;

/**
 * The most requests one entry of the breadth phase may cost: half of a budget of 30, the smallest budget
 * that proves the key on every operation (issue 37). A class only a costlier case shows waits for the
 * later phases; a case with parts is taken by the parts that show it.
 */
export const BREADTH_CASE_CAP = 15;

/**
 * The stages of breadth, in order: the key missing and wrong on every operation, then compared loosely
 * (a near miss) and checked after acting, and every key fault of the catalogue, then every other class but the lenient readings, then each
 * lenient reading once. So a budget of 30 holds a missing and a wrong key on every operation (29 requests
 * destructive), before any near miss.
 */
/** The first stages of breadth, the key's: ranked in phase 'key', which every slice of a rotation sends (lib/run/budget.ts). */
const KEY_STAGES = 2;
// A read-back (outcome/lapse) waits for the lenient readings' stage: under a budget it is sent right after
// the repeat it proves again, which shows a change kept for one read, not one that lapses a while later.
// The key phase, which every slice of a rotation sends, proves the key on each operation (key/<how>/<operation>,
// `*` for every operation). The key on one format's path (key/xml) names no operation: breadth shows it with
// that format's first requests; in the key phase it took the place of a class of its own at a budget of 30.
const KEY_ON_AN_OPERATION = /^key\/[^/]+\/[^/]+$/;
const LATER = (c: string): boolean => c.startsWith('lenient/') || c.startsWith('shape/') || c.startsWith('spelling/') || c === 'outcome/lapse';
const BREADTH_STAGES: ReadonlyArray<(cls: string) => boolean> = [(c) => /^key\/(missing|wrong)\//.test(c), (c) => KEY_ON_AN_OPERATION.test(c) || c.startsWith('member:'), (c) => !LATER(c) && !c.startsWith('member:'), (c) => !c.startsWith('member:') && !c.startsWith('spelling/')];

/**
 * Greedy weighted cover (of items whose case costs at most `maxCost` with what was chosen of it): repeatedly the item with the most atoms not yet covered per request, each weighing
 * 1 (a spec check first exercised CHECK_WEIGHT, one on one more operation and format CELL_WEIGHT) (ties: more
 * checks per request, then fewer requests, then suite order). An item for a case already chosen (a
 * generated case at fewer runs, a case with fewer of its parts) costs only the difference, and is ranked
 * as an upgrade of it (the key appears again).
 */
function cover(items: readonly Item[], chosen: Map<string, Chosen>, covered: Set<string>, phase: PlanPhase, out: RankedEntry[], maxCost = Number.POSITIVE_INFINITY): void {
  for (;;) {
    let best: { item: Item; score: number; extra: number; checks: number; next: NonNullable<ReturnType<typeof merged>> } | undefined;
    for (const item of items) {
      const already = chosen.get(item.p.key);
      const next = merged(item, already);
      if (!next || next.cost > maxCost) continue;
      const gain = item.atoms.filter((a) => !covered.has(a)).reduce((n, a) => n + (a.startsWith('cell:') ? CELL_WEIGHT : a.startsWith('check:') ? CHECK_WEIGHT : 1), 0);
      if (gain === 0) continue;
      const extra = Math.max(0, next.cost - (already?.cost ?? 0));
      const score = gain / Math.max(1, extra);
      const checks = checksTaken(item.p.shape, item.parts).length / Math.max(1, next.cost);
      const better =
        !best ||
        score > best.score + 1e-9 ||
        (Math.abs(score - best.score) <= 1e-9 && (checks > best.checks + 1e-9 || (Math.abs(checks - best.checks) <= 1e-9 && (extra < best.extra || (extra === best.extra && item.index < best.item.index)))));
      if (better) best = { item, score, extra, checks, next };
    }
    if (!best) return;
    const { item, next } = best;
    const entry: Chosen = { key: item.p.key, ...(next.runs !== undefined ? { runs: next.runs } : {}), ...(next.parts !== undefined ? { parts: next.parts } : {}), phase, cost: next.cost };
    // A case chosen again at more runs or with more parts appears again: a smaller budget keeps the first, cheaper entry.
    chosen.set(item.p.key, entry);
    out.push({ key: entry.key, ...(entry.runs !== undefined ? { runs: entry.runs } : {}), ...(entry.parts !== undefined ? { parts: entry.parts } : {}), phase });
    for (const a of item.atoms) covered.add(a);
  }
}

/** The selections of parts a ranking weighs for a case: the whole case only, for a case without parts. */
function partSelections(p: PlannedCase): Array<string[] | undefined> {
  const all = selections(p.shape);
  return all.length === 0 ? [undefined] : all.map((s) => (isWhole(p.shape, s) ? undefined : s));
}


/** The classes of fault the parts of a selection show (CasePart.shows), as atoms of their own. */
function classesShown(p: PlannedCase, parts: readonly string[] | undefined): string[] {
  return (p.shape.parts ?? []).filter((part) => part.shows !== undefined && (parts === undefined || parts.includes(part.id))).map((part) => `shows:${part.shows ?? ''}`);
}

/**
 * The role "a valid body of each served format accepted" (issue 37), of a selection: filled only by a case
 * that demands success (status.success) in its format, shown as `acceptance/<format>` whatever it caught. A
 * case that only expects a refusal catches XML refused wholesale too (its 400 comes back a 415), but it
 * never proves an XML body accepted, and the steering learns "this target serves no XML" only from valid
 * bodies demanded accepted and refused (lib/run/steer.ts, twice): so `acceptance/*` classes shown by other
 * cases are dropped, and so are those of a case with parts (the neighbours of a field), whose valid body is
 * one request before the near neighbours it exists for.
 */
function acceptanceShown(p: PlannedCase, parts: readonly string[] | undefined, classes: readonly string[]): string[] {
  // A request without a body (the deletes, format `none`) proves no format accepted: the operation's success is a class of its own (success/<operation>).
  const succeeds = p.format !== 'none' && (p.shape.parts ?? []).length === 0 && checksTaken(p.shape, parts).includes('status.success');
  const others = classes.filter((c) => !c.startsWith('acceptance/'));
  return succeeds ? [...others, `acceptance/${p.format}`] : others;
}

/** What a selection covers beyond the faults it caught: the classes its parts show, the spec checks it exercises, once and per operation and format. */
function generalised(p: PlannedCase, parts: readonly string[] | undefined): string[] {
  return [...classesShown(p, parts), ...specChecksTaken(p, parts).map((c) => `check:${c}`), ...cellsTaken(p.shape, parts).filter((c) => SPEC.has(c.split('/')[1] as CheckId)).map((c) => `cell:${c}`)];
}

/** Faults a selection of parts catches: those its core or its parts caught (a fault not attributed needs the whole case). */
function caughtWith(caught: Catches, attributed: PartCatches | undefined, parts: readonly string[] | undefined): string[] {
  return Object.keys(caught).filter((f) => caughtInSelection(attributed?.[f], parts));
}

/**
 * Of what each case caught, the faults a run without --strict fails on: those of level `spec`. A fault's
 * level is the level of the checks that catch it (tests/selfcheck/faults.spec.ts holds the catalogue to it),
 * so a fault of level `http` fails a strict run only.
 */
export function gatingCatches<T>(caught: Readonly<Record<string, Readonly<Record<string, T>>>>, levels: Readonly<Record<string, 'spec' | 'http'>>): Record<string, Record<string, T>> {
  const out: Record<string, Record<string, T>> = {};
  for (const [key, faults] of Object.entries(caught)) {
    const kept = Object.fromEntries(Object.entries(faults).filter(([f]) => levels[f] !== 'http'));
    if (Object.keys(kept).length > 0) out[key] = kept;
  }
  return out;
}

/**
 * Ranks the cases a mode can run (`runnable`: the planned cases without a skip reason in that mode) by
 * what they catch (`catches`), then by what they exercise. Deterministic: the same inputs give the same
 * ranking, which is what the staleness test recomputes.
 */
export function rankPlan(runnable: readonly PlannedCase[], catches: Readonly<Record<string, Catches>>, mostRuns: number, partCatches: Readonly<Record<string, PartCatches>> = {}): RankedPlan {
  const out: RankedEntry[] = [];
  const chosen = new Map<string, Chosen>();
  const indexed = runnable.map((p, index) => ({ p, index }));
  const byKey = new Map(runnable.map((p) => [p.key, p]));
  /** What the entries cover, by an atom function of a case and the parts an entry took. */
  const coveredBy = (entries: readonly RankedEntry[], atoms: (p: PlannedCase, parts: readonly string[] | undefined) => string[]): Set<string> =>
    new Set(entries.flatMap((e) => {
      const p = byKey.get(e.key);
      return p ? atoms(p, e.parts) : [];
    }));

  /**
   * Items of the first phase: each selection of parts of a case (the whole case for one without), with the
   * faults it caught and, where `generalise`, the classes of fault its parts show (CasePart.shows) and the
   * spec checks it exercises, once each and per operation and format: what it covers that no measured fault
   * names catches faults no measurement saw (a class covered once, a check that can fail). A generated
   * case's checks are exercised at any number of runs; its faults at the runs they needed.
   */
  const firstPhase = (generalise: boolean): Item[] => itemsBy((p, parts, faults) => [...faults, ...(generalise ? generalised(p, parts) : [])]);
  /**
   * Items of a phase: each selection of parts of a case (the whole case for one without), at the runs each
   * level of its faults needed, with the atoms `atomsOf` makes of the faults it caught.
   */
  function itemsBy(atomsOf: (p: PlannedCase, parts: string[] | undefined, faults: string[]) => string[]): Item[] {
    const items: Item[] = [];
    for (const { p, index } of indexed) {
      const caught = catches[p.key] ?? {};
      for (const parts of partSelections(p)) {
        const faults = caughtWith(caught, partCatches[p.key], parts);
        if (atomsOf(p, parts, faults).length === 0) continue;
        if (!p.shape.generated) {
          items.push({ p, index, runs: undefined, parts, atoms: atomsOf(p, parts, faults) });
          continue;
        }
        const levels = [...new Set(faults.map((f) => caught[f] ?? Infinity))].sort((x, y) => x - y);
        if (levels.length === 0) items.push({ p, index, runs: 1, parts, atoms: atomsOf(p, parts, []) });
        for (const needed of levels) items.push({ p, index, runs: runsWithMargin(needed, mostRuns), parts, atoms: atomsOf(p, parts, faults.filter((f) => (caught[f] ?? Infinity) <= needed)) });
      }
    }
    return items;
  }
  const specItems = indexed.flatMap(({ p, index }) => partSelections(p).map((parts) => ({ p, index, runs: p.shape.generated ? 1 : undefined, parts, atoms: specChecksTaken(p, parts) })));

  // The smoke plan, ranked apart: every fault by faults caught per request alone, then every spec check
  // once, less the cases the rest make redundant. What generalises is for budgets; the smoke plan is the
  // fewest requests that catch the whole catalogue.
  const smoke: RankedEntry[] = [];
  const smokeChosen = new Map<string, Chosen>();
  cover(firstPhase(false), smokeChosen, new Set(), 'faults', smoke);
  cover(specItems, smokeChosen, coveredBy(smoke, specChecksTaken), 'spec', smoke);
  const smokeLeftOut = redundantInSmoke(smoke, byKey, catches, partCatches);

  // 0. breadth: every class of fault once, the key first, lenient readings last, no case beyond a fair share.
  // A key fault of the catalogue, each loose comparison of the key (a near miss) included, is also an atom of
  // its own: the key stage catches every one, so no budget that fits the key stage lets a known key fault
  // through. They cost little: the wrong keys of the operations' key proofs are near misses, a different one
  // on each operation that changes data (lib/generate/cases/key-proofs.ts), and the end of a run refused
  // without the key is the three-request core of run.start-and-end.
  const classesOf = (p: PlannedCase, parts: readonly string[] | undefined, faults: readonly string[]): string[] => [
    ...acceptanceShown(p, parts, faultClassesShown(faults, p.def.operation, keyJudgedOn(p, parts))),
    ...faults.filter((f) => (!f.startsWith('lenient.') || f.startsWith('lenient.key.')) && faultClass(f).startsWith('key/')).map((f) => `member:${f}`),
  ];
  // A spelling case (issue 38) proves nothing of breadth's classes that the cases written for them do not: its plain
  // request is there to compare with. Left to breadth, its cheaper core would stand in for them, and show fewer faults.
  const classes = itemsBy(classesOf).filter((item) => !item.p.def.tags.includes('@spelling'));
  // What the entries chosen so far show of breadth's classes (at the runs they took) is shown already.
  const shownSoFar = (): Set<string> =>
    new Set(
      out.flatMap((e) => {
        const p = byKey.get(e.key);
        const caught = catches[e.key] ?? {};
        return p ? classesOf(p, e.parts, caughtWith(caught, partCatches[e.key], e.parts).filter((f) => e.runs === undefined || (caught[f] ?? Infinity) <= e.runs)) : [];
      }),
    );
  // The valid spellings join the last stage: each class once, by the request spelled every way at once (the part
  // `all-at-once`, after the plain request it is compared with), which a server refusing any one spelling
  // refuses; never by one spelling alone, which proves one member of its class. In the same cover as the
  // lenient readings and the request shapes, by classes per request: a reading whose part costs three requests
  // (a value read up to a comma, a semicolon or a NUL) no longer pushes three classes of spellings, two
  // requests each, out of a gate of 60.
  const spelledAtOnce = itemsBy(classesOf)
    .filter((item) => item.p.def.tags.includes('@spelling') && item.parts?.length === 1 && item.parts[0] === ALL_AT_ONCE_PART)
    .map((item) => ({ ...item, atoms: item.atoms.filter((c) => c.startsWith('spelling/')) }));
  for (const [n, stage] of BREADTH_STAGES.entries()) {
    const last = n === BREADTH_STAGES.length - 1;
    cover([...classes.map((item) => ({ ...item, atoms: item.atoms.filter(stage) })), ...(last ? spelledAtOnce : [])], chosen, shownSoFar(), n < KEY_STAGES ? 'key' : 'breadth', out, BREADTH_CASE_CAP);
  }

  // 1. what a request shows per request: faults caught, classes of fault shown, spec checks exercised (what breadth shows counts as shown).
  // After breadth, by faults per request alone (the smoke plan's measure): what the classes generalise, breadth
  // took; the rest is what a rotation of gates must reach soonest (eight gates of 60 try every fault the smoke
  // plan catches, tests/unit/rotation.spec.ts). Weighing checks and cells here too left six of them out.
  // A valid spelling refused (issue 38) is a second proof of acceptance: the spellings come after every other fault
  // and every spec check's first proof, so that no budget catches or exercises less of the rest for them.
  const notSpelling = itemsBy((_p, _parts, faults) => faults.filter((f) => !faultClass(f).startsWith('spelling/')));
  cover(notSpelling, chosen, coveredBy(out, (p, parts) => caughtWith(catches[p.key] ?? {}, partCatches[p.key], parts)), 'faults', out);

  // 2. every spec check the mode can exercise, once (the spellings' own check last, with them).
  cover(specItems.filter((item) => !item.p.def.tags.includes('@spelling')), chosen, coveredBy(out, specChecksTaken), 'spec', out);
  cover(firstPhase(false), chosen, coveredBy(out, (p, parts) => caughtWith(catches[p.key] ?? {}, partCatches[p.key], parts)), 'faults', out);
  cover(specItems, chosen, coveredBy(out, specChecksTaken), 'spec', out);

  // 3. distinct coverage per request, fixed cases only (generated ones get what a budget leaves).
  const fixed = indexed.filter(({ p }) => !p.shape.generated);
  cover(
    fixed.flatMap(({ p, index }) => partSelections(p).map((parts) => ({ p, index, runs: undefined, parts, atoms: coverageTaken(p, parts) }))),
    chosen,
    coveredBy(out, coverageTaken),
    'coverage',
    out,
  );

  // 4. the rest of the fixed cases, whole, in suite order.
  for (const { p } of fixed) {
    const already = chosen.get(p.key);
    if (already && already.parts === undefined) continue;
    chosen.set(p.key, { key: p.key, phase: 'rest', cost: p.shape.fixedRequests });
    out.push({ key: p.key, phase: 'rest' });
  }
  return { entries: out, smoke, ...(smokeLeftOut.length > 0 ? { smokeLeftOut } : {}) };
}

/** What a case adds to the smoke plan at the runs and parts its entries there took: faults caught and spec checks exercised. */
function smokeAtoms(p: PlannedCase, entries: readonly RankedEntry[], caught: Catches | undefined, attributed: PartCatches | undefined): { atoms: string[]; cost: number } {
  const runs = entries.reduce<number | undefined>((most, e) => (e.runs === undefined ? most : Math.max(most ?? 0, e.runs)), undefined);
  const parts = entries.some((e) => e.parts === undefined) ? undefined : closure(p.shape, entries.flatMap((e) => e.parts ?? []));
  const faults = caught ? caughtWith(caught, attributed, parts).filter((f) => runs === undefined || (caught[f] ?? Infinity) <= runs) : [];
  return { atoms: [...faults.map((f) => `fault:${f}`), ...specChecksTaken(p, parts).map((c) => `check:${c}`)], cost: entryRequests(p, runs, parts) };
}

/**
 * The cases of the smoke plan's entries that the others make redundant. A greedy cover keeps a case chosen
 * early for what it caught then, even when cases chosen after it catch all of that between them; each such
 * case is dropped, the costliest first (ties: the later in the ranking), while every fault and spec check
 * stays covered by another case of the plan.
 */
function redundantInSmoke(entries: readonly RankedEntry[], byKey: ReadonlyMap<string, PlannedCase>, catches: Readonly<Record<string, Catches>>, partCatches: Readonly<Record<string, PartCatches>>): string[] {
  const keys = [...new Set(entries.map((e) => e.key))];
  const of = new Map<string, { atoms: string[]; cost: number; order: number }>();
  keys.forEach((key, order) => {
    const p = byKey.get(key);
    if (p) of.set(key, { ...smokeAtoms(p, entries.filter((e) => e.key === key), catches[key], partCatches[key]), order });
  });
  const holders = new Map<string, number>();
  for (const { atoms } of of.values()) for (const a of atoms) holders.set(a, (holders.get(a) ?? 0) + 1);
  const dropped: string[] = [];
  const byCost = [...of.entries()].sort(([, a], [, b]) => b.cost - a.cost || b.order - a.order);
  for (const [key, { atoms }] of byCost) {
    if (!atoms.every((a) => (holders.get(a) ?? 0) >= 2)) continue;
    for (const a of atoms) holders.set(a, (holders.get(a) ?? 0) - 1);
    dropped.push(key);
  }
  return dropped.sort();
}

/**
 * What the measured catches depend on, as a digest: every case in every format with its requests, checks,
 * claims and whether it may change data; the fault catalogue with levels; the choice sets; the seeds and
 * runs. When any of these changes, the committed plans are stale (tests/unit/plans.spec.ts) and
 * `npm run generate` measures again.
 */
export function planFingerprint(planned: readonly PlannedCase[], faults: Readonly<Record<string, string>>, choiceSets: readonly string[], seeds: readonly number[], runs: number): string {
  // Parts are added only where a case has them, so that the digest of a catalogue without parts stays what it was.
  const cases = planned.map((p) => [
    p.key,
    p.shape.fixedRequests,
    p.shape.requestsPerRun,
    p.shape.generated,
    [...p.shape.checks].sort(),
    p.def.claims ?? [],
    p.def.changesData ?? false,
    ...(p.shape.parts ? [p.shape.parts.map((part) => [part.id, part.after, part.requests, [...part.checks].sort()])] : []),
    // What it sends and asks of each answer: a case whose requests changed is measured again (scripts/plans/incremental.ts).
    p.shape.digest ?? '',
  ]);
  const text = JSON.stringify({ cases, faults: Object.entries(faults).sort(), choiceSets: [...choiceSets].sort(), seeds, runs });
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
