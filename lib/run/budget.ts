import type { PlanData, RankedEntry, RankedPlan } from './plan-rank.ts';
import { caughtInSelection, coverage, coverageTaken, entryRequests, keyJudgedOn, specChecksOf, specChecksTaken } from './plan-rank.ts';
import { classesShown, faultClass } from './fault-classes.ts';
import { PLAN_DATA } from './plans.generated.ts';
import { requestsOf } from './dry-run.ts';
import type { PlannedCase } from './planned.ts';
import { closure, isWhole } from './parts.ts';

/**
 * Request budgets. A remote target publishes 10 requests per minute, so a run must get the most out of
 * few requests. Cases are taken in the order of the committed ranking (lib/run/plans.generated.ts,
 * measured by `npm run generate` against every fault of the reference server's catalogue): per request
 * first the faults caught, the classes of fault shown and the spec checks exercised (lib/run/plan-rank.ts),
 * then every spec check once, then the most distinct coverage per request. Cases the ranking does not know (another profile's, your own scenarios) come after, by the
 * spec checks and then the coverage they add per request; generated inputs get what is left.
 */

export type PlanName = 'full' | 'smoke';

/** A case whose request count grows with ISWC_RUNS (it tries generated inputs). */
export function isGenerated(p: PlannedCase): boolean {
  return p.shape.generated;
}

/** Requests a planned case sends, at `runs` runs per property. */
export function estimatedRequests(p: PlannedCase, runs: number): number {
  return requestsOf(p.shape, runs, p.parts);
}

export { coverage };

interface Choice {
  chosen: Set<string>;
  runs: Map<string, number>;
  /** Of cases with parts taken in part: the parts taken (absent: the whole case). */
  parts: Map<string, string[]>;
  /**
   * Under a budget: the cases next in the ranking that the budget leaves out (about a budget's worth), in
   * rank order, with the runs and parts they would take; the steering runs them with what it frees.
   */
  standby: Array<{ key: string; runs?: number; parts?: string[] }>;
  /** Under a budget: the slice of the rotation taken. */
  slice?: SliceInfo;
}

export interface ChooseOptions {
  plan: PlanName;
  budget: number | undefined;
  /** ISWC_RUNS: the most runs any generated case gets. */
  runs: number;
  /** Which ranking applies: destructive checks on, or not. */
  destructive: boolean;
  /**
   * ISWC_STRICT: whether `http` checks fail the run. Without it a budget walks the ranking of the faults a
   * run can fail on (RankedPlan.nonStrict); default false, as a run's.
   */
  strict?: boolean;
  /** The committed ranking (tests give their own). */
  data?: PlanData;
  /**
   * ISWC_SLICE (issue 37): which slice of what breadth leaves out this budgeted run takes. Consecutive
   * slices 0, 1, 2, … of the same budget, target and profile take different cases, so k gates of B together
   * send what one run of about k×B sends; the slice is taken modulo the number of slices. Default 0.
   */
  slice?: number;
}

/** Of a budgeted run: which slice it took of how many, and what the fixed part (breadth) cost. */
export interface SliceInfo {
  /** The slice taken, 0-based (the one asked for, modulo `of`). */
  index: number;
  /** The slices the budget's rotation has: after `of` gates every case of the ranking that fits the budget was taken once. */
  of: number;
  /** The slice the user asked for (ISWC_SLICE), before the modulo. */
  asked: number;
  /** Requests of the part every slice sends: the key on every operation and the breadth within half the budget. */
  fixedRequests: number;
  /** Requests each slice has for its rotating part. */
  rotatingRequests: number;
}

/** The parts of both selections, closed; undefined when either is the whole case. */
function unionParts(p: PlannedCase, a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (a === undefined || b === undefined) return undefined;
  const union = closure(p.shape, [...a, ...b]);
  return isWhole(p.shape, union) ? undefined : union;
}

/** A selection of parts as a key: the whole case is its own. */
function partsKey(parts: readonly string[] | undefined): string {
  return parts === undefined ? '\u0000whole' : parts.join('\u0001');
}

/** The selection being built: what is chosen, at how many runs and with which parts, and the requests it costs. */
class Selection {
  readonly chosen = new Set<string>();
  readonly runs = new Map<string, number>();
  readonly parts = new Map<string, string[]>();
  spent = 0;

  constructor(
    readonly limit: number,
    readonly mostRuns: number,
  ) {}

  cost(p: PlannedCase): number {
    return this.chosen.has(p.key) ? entryRequests(p, this.runs.get(p.key), this.parts.get(p.key)) : 0;
  }

  /** A copy to build on (a slice starts from the fixed part). */
  copy(): Selection {
    const out = new Selection(this.limit, this.mostRuns);
    for (const key of this.chosen) out.chosen.add(key);
    for (const [key, r] of this.runs) out.runs.set(key, r);
    for (const [key, parts] of this.parts) out.parts.set(key, [...parts]);
    out.spent = this.spent;
    return out;
  }

  /** Whether taking a case (at runs, with parts) would add anything to what is taken of it. */
  adds(p: PlannedCase, runs: number | undefined, parts?: readonly string[]): boolean {
    if (!this.chosen.has(p.key)) return true;
    const had = this.parts.get(p.key);
    if (p.shape.generated && Math.min(runs ?? 1, this.mostRuns) > (this.runs.get(p.key) ?? 0)) return true;
    if (had === undefined) return false;
    return parts === undefined ? true : closure(p.shape, parts).some((id) => !had.includes(id));
  }

  /**
   * Takes a case (a generated one at `runs`, a case with parts with those parts, undefined: whole) when it
   * fits; raises the runs or adds the parts of one already taken.
   */
  take(p: PlannedCase, runs: number | undefined, parts?: readonly string[]): boolean {
    const r = p.shape.generated ? Math.max(1, Math.min(runs ?? 1, this.mostRuns)) : undefined;
    const taken = this.chosen.has(p.key);
    const newRuns = r === undefined ? undefined : Math.max(r, this.runs.get(p.key) ?? 0);
    const wanted = parts === undefined ? undefined : closure(p.shape, parts);
    const newParts = taken ? unionParts(p, this.parts.get(p.key), wanted) : wanted !== undefined && !isWhole(p.shape, wanted) ? wanted : undefined;
    const sameParts = partsKey(newParts) === partsKey(this.parts.get(p.key));
    if (taken && (newRuns === undefined || (this.runs.get(p.key) ?? 0) >= newRuns) && sameParts) return false;
    const extra = entryRequests(p, newRuns, newParts) - this.cost(p);
    if (this.spent + extra > this.limit) return false;
    this.chosen.add(p.key);
    if (newRuns !== undefined) this.runs.set(p.key, newRuns);
    if (newParts === undefined) this.parts.delete(p.key);
    else this.parts.set(p.key, newParts);
    this.spent += extra;
    return true;
  }

  /**
   * Greedy by atoms not yet covered per request, among the parts not taken of cases taken in part: each part
   * (with what it comes after) added to what is taken of its case.
   */
  coverParts(candidates: readonly PlannedCase[], atomsOf: (p: PlannedCase, parts: readonly string[]) => string[], covered: Set<string>): void {
    for (;;) {
      let best: { p: PlannedCase; parts: string[]; atoms: string[] } | undefined;
      let bestScore = 0;
      for (const p of candidates) {
        const had = this.parts.get(p.key);
        if (!this.chosen.has(p.key) || had === undefined) continue;
        for (const part of p.shape.parts ?? []) {
          if (had.includes(part.id)) continue;
          const parts = closure(p.shape, [...had, part.id]);
          const extra = entryRequests(p, this.runs.get(p.key), isWhole(p.shape, parts) ? undefined : parts) - this.cost(p);
          if (this.spent + extra > this.limit) continue;
          const atoms = atomsOf(p, parts);
          const score = atoms.filter((a) => !covered.has(a)).length / Math.max(1, extra);
          if (score > bestScore) {
            best = { p, parts, atoms };
            bestScore = score;
          }
        }
      }
      if (!best) return;
      this.take(best.p, this.runs.get(best.p.key), best.parts);
      for (const a of best.atoms) covered.add(a);
    }
  }

  /** Greedy by atoms not yet covered per request, among cases not taken. */
  cover(candidates: readonly PlannedCase[], atomsOf: (p: PlannedCase) => string[], covered: Set<string>): void {
    for (;;) {
      let best: PlannedCase | undefined;
      let bestScore = 0;
      for (const p of candidates) {
        if (this.chosen.has(p.key)) continue;
        const cost = entryRequests(p, 1);
        if (this.spent + cost > this.limit) continue;
        const gain = atomsOf(p).filter((a) => !covered.has(a)).length;
        const score = gain / Math.max(1, cost);
        if (gain > 0 && score > bestScore) {
          best = p;
          bestScore = score;
        }
      }
      if (!best) return;
      this.take(best, 1);
      for (const a of atomsOf(best)) covered.add(a);
    }
  }
}

/** The ranking a run walks: its mode's, for a strict run or not (RankedPlan.nonStrict; older data has one for both). */
export function rankingFor(data: PlanData, destructive: boolean, strict: boolean): RankedPlan {
  const plan = destructive ? data.destructive : data.safe;
  return strict || plan.nonStrict === undefined ? plan : { ...plan, entries: plan.nonStrict };
}

/**
 * The ranking as this profile's cases can take it: a part the ranking names that a case lacks here (its
 * data cannot carry it: a merges entry without ISWCs, a reusable profile, which never merges ISWCs) is
 * left out of the entry, and the rest of the entry kept.
 */
function withPartsOf(plan: RankedPlan, byKey: ReadonlyMap<string, PlannedCase>): RankedPlan {
  const keep = (e: RankedEntry): RankedEntry => {
    const p = byKey.get(e.key);
    if (!e.parts || !p) return e;
    const has = new Set((p.shape.parts ?? []).map((part) => part.id));
    return e.parts.every((id) => has.has(id)) ? e : { ...e, parts: e.parts.filter((id) => has.has(id)) };
  };
  return { ...plan, entries: plan.entries.map(keep), smoke: plan.smoke.map(keep) };
}

/**
 * Chooses which planned cases run, and how many runs each generated case gets, for the smoke plan or
 * within a request budget. Deterministic: every process computes the same plan.
 */
export function choose(planned: PlannedCase[], options: ChooseOptions): Choice {
  const runnable = planned.filter((p) => !p.skipReason);
  if (options.plan === 'full' && options.budget === undefined) {
    const runs = new Map<string, number>();
    for (const p of runnable) if (isGenerated(p)) runs.set(p.key, options.runs);
    return { chosen: new Set(runnable.map((p) => p.key)), runs, parts: new Map(), standby: [] };
  }
  const data = options.data ?? PLAN_DATA;
  const byKey = new Map(runnable.map((p) => [p.key, p]));
  const ranked = withPartsOf(rankingFor(data, options.destructive, options.strict ?? false), byKey);
  let sel = new Selection(options.budget ?? Number.POSITIVE_INFINITY, options.runs);
  // The committed ranking: the smoke plan is its own entries less the cases they make redundant; a budget
  // walks the entries and takes each case that still fits.
  const leftOut = new Set(ranked.smokeLeftOut ?? []);
  let slice: SliceInfo | undefined;
  let nextSlice: Selection | undefined;
  if (options.plan === 'smoke' || options.budget === undefined) {
    for (const entry of options.plan === 'smoke' ? ranked.smoke.filter((e) => !leftOut.has(e.key)) : ranked.entries) {
      const p = byKey.get(entry.key);
      if (p) sel.take(p, entry.runs, entry.parts);
    }
  } else {
    const mode = options.destructive ? 'destructive' : 'safe';
    const faultsOf = (e: RankedEntry): string[] => {
      const caught = data.catches[mode][e.key] ?? {};
      return Object.keys(caught).filter((f) => (e.runs === undefined || (caught[f] ?? Infinity) <= e.runs) && caughtInSelection(data.partCatches?.[mode][e.key]?.[f], e.parts));
    };
    // The key's classes an entry shows, and each key fault of the catalogue it catches (as the ranking's key stage
    // counts them, lib/run/plan-rank.ts): a slice built on an entry that shows a class by one member keeps the key
    // entries that catch its other members (the key skipped on an Accept of XML shows the class, not the one of JSON).
    const keyClassesOf = (e: RankedEntry): string[] => {
      const faults = faultsOf(e);
      const p = byKey.get(e.key);
      return [...classesShown(faults, p?.def.operation, p ? keyJudgedOn(p, e.parts) : undefined).filter((c) => c.startsWith('key/')), ...faults.filter((f) => faultClass(f).startsWith('key/')).map((f) => `member:${f}`)];
    };
    // The faults an entry shows that fail a run of this strictness.
    const gatingFaultsOf = (e: RankedEntry): string[] => faultsOf(e).filter((f) => options.strict === true || data.faults[f] === 'spec');
    const rotation = rotate(ranked.entries, byKey, sel, keyClassesOf, gatingFaultsOf);
    const asked = Math.max(0, Math.floor(options.slice ?? 0));
    const index = asked % rotation.slices.length;
    const taken = rotation.slices[index];
    // A slice is its fixed part and what it rotates in (a slice for a case too big beside the fixed part has its own).
    if (taken) sel = taken.copy();
    nextSlice = rotation.slices.length > 1 ? rotation.slices[(index + 1) % rotation.slices.length] : undefined;
    slice = { index, of: rotation.slices.length, asked, fixedRequests: rotation.fixed, rotatingRequests: sel.limit - rotation.fixed };
  }
  // Cases the ranking does not know: every spec check once, then (with a budget) distinct coverage.
  // What is taken of a case is its selection's (a case taken in part exercises the checks of its core and of those parts).
  const takenChecks = (): string[] => runnable.filter((p) => sel.chosen.has(p.key)).flatMap((p) => specChecksTaken(p, sel.parts.get(p.key)));
  const takenCoverage = (): string[] => runnable.filter((p) => sel.chosen.has(p.key)).flatMap((p) => coverageTaken(p, sel.parts.get(p.key)));
  const checksCovered = new Set(takenChecks());
  sel.cover(runnable, specChecksOf, checksCovered);
  // A spec check only a part left out exercises: that part of a case taken in part (another profile's data
  // leaves the check to it where the ranking's profile had another case show it).
  sel.coverParts(runnable, (p, parts) => specChecksTaken(p, parts), checksCovered);
  if (options.plan === 'smoke') return { chosen: sel.chosen, runs: sel.runs, parts: sel.parts, standby: [] };
  // What comes next in the ranking, a budget's worth: what the steering may run instead of cases that tell nothing.
  const next = new Selection(sel.limit, options.runs);
  const standby: Choice['standby'] = [];
  // The next slice first (what the next gate takes), then the ranking.
  const following = nextSlice ? [...nextSlice.chosen].filter((key) => !sel.chosen.has(key)).map((key) => ({ key, runs: nextSlice?.runs.get(key), parts: nextSlice?.parts.get(key) })) : [];
  for (const entry of [...following, ...ranked.entries]) {
    const p = byKey.get(entry.key);
    if (!p || sel.chosen.has(p.key)) continue;
    if (!next.take(p, entry.runs, entry.parts)) continue;
    const at = standby.findIndex((s) => s.key === p.key);
    const taken = { key: p.key, ...(next.runs.has(p.key) ? { runs: next.runs.get(p.key) } : {}), ...(next.parts.has(p.key) ? { parts: next.parts.get(p.key) } : {}) };
    if (at < 0) standby.push(taken);
    else standby[at] = taken;
  }
  const fixed = runnable.filter((p) => !isGenerated(p));
  sel.cover(fixed, coverage, new Set(takenCoverage()));
  for (const p of fixed) sel.take(p, undefined);
  // What is left goes to generated inputs not yet taken, in equal shares.
  const generated = runnable.filter((p) => isGenerated(p) && !sel.chosen.has(p.key));
  const share = generated.length > 0 ? Math.floor((sel.limit - sel.spent) / generated.length) : 0;
  for (const p of generated) {
    let caseRuns = options.runs;
    while (caseRuns >= 1 && estimatedRequests(p, caseRuns) > share) caseRuns = Math.floor(caseRuns / 2);
    if (caseRuns >= 1) sel.take(p, caseRuns);
  }
  return { chosen: sel.chosen, runs: sel.runs, parts: sel.parts, standby, ...(slice ? { slice } : {}) };
}

/**
 * The share of a budget the fixed part of every slice may take beyond the key: the rest of the budget
 * rotates. The key on every operation is fixed whatever it costs (31 requests destructive), so that every
 * budget of 30 or more proves it in every run.
 */
const FIXED_SHARE = 0.5;

/**
 * The rotation of a budget (issue 37). Every slice sends the same fixed part: the key stage of breadth
 * (phase 'key'), then the entries of breadth that fit within FIXED_SHARE of the budget. What that leaves
 * out, the rest of the ranking in order (those that show a fault no entry before them shows first:
 * freshFirst), is packed first-fit into slices of what is left of the budget: an entry goes to the first
 * slice it fits in (with what that slice took of its case), so slice 0 is the ranking walked as a single
 * budgeted run walks it, and every entry that fits a budget at all is in exactly one slice. Deterministic:
 * the same ranking, budget and profile give the same slices.
 */
function rotate(entries: readonly RankedEntry[], byKey: ReadonlyMap<string, PlannedCase>, fixed: Selection, keyClassesOf: (e: RankedEntry) => readonly string[], faultsOf: (e: RankedEntry) => readonly string[]): { slices: Selection[]; fixed: number } {
  let at = 0;
  const keyEntries: RankedEntry[] = [];
  for (; at < entries.length && entries[at]?.phase === 'key'; at += 1) {
    const e = entries[at];
    const p = byKey.get(e.key);
    if (p && fixed.take(p, e.runs, e.parts)) keyEntries.push(e);
  }
  /**
   * A slice for an entry too big for what the fixed part leaves (a case whole, at a small budget): it proves
   * the key itself on the operations it shows it on, so its slice keeps only the key entries proving what it
   * does not.
   */
  // Both asked again and again by the packing (once per slice tried): worked out once per entry.
  const classes = new Map<RankedEntry, readonly string[]>();
  const classesOf = (e: RankedEntry): readonly string[] => {
    let found = classes.get(e);
    if (found === undefined) {
      found = keyClassesOf(e);
      classes.set(e, found);
    }
    return found;
  };
  const aloneOf = new Map<RankedEntry, Selection>();
  const alone = (entry: RankedEntry): Selection => {
    let base = aloneOf.get(entry);
    if (base === undefined) {
      const shown = new Set(classesOf(entry));
      base = new Selection(fixed.limit, fixed.mostRuns);
      for (const e of keyEntries) {
        const p = byKey.get(e.key);
        if (p && !classesOf(e).every((c) => shown.has(c))) base.take(p, e.runs, e.parts);
      }
      aloneOf.set(entry, base);
    }
    return base.copy();
  };
  const share = Math.max(fixed.spent, Math.floor(fixed.limit * FIXED_SHARE));
  for (; at < entries.length && entries[at]?.phase === 'breadth'; at += 1) {
    const e = entries[at];
    const p = byKey.get(e.key);
    if (!p || !fixed.adds(p, e.runs, e.parts)) continue;
    // Beyond the fixed share: this entry and the rest rotate.
    const trial = fixed.copy();
    if (!trial.take(p, e.runs, e.parts) || trial.spent > share) break;
    fixed.take(p, e.runs, e.parts);
  }
  return { slices: pack(freshFirst(entries.slice(0, at), entries.slice(at), faultsOf), byKey, fixed, alone), fixed: fixed.spent };
}

/**
 * The entries a rotation packs, those that show a fault no entry before them shows first (in ranking order),
 * then the others: packed first-fit in ranking order, an entry that only repeats what earlier slices show
 * took room in an early slice that a later entry showing something new then lacked (k gates sent less than
 * the first k×B requests of the ranking would show).
 */
function freshFirst(before: readonly RankedEntry[], entries: readonly RankedEntry[], faultsOf: (e: RankedEntry) => readonly string[]): RankedEntry[] {
  const seen = new Set(before.flatMap(faultsOf));
  const fresh: RankedEntry[] = [];
  const repeats: RankedEntry[] = [];
  for (const e of entries) {
    const adds = faultsOf(e).filter((f) => !seen.has(f));
    for (const f of adds) seen.add(f);
    (adds.length > 0 ? fresh : repeats).push(e);
  }
  return [...fresh, ...repeats];
}

/**
 * First-fit packing of ranked entries into slices built on the fixed part (see rotate). An entry too big for
 * what the fixed part leaves goes, with the entries of the first slice that still fit beside it, to a slice
 * whose fixed part it proves itself (`alone`). Beyond slice 0, the later entries of a case with parts follow
 * its first into the slice it went to while they fit, so that its core is sent once there.
 */
function pack(entries: readonly RankedEntry[], byKey: ReadonlyMap<string, PlannedCase>, fixed: Selection, alone: (e: RankedEntry) => Selection): Selection[] {
  type Take = [PlannedCase, number | undefined, string[] | undefined];
  const slices: Array<{ sel: Selection; takes: Take[] }> = [];
  /** Parts of a case some slice took already (a later entry adds only the others): undefined, whole. */
  const placed = new Map<string, Set<string> | undefined>();
  const queue: Array<RankedEntry | undefined> = [...entries];
  for (let at = 0; at < queue.length; at += 1) {
    const e = queue[at];
    if (e === undefined) continue;
    const p = byKey.get(e.key);
    if (!p || !fixed.adds(p, e.runs, e.parts)) continue;
    const had = placed.has(e.key) ? placed.get(e.key) : new Set<string>();
    if (had === undefined && !p.shape.generated) continue;
    // A whole case some of whose parts a slice took already: the others (with its core), not those again.
    const named = e.parts ?? (had !== undefined && had.size > 0 ? p.shape.parts?.map((part) => part.id) : undefined);
    const fresh = named === undefined ? undefined : named.filter((id) => !had?.has(id));
    if (fresh !== undefined && fresh.length === 0 && !p.shape.generated) continue;
    const take: Take = [p, e.runs, fresh];
    // What this entry adds (its fresh parts), not the whole selection it names: a slice built on what the
    // entry proves itself must not drop a key proof that only its earlier parts, placed elsewhere, made.
    const adding: RankedEntry = fresh === undefined ? e : { ...e, parts: fresh };
    // A slice that holds the case already first: its core is not sent twice.
    const holding = slices.filter((s) => s.sel.chosen.has(p.key));
    let home = [...holding, ...slices.filter((s) => !holding.includes(s))].find((s) => s.sel.adds(p, e.runs, fresh) && s.sel.take(p, e.runs, fresh));
    if (!home) {
      const opened = fixed.copy();
      if (opened.take(p, e.runs, fresh)) {
        home = { sel: opened, takes: [] };
        slices.push(home);
      } else {
        // Beside the entries of the first slice that leave it room, on the fixed part it proves itself.
        for (const s of slices) {
          const rebuilt = alone(adding);
          if (s.takes.every(([q, runs, parts]) => rebuilt.take(q, runs, parts) || !rebuilt.adds(q, runs, parts)) && rebuilt.take(p, e.runs, fresh)) {
            s.sel = rebuilt;
            home = s;
            break;
          }
        }
        if (!home) {
          const own = alone(adding);
          if (!own.take(p, e.runs, fresh)) continue; // beyond what a slice can hold: never in this budget
          home = { sel: own, takes: [] };
          slices.push(home);
        }
      }
    }
    home.takes.push(take);
    placed.set(e.key, e.parts === undefined ? undefined : new Set([...(had ?? []), ...(e.parts ?? [])]));
    // The case's later entries that fit beside it go in now: a case taken part by part pays its core in
    // every slice that takes a part of it (slice 0 excepted: it is the ranking walked as one run walks it).
    if (home !== slices[0] && (p.shape.parts ?? []).length > 0) {
      for (let later = at + 1; later < queue.length; later += 1) {
        const next = queue[later];
        if (next?.key !== e.key) continue;
        const sofar = placed.get(e.key);
        const more = next.parts?.filter((id) => !sofar?.has(id));
        if (sofar === undefined || more === undefined || more.length === 0) continue;
        if (!home.sel.take(p, next.runs, more)) continue;
        home.takes.push([p, next.runs, more]);
        placed.set(e.key, new Set([...sofar, ...more]));
        queue[later] = undefined;
      }
    }
  }
  return slices.length === 0 ? [fixed.copy()] : slices.map((s) => s.sel);
}
