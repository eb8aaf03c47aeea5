import { randomUUID } from 'node:crypto';
import type { AgencyWorkRef, TargetProfile } from '../lib/contract/profile/types.ts';

/** What the server keeps about one agent run (the counters are stored as received, never interpreted). */
export interface RunRecord {
  runId: string;
  started?: Record<string, unknown>;
  ended?: Record<string, unknown>;
}

/** Runs kept in memory; the oldest are forgotten beyond this, so a long harness run cannot grow the heap. */
const MAX_RUNS = 100_000;

const workKey = (agency: string, workcode: string): string => JSON.stringify([agency, workcode]);
/** A submission as section 2.5 identifies it. */
export interface StoredSubmission {
  preferredIswc: string;
  agency: string;
  workcode: string;
  sourceDb: number;
}

const submissionKey = (preferredIswc: string, agency: string, workcode: string, sourceDb: number): string =>
  JSON.stringify([preferredIswc, agency, workcode, sourceDb]);

/**
 * The in-memory store of one server instance, seeded from a target profile. Nothing here is shared
 * between instances.
 *
 * - existing ISWCs: `iswcs`, plus every ISWC named by the disposable entries, minus `unknownIswcs`;
 * - demergeable works: the `demerges` entries (metadata currently merged into their preferred ISWC);
 * - submissions: the `submissions` entries, identified by (preferredIswc, agency, workcode, sourceDb).
 */
export class ServerState {
  readonly #iswcs = new Set<string>();
  /** preferred ISWC -> ISWCs merged into it. */
  readonly #childIswcs = new Map<string, Set<string>>();
  /** preferred ISWC -> keys of the agency works merged into it (what a demerge can remove). */
  readonly #works = new Map<string, Set<string>>();
  /** Preferred ISWCs metadata was merged into: the profile's demerges, and every successful merge (for `after-merge-demerge-any`). */
  readonly #mergedInto = new Set<string>();
  /** Agency works demerged from a preferred ISWC (choice `merge-after-demerge-refused`), keyed by ISWC. */
  readonly #demerged = new Map<string, Set<string>>();
  readonly #submissions = new Set<string>();
  /** Agency works the server knows (from the profile's entries): choice `merge-items-in-order`. */
  readonly #knownWorks = new Set<string>();
  /** preferred ISWC -> work key -> the merge (set of metadata) it came with: choice `demerge-merge-set`. */
  readonly #mergeSets = new Map<string, Map<string, number>>();
  #nextMergeSet = 1;
  /** The ISWC each agency work belongs to, by its submission (choice `demerge-merged-iswc`). */
  readonly #workIswc = new Map<string, string>();
  /** ISWC or agency work -> the agencies holding a submission on it (choice `merge-eligibility`). */
  readonly #holders = new Map<string, Set<string>>();
  readonly #runs = new Map<string, RunRecord>();
  /** Runs started and not ended, with the agency each acts for (choice `one-open-run`). */
  readonly #openRuns = new Map<string, string>();
  /** Sequences the server numbers (nextInSequence). */
  readonly #sequences = new Map<string, number>();
  /** For the fault `run-response-schema`: runIds answered as numbers. */
  #nextRunNumber = 12345;

  constructor(profile: TargetProfile) {
    const unknown = new Set(profile.unknownIswcs);
    const add = (iswc: string): void => {
      if (!unknown.has(iswc)) this.#iswcs.add(iswc);
    };
    profile.iswcs.forEach(add);
    for (const m of profile.merges) {
      add(m.preferredIswc);
      m.iswcs?.forEach(add);
      for (const w of m.agencyWorks ?? []) this.#knownWorks.add(workKey(w.agencyCode, w.agencyWorkCode));
    }
    for (const d of profile.demerges) {
      add(d.preferredIswc);
      this.#worksOf(d.preferredIswc).add(workKey(d.agency, d.workcode));
      this.#knownWorks.add(workKey(d.agency, d.workcode));
      this.#setsOf(d.preferredIswc).set(workKey(d.agency, d.workcode), this.#nextMergeSet++);
      this.#mergedInto.add(d.preferredIswc);
    }
    // Choice `merge-eligibility`: the profile's agency holds what the profile names, each entry's agency its own.
    const hold = (key: string, agency: string): void => {
      const set = this.#holders.get(key) ?? new Set<string>();
      set.add(agency);
      this.#holders.set(key, set);
    };
    for (const iswc of [...profile.iswcs, ...profile.merges.flatMap((m) => [m.preferredIswc, ...(m.iswcs ?? [])])]) hold(iswc, profile.agency);
    for (const w of profile.merges.flatMap((m) => m.agencyWorks ?? [])) hold(workKey(w.agencyCode, w.agencyWorkCode), w.agencyCode);
    for (const d of profile.demerges) {
      hold(d.preferredIswc, d.agency);
      hold(workKey(d.agency, d.workcode), d.agency);
    }
    for (const s of profile.submissions) {
      hold(s.preferredIswc, s.agency);
      hold(workKey(s.agency, s.workcode), s.agency);
    }
    for (const s of profile.submissions) {
      add(s.preferredIswc);
      this.#submissions.add(submissionKey(s.preferredIswc, s.agency, s.workcode, s.sourceDb));
      this.#knownWorks.add(workKey(s.agency, s.workcode));
      this.#workIswc.set(workKey(s.agency, s.workcode), s.preferredIswc);
    }
  }

  /** The ISWC an agency work belongs to: its submission's, or, without one, an ISWC of its own. */
  #iswcOfWork(key: string): string {
    return this.#workIswc.get(key) ?? `work:${key}`;
  }

  /**
   * Choice `demerge-merged-iswc`: removes the merged ISWC the named work belongs to, with every work of it
   * merged into this preferred ISWC.
   */
  demergeIswc(preferredIswc: string, agency: string, workcode: string): void {
    const named = workKey(agency, workcode);
    const iswc = this.#iswcOfWork(named);
    const works = this.#works.get(preferredIswc);
    for (const key of [...(works ?? [])]) if (key === named || this.#iswcOfWork(key) === iswc) this.#removeWork(preferredIswc, key);
  }

  #worksOf(preferredIswc: string): Set<string> {
    let set = this.#works.get(preferredIswc);
    if (!set) {
      set = new Set();
      this.#works.set(preferredIswc, set);
    }
    return set;
  }

  #setsOf(preferredIswc: string): Map<string, number> {
    let sets = this.#mergeSets.get(preferredIswc);
    if (!sets) {
      sets = new Map();
      this.#mergeSets.set(preferredIswc, sets);
    }
    return sets;
  }

  /**
   * Choice `merge-eligibility`: does the agency hold a submission on one of these ISWCs or agency works (a
   * work of its own counts: it submitted it)?
   */
  holdsAny(agency: string, iswcs: readonly string[], works: readonly AgencyWorkRef[]): boolean {
    if (works.some((w) => w.agencyCode === agency)) return true;
    return [...iswcs, ...works.map((w) => workKey(w.agencyCode, w.agencyWorkCode))].some((key) => this.#holders.get(key)?.has(agency) ?? false);
  }

  /**
   * The values the server holds of a schema component (ISWCs, agency work codes, agency codes): what a
   * lenient fault that matches by prefix or LIKE searches (server/lenient.ts).
   */
  storedValues(component: string | undefined): string[] {
    if (component === 'Iswc') return [...this.#iswcs];
    const works = [...this.#knownWorks].map((k) => JSON.parse(k) as [string, string]);
    if (component === 'AgencyWorkCode') return [...new Set(works.map(([, w]) => w))];
    if (component === 'AgencyCode') return [...new Set(works.map(([a]) => a))];
    return [];
  }

  /** An agency that holds a work of this code (fault `merge-works-ignore-agency`: a work looked up by its code alone). */
  agencyWithWorkCode(workcode: string): string | undefined {
    for (const key of this.#knownWorks) {
      const [agency, code] = JSON.parse(key) as [string, string];
      if (code === workcode) return agency;
    }
    return undefined;
  }

  /** Does the server know this agency work (a work of its submissions, demerges or merges)? */
  workKnown(agency: string, workcode: string): boolean {
    return this.#knownWorks.has(workKey(agency, workcode));
  }

  /**
   * Choice `demerge-merge-set`: removes the whole set of metadata the named work came with (every agency
   * work one merge request carried into this preferred ISWC).
   */
  demergeSet(preferredIswc: string, agency: string, workcode: string): void {
    const sets = this.#setsOf(preferredIswc);
    const set = sets.get(workKey(agency, workcode));
    for (const [key, id] of [...sets]) {
      if (set !== undefined && id === set) {
        sets.delete(key);
        this.#removeWork(preferredIswc, key);
      }
    }
    this.#removeWork(preferredIswc, workKey(agency, workcode));
  }

  iswcExists(iswc: string): boolean {
    return this.#iswcs.has(iswc);
  }

  /** A new set of metadata (what one merge request carries), for a merge made in several steps. */
  newMergeSet(): number {
    return this.#nextMergeSet++;
  }

  /**
   * Makes the ISWCs and agency works children of the preferred ISWC (4.2); the works become demergeable,
   * as one set of metadata (a new one unless `set` is given).
   */
  merge(preferredIswc: string, iswcs: readonly string[], works: readonly AgencyWorkRef[], set = this.newMergeSet()): void {
    let children = this.#childIswcs.get(preferredIswc);
    if (!children) {
      children = new Set();
      this.#childIswcs.set(preferredIswc, children);
    }
    for (const iswc of iswcs) if (iswc !== preferredIswc) children.add(iswc);
    const merged = this.#worksOf(preferredIswc);
    const sets = this.#setsOf(preferredIswc);
    for (const w of works) {
      merged.add(workKey(w.agencyCode, w.agencyWorkCode));
      sets.set(workKey(w.agencyCode, w.agencyWorkCode), set);
    }
    this.#mergedInto.add(preferredIswc);
  }

  /** Is this ISWC already merged into some preferred ISWC (choice `merge-child-refused`)? */
  hasParent(iswc: string): boolean {
    for (const children of this.#childIswcs.values()) if (children.has(iswc)) return true;
    return false;
  }

  wasMergedInto(preferredIswc: string): boolean {
    return this.#mergedInto.has(preferredIswc);
  }

  isMerged(preferredIswc: string, agency: string, workcode: string): boolean {
    return this.#works.get(preferredIswc)?.has(workKey(agency, workcode)) ?? false;
  }

  /** Is this agency work merged into some preferred ISWC (choice `demerge-by-work-400`)? */
  isMergedAnywhere(agency: string, workcode: string): boolean {
    for (const works of this.#works.values()) if (works.has(workKey(agency, workcode))) return true;
    return false;
  }

  /**
   * The first stored submission that has every value given: how faults and choices that ignore one of
   * a submission's four values (2.5) find what they act on.
   */
  findSubmission(known: Partial<StoredSubmission>): StoredSubmission | undefined {
    const fields = Object.keys(known) as Array<keyof StoredSubmission>;
    for (const key of this.#submissions) {
      const [preferredIswc, agency, workcode, sourceDb] = JSON.parse(key) as [string, string, string, number];
      const stored: StoredSubmission = { preferredIswc, agency, workcode, sourceDb };
      if (fields.every((f) => known[f] === stored[f])) return stored;
    }
    return undefined;
  }

  /** The preferred ISWC this agency work is merged into, if any (fault `demerge-ignores-preferred`). */
  mergedIswcOf(agency: string, workcode: string): string | undefined {
    for (const [iswc, works] of this.#works) if (works.has(workKey(agency, workcode))) return iswc;
    return undefined;
  }

  /** Has any agency work been merged into this ISWC and not demerged (choice `delete-with-merges-400`)? */
  hasMergedWorks(preferredIswc: string): boolean {
    return (this.#works.get(preferredIswc)?.size ?? 0) > 0;
  }

  /** Removes one agency work from a preferred ISWC (4.4). */
  demerge(preferredIswc: string, agency: string, workcode: string): void {
    this.#removeWork(preferredIswc, workKey(agency, workcode));
  }

  /** Takes one agency work out of a preferred ISWC, remembering it was demerged from there. */
  #removeWork(preferredIswc: string, key: string): void {
    if (!this.#works.get(preferredIswc)?.delete(key)) return;
    let gone = this.#demerged.get(preferredIswc);
    if (!gone) this.#demerged.set(preferredIswc, (gone = new Set()));
    gone.add(key);
  }

  /** Was this agency work demerged from this preferred ISWC (choice `merge-after-demerge-refused`)? */
  wasDemerged(preferredIswc: string, agency: string, workcode: string): boolean {
    return this.#demerged.get(preferredIswc)?.has(workKey(agency, workcode)) ?? false;
  }

  hasSubmission(preferredIswc: string, agency: string, workcode: string, sourceDb: number): boolean {
    return this.#submissions.has(submissionKey(preferredIswc, agency, workcode, sourceDb));
  }

  /** Removes every work merged into a preferred ISWC (for a fault only). */
  demergeAll(preferredIswc: string): void {
    this.#works.get(preferredIswc)?.clear();
  }

  /** The agency under which a work code is merged into this ISWC, if any (for a fault only). */
  mergedAgencyOf(preferredIswc: string, workcode: string): string | undefined {
    for (const key of this.#works.get(preferredIswc) ?? []) {
      const [a, w] = JSON.parse(key) as [string, string];
      if (w === workcode) return a;
    }
    return undefined;
  }

  deleteSubmission(preferredIswc: string, agency: string, workcode: string, sourceDb: number): void {
    this.#submissions.delete(submissionKey(preferredIswc, agency, workcode, sourceDb));
  }

  /** Effects that lapse (faults `delete-lapses`, `demerge-lapses`): what undoes each, by what names it. */
  readonly #lapsing = new Map<string, () => void>();

  /** A change that is undone once a request naming the same thing (`lapseOn`) has been refused. */
  lapsesLater(what: 'delete' | 'demerge', names: ReadonlyArray<string | number>, undo: () => void): void {
    this.#lapsing.set(`${what}${JSON.stringify(names)}`, undo);
  }

  /** A delete or demerge naming these was refused: the change it names, if one lapses, is undone once this answer is given. */
  lapseOn(what: 'delete' | 'demerge', names: ReadonlyArray<string | number>): void {
    const key = `${what}${JSON.stringify(names)}`;
    const undo = this.#lapsing.get(key);
    if (!undo) return;
    this.#lapsing.delete(key);
    queueMicrotask(undo);
  }

  /** Brings back a deleted submission (fault `delete-lapses`). */
  restoreSubmission(preferredIswc: string, agency: string, workcode: string, sourceDb: number): void {
    this.#submissions.add(submissionKey(preferredIswc, agency, workcode, sourceDb));
  }

  /** The next number of a sequence the server keeps (1, 2, …): fault `run-ids-per-format` numbers runs per body format. */
  nextInSequence(name: string): number {
    const next = (this.#sequences.get(name) ?? 0) + 1;
    this.#sequences.set(name, next);
    return next;
  }

  /** A run notification without runId starts a run: a new GUID is allocated. */
  startRun(fields: Record<string, unknown>, chosen: string | undefined, agency: string): string {
    const runId = chosen ?? randomUUID();
    this.#remember({ runId, started: fields });
    this.#openRuns.set(runId, agency);
    return runId;
  }

  /** A run notification with a runId ends that run (known or not: the document lists no 404 for it). */
  endRun(runId: string, fields: Record<string, unknown>): void {
    const known = this.#runs.get(runId);
    this.#remember({ runId, ...(known?.started ? { started: known.started } : {}), ended: fields });
    this.#openRuns.delete(runId);
  }

  /** Has the agency a run started and not ended (choice `one-open-run`)? */
  hasOpenRun(agency: string): boolean {
    for (const owner of this.#openRuns.values()) if (owner === agency) return true;
    return false;
  }

  /** A number standing for a runId (fault `run-response-schema` only). */
  runNumber(_runId: string): number {
    return this.#nextRunNumber++;
  }

  run(runId: string): RunRecord | undefined {
    return this.#runs.get(runId);
  }

  #remember(record: RunRecord): void {
    this.#runs.delete(record.runId);
    this.#runs.set(record.runId, record);
    if (this.#runs.size > MAX_RUNS) {
      const oldest = this.#runs.keys().next();
      if (!oldest.done) {
        this.#runs.delete(oldest.value);
        this.#openRuns.delete(oldest.value);
      }
    }
  }
}
