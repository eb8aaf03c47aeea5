import { existsSync, readFileSync } from 'node:fs';
import type { DisposableKind } from '../contract/profile/types.ts';
import type { PlannedCase } from '../run/planned.ts';
import type { CheckExecution } from '../run/execution.ts';

/**
 * Disposable entries an earlier run consumed (issue 40): a destructive run deletes the profile's disposable
 * submissions, demerges its merged metadata and merges its merge entries, so that a second run against the
 * same target finds them gone and its 404 looks like a defect of the API. The run records, in its report,
 * each entry it consumed with a 2xx answer; the next run against the same target reads the report it is
 * about to replace, and a refusal (4xx) of a request on such an entry is not a finding: the case is
 * reported skipped, naming the entry and what to do, and the run ends with exit 3 when nothing else fails.
 *
 * Nothing is assumed without evidence: an entry counts as consumed only where an earlier run's report
 * says a request on it was answered 2xx, and only a 4xx on it is excused; a server that refuses a valid
 * request on an entry it holds is still failed by the first run, which consumed nothing.
 */

/** One disposable entry a run consumed: its kind and the entry as the profile lists it. */
export interface ConsumedEntry {
  kind: DisposableKind;
  entry: unknown;
  /** The case whose request consumed it. */
  caseId: string;
  /** When the run that consumed it started (ISO time). */
  at: string;
}

/** What an earlier run's report says was consumed, and where it says so. */
export interface EarlierConsumption {
  /** The report read (to name it in the reason). */
  report: string;
  entries: ConsumedEntry[];
}

const CONSUMING: Readonly<Record<DisposableKind, string>> = { submissions: 'deleted', demerges: 'demerged', merges: 'merged' };
const KIND_NAME: Readonly<Record<DisposableKind, string>> = { submissions: 'submission', demerges: 'demerge entry', merges: 'merge entry' };

/** The origin of a base URL (scheme, host, port), or the text itself when it is no URL. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * The entries a report in `file` says its run consumed against the same target (the origin of `baseUrl`):
 * undefined when there is no such report, it was a run against an embedded server (started afresh by each
 * run), or it consumed nothing. A report that cannot be read is no evidence.
 */
export function earlierConsumption(file: string, baseUrl: string): EarlierConsumption | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as { meta?: { baseUrl?: unknown; embedded?: unknown; startedAt?: unknown; consumed?: unknown } };
    const meta = report.meta;
    if (!meta || meta.embedded === true || typeof meta.baseUrl !== 'string' || originOf(meta.baseUrl) !== originOf(baseUrl)) return undefined;
    const entries = Array.isArray(meta.consumed)
      ? (meta.consumed as Array<Partial<ConsumedEntry>>)
          .filter((c): c is ConsumedEntry => typeof c === 'object' && c !== null && typeof c.kind === 'string' && c.kind in CONSUMING)
          .map((c) => ({ ...c, at: typeof c.at === 'string' ? c.at : typeof meta.startedAt === 'string' ? meta.startedAt : 'unknown' }))
      : [];
    return entries.length > 0 ? { report: file, entries } : undefined;
  } catch {
    return undefined;
  }
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
/** The same disposable entry: the same kind, and the same values. */
const sameEntry = (a: { kind: DisposableKind; entry: unknown }, b: { kind: DisposableKind; entry: unknown }): boolean => a.kind === b.kind && same(a.entry, b.entry);

/** The entries a case consumes when it sends: those of its claims that are not read-only. */
export function consumingEntries(p: PlannedCase): Array<{ kind: DisposableKind; entry: unknown }> {
  const kinds = new Set((p.def.claims ?? []).filter((c) => c.readOnly !== true).map((c) => c.kind));
  return [...kinds].flatMap((kind) => (p.entries[kind] ?? []).map((entry) => ({ kind, entry })));
}

/** How an entry is named: where the profile lists it (`submissions[1]`), else its kind and values. */
export type EntryNamer = (kind: DisposableKind, entry: unknown) => string;

type ProfileEntries = Partial<Record<DisposableKind, readonly unknown[]>>;

/** Where the profile lists an entry (its index in the list of its kind), or -1. */
export function profileIndex(profile: ProfileEntries, kind: DisposableKind, entry: unknown): number {
  return (profile[kind] ?? []).findIndex((e) => same(e, entry));
}

/** `submissions[1]` when the profile lists the entry, else `submission T3300000102 128 IM00900101 128`. */
export function profileEntryNamer(profile: ProfileEntries): EntryNamer {
  return (kind, entry) => {
    const index = profileIndex(profile, kind, entry);
    return index >= 0 ? `${kind}[${index}]` : `${KIND_NAME[kind]} ${flatValues(entry).join(' ')}`;
  };
}

function flatValues(value: unknown): string[] {
  if (value === null || typeof value !== 'object') return [String(value)];
  return Object.values(value).flatMap(flatValues);
}

/** Why cases on consumed entries are not judged: the entries, what consumed them and when, and what to do. */
export function consumedReason(found: readonly ConsumedEntry[], report: string, name: EntryNamer): string {
  const byWhat = new Map<string, string[]>();
  for (const c of found) {
    const what = `${CONSUMING[c.kind]} by a run started ${c.at}`;
    byWhat.set(what, [...(byWhat.get(what) ?? []), name(c.kind, c.entry)]);
  }
  const one = found.length === 1;
  const parts = [...byWhat].map(([what, names]) => `${names.join(', ')} (${what})`);
  return `the profile's disposable ${one ? 'entry' : 'entries'} ${parts.join('; ')} ${one ? 'is' : 'are'} consumed, as ${report} records: recreate ${one ? 'it' : 'them'} on the target, or use a reusable profile (docs/target-profile.md)`;
}

/**
 * What a destructive run used up, for its summary: said by the run that consumed the entries, not first by
 * the next one, whose cases on them are then not judged (exit 3). Undefined when it consumed nothing.
 */
export function consumedByThisRun(consumed: readonly ConsumedEntry[], report: string, name: EntryNamer): string | undefined {
  if (consumed.length === 0) return undefined;
  const one = consumed.length === 1;
  const names = [...new Set(consumed.map((c) => `${name(c.kind, c.entry)} (${CONSUMING[c.kind]})`))];
  return `this destructive run consumed ${one ? 'one disposable entry' : `${consumed.length} disposable entries`} of the profile: ${names.join(', ')}, as ${report} records. The next destructive run against this target does not judge what the target then refuses on ${one ? 'it' : 'them'} (such a run ends with exit 3) unless ${one ? 'it is' : 'they are'} recreated there (a reference server started apart: start it again), or the profile is reusable (docs/target-profile.md)`;
}

const answeredOk = (e: CheckExecution): boolean => /^2\d\d\b/.test(e.received ?? '');
const refused = (e: CheckExecution): boolean => /^4\d\d\b/.test(e.received ?? '');

/**
 * The consumption of one run: what it consumes (for its report), and what it finds consumed by an earlier
 * run (its cases' refusals on those entries are skipped, not failed). Inactive (it observes nothing) on a
 * reusable profile, whose run undoes its changes, and without `--destructive`, which consumes nothing.
 */
export class Consumption {
  private readonly consumed: ConsumedEntry[] = [];
  private readonly found: ConsumedEntry[] = [];
  /** Entries whose case failed on a refusal with no earlier report to say they were consumed. */
  private readonly unexplained: Array<{ kind: DisposableKind; entry: unknown }> = [];

  /**
   * `startedAt`: when this run started (what it consumes is recorded with it); `name`: how the reasons
   * name an entry; `shown`: how they name the earlier report (a path as the user typed it).
   */
  constructor(
    private readonly active: boolean,
    private readonly earlier: EarlierConsumption | undefined,
    private readonly startedAt: string,
    private readonly name: EntryNamer,
    private readonly shown: (file: string) => string = (f) => f,
  ) {}

  /**
   * A case's executions as the run reports them: a failure that is a refusal (4xx) of a request on an entry
   * an earlier run consumed is skipped with the reason; everything else as judged. Records what the case
   * consumed: its consuming entries, once a request of it was answered 2xx.
   */
  observe(p: PlannedCase, executions: readonly CheckExecution[]): CheckExecution[] {
    if (!this.active) return [...executions];
    const entries = consumingEntries(p);
    if (entries.length === 0) return [...executions];
    const before = (this.earlier?.entries ?? []).filter((e) => entries.some((c) => sameEntry(e, c)));
    let out = [...executions];
    if (before.length > 0 && this.earlier && out.some((e) => e.verdict === 'fail' && refused(e))) {
      const reason = consumedReason(before, this.shown(this.earlier.report), this.name);
      out = out.map((e) => (e.verdict === 'fail' && refused(e) ? { ...e, verdict: 'skip' as const, skipReason: reason } : e));
      for (const c of before) if (!this.found.some((f) => sameEntry(f, c))) this.found.push(c);
    } else if (before.length === 0 && out.some((e) => e.verdict === 'fail' && refused(e))) {
      for (const c of entries) if (!this.unexplained.some((f) => sameEntry(f, c))) this.unexplained.push(c);
    }
    if (out.some(answeredOk)) for (const c of entries) if (!this.consumed.some((f) => sameEntry(f, c))) this.consumed.push({ ...c, caseId: p.def.id, at: this.startedAt });
    return out;
  }

  /**
   * What the report records as consumed: this run's entries, and the earlier run's that this run did not
   * find back (a later run needs them too; a run that consumes nothing, without --destructive or on a
   * reusable profile, passes them on).
   */
  ledger(): ConsumedEntry[] {
    const carried = (this.earlier?.entries ?? []).filter((e) => !this.consumed.some((c) => sameEntry(c, e)));
    return [...this.consumed, ...carried];
  }

  /** The entries this run found consumed by an earlier run (their cases skipped). */
  foundConsumed(): ConsumedEntry[] {
    return [...this.found];
  }

  /** The outcome's reason when entries were found consumed: the run could not judge what needed them. */
  reason(): string | undefined {
    if (this.found.length === 0 || !this.earlier) return undefined;
    return consumedReason(this.found, this.shown(this.earlier.report), this.name);
  }

  /**
   * When a case failed on a refusal of an entry the run consumes and no earlier report says it was consumed:
   * what to check before taking it for a finding (an earlier destructive run may have consumed it, its reports
   * in another directory, so that this run could not know). The failures stand: this is no evidence.
   */
  hint(reportDir: string): string | undefined {
    if (this.unexplained.length === 0) return undefined;
    const one = this.unexplained.length === 1;
    const names = this.unexplained.map((c) => this.name(c.kind, c.entry)).join(', ');
    return `refused: the profile's disposable ${one ? 'entry' : 'entries'} ${names}, which a destructive run consumes. If an earlier destructive run against this target consumed ${one ? 'it' : 'them'}, with its reports in another directory than ${this.shown(reportDir)}, this run could not know, and ${one ? 'its failure is' : 'their failures are'} not the API's: recreate ${one ? 'it' : 'them'} on the target, or give --report-dir the directory of that run, whose report says what it consumed (docs/target-profile.md, "A second run before you refresh them")`;
  }

  /** What a merge of shards needs to say the same (lib/report/attachment.ts): the ledger, and the entries found consumed with the report that says so. */
  attached(): ConsumptionAttached | undefined {
    const ledger = this.ledger();
    if (ledger.length === 0 && this.found.length === 0) return undefined;
    return { ledger, ...(this.found.length > 0 && this.earlier ? { found: { entries: [...this.found], report: this.shown(this.earlier.report) } } : {}) };
  }
}

/** The consumption a test hands to the reporters with its executions, so that a merge of shards knows it. */
export interface ConsumptionAttached {
  /** The run's ledger when the test ended (Consumption.ledger). */
  ledger: ConsumedEntry[];
  /** The entries the run had found consumed by then, and the report (as shown) that records them. */
  found?: { entries: ConsumedEntry[]; report: string };
}

/**
 * The consumption of a sharded run, from what its tests attached: the union of the shards' ledgers (each
 * entry once, as the first shard to record it has it), and the reason over every entry a shard found
 * consumed. Each shard read the report in its own report directory; the first one's name is given.
 */
export function mergedConsumption(attached: readonly ConsumptionAttached[], name: EntryNamer): { ledger: ConsumedEntry[]; reason?: string } {
  const ledger: ConsumedEntry[] = [];
  const found: ConsumedEntry[] = [];
  let report: string | undefined;
  for (const a of attached) {
    for (const c of a.ledger) if (!ledger.some((e) => sameEntry(e, c))) ledger.push(c);
    if (a.found) {
      report ??= a.found.report;
      for (const c of a.found.entries) if (!found.some((e) => sameEntry(e, c))) found.push(c);
    }
  }
  return { ledger, ...(found.length > 0 && report !== undefined ? { reason: consumedReason(found, report, name) } : {}) };
}
