import type { DisposableKind, MergeEntry, TargetProfile } from '../contract/profile/types.ts';
import type { CheckId } from './checks.generated.ts';

/**
 * What a case needs of the target profile to run, or to exercise some of its checks. Claims
 * (`CaseDef.claims`) say how many disposable entries a case consumes; needs say what else must be there:
 * more items in a list the case reads (`${profile.iswcs[1]}` needs two iswcs), or more inside the entry it
 * claims (a merge entry with two agency works). The planner skips a case whose needs are not met with
 * what it lacks, counted ("needs 1 more iswcs"); `profile check` adds the lacks up per spec check.
 */

/** Lists of a target profile a case may read items of (read, never consumed). */
export type ProfileList = 'iswcs' | 'unknownIswcs' | DisposableKind;
export const PROFILE_LISTS: readonly ProfileList[] = ['iswcs', 'unknownIswcs', 'merges', 'demerges', 'submissions'];

/** Lists inside a merge entry. */
export type EntryList = 'iswcs' | 'agencyWorks';

interface NeedScope {
  /**
   * The checks only this data lets the case exercise: without it the case still runs, and these checks
   * are reported skipped with what is lacking. Without `checks`, the whole case needs it.
   */
  checks?: readonly CheckId[];
}

/** The profile lists at least `atLeast` items in `list`. */
export interface ListNeed extends NeedScope {
  list: ProfileList;
  atLeast: number;
}

/** The merge entry the case claims as number `index` carries at least `atLeast` items in `list`. */
export interface EntryNeed extends NeedScope {
  entry: 'merges';
  index: number;
  list: EntryList;
  atLeast: number;
}

/** A value of the profile a scenario names that the forms above do not cover (`${profile.merges[0].agencyWorks[1]}`). */
export interface ValueNeed extends NeedScope {
  reference: string;
  path: ReadonlyArray<string | number>;
}

export type Need = ListNeed | EntryNeed | ValueNeed;

/** What a case lacks, counted: the smallest addition to the profile that meets one need. */
export type Lack =
  /** `more` items in a list of the profile. */
  | { list: ProfileList; more: number }
  /** `more` merge entries with at least `atLeast` items in `list`. */
  | { entry: 'merges'; list: EntryList; atLeast: number; more: number }
  /** A value of the profile a scenario names. */
  | { reference: string };

export function isEntryNeed(n: Need): n is EntryNeed {
  return 'entry' in n;
}

function dig(value: unknown, path: ReadonlyArray<string | number>): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** Does an entry have what an entry need asks of it? */
export function entryMeets(entry: unknown, need: Pick<EntryNeed, 'list' | 'atLeast'>): boolean {
  return ((entry as MergeEntry | undefined)?.[need.list]?.length ?? 0) >= need.atLeast;
}

/**
 * What is lacking for one need, given the profile and the entries the case was given; undefined when the
 * need is met. An entry need of an entry the case did not get is the claim's lack, not this one's.
 */
export function lackOf(need: Need, profile: TargetProfile, entries: Partial<Record<DisposableKind, unknown[]>>): Lack | undefined {
  if ('reference' in need) return dig(profile, need.path) === undefined ? { reference: need.reference } : undefined;
  if (isEntryNeed(need)) {
    const entry = entries.merges?.[need.index];
    if (entry === undefined || entryMeets(entry, need)) return undefined;
    return { entry: 'merges', list: need.list, atLeast: need.atLeast, more: 1 };
  }
  const have = (profile[need.list] as unknown[]).length;
  return have >= need.atLeast ? undefined : { list: need.list, more: need.atLeast - have };
}

/** "2 more merges", "a merges entry with at least 2 agencyWorks", "${profile.merges[0].agencyWorks[1]} in the target profile". */
export function lackText(lack: Lack): string {
  if ('reference' in lack) return `\${${lack.reference}} in the target profile`;
  if ('entry' in lack) return `${lack.more === 1 ? 'a' : lack.more} ${lack.entry} entr${lack.more === 1 ? 'y' : 'ies'} with at least ${lack.atLeast} ${lack.list}`;
  return `${lack.more} more ${lack.list}`;
}

/** Lacks of the same kind added up: two cases each lacking one merge lack two. */
export function addLacks(lacks: readonly Lack[]): Lack[] {
  const out: Lack[] = [];
  for (const lack of lacks) {
    const same = out.find((o) => lackKey(o) === lackKey(lack));
    if (!same) out.push({ ...lack });
    else if ('more' in same && 'more' in lack) same.more += lack.more;
  }
  return out;
}

/** Lacks of the same kind, the larger kept: what one addition must cover at once. */
export function widestLacks(lacks: readonly Lack[]): Lack[] {
  const out: Lack[] = [];
  for (const lack of lacks) {
    const same = out.find((o) => lackKey(o) === lackKey(lack));
    if (!same) out.push({ ...lack });
    else if ('more' in same && 'more' in lack) same.more = Math.max(same.more, lack.more);
  }
  return out;
}

function lackKey(lack: Lack): string {
  if ('reference' in lack) return `ref:${lack.reference}`;
  if ('entry' in lack) return `entry:${lack.entry}:${lack.list}:${lack.atLeast}`;
  return `list:${lack.list}`;
}

/** How many items a lack asks for (to compare additions: the smallest is advised). */
export function lackSize(lacks: readonly Lack[]): number {
  return lacks.reduce((n, l) => n + ('more' in l ? l.more : 1), 0);
}

function joinAnd(parts: readonly string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/**
 * An addition in words, each list once: "2 more submissions and 4 more merges, 1 of them with at least 2
 * agencyWorks"; "a merges entry with at least 2 agencyWorks"; "1 more iswcs".
 */
export function additionText(lacks: readonly Lack[]): string {
  const parts: string[] = [];
  for (const list of PROFILE_LISTS) {
    const plain = lacks.reduce((n, l) => n + ('list' in l && !('entry' in l) && l.list === list ? l.more : 0), 0);
    const shaped = lacks.filter((l): l is Extract<Lack, { entry: 'merges' }> => 'entry' in l && l.entry === list);
    if (plain === 0 && shaped.length === 0) continue;
    if (plain === 0 && shaped.length === 1 && shaped[0]) {
      parts.push(lackText(shaped[0]));
      continue;
    }
    const total = plain + shaped.reduce((n, l) => n + l.more, 0);
    const of = shaped.map((l, i) => `${l.more} ${i === 0 ? 'of them ' : ''}with at least ${l.atLeast} ${l.list}`);
    parts.push(`${total} more ${list}${of.length > 0 ? ` (${joinAnd(of)})` : ''}`);
  }
  for (const l of lacks) if ('reference' in l) parts.push(lackText(l));
  return joinAnd(parts);
}

/** "needs 2 more merges and a merges entry with at least 2 agencyWorks". */
export function needsText(lacks: readonly Lack[]): string {
  return `needs ${additionText(lacks)}`;
}
