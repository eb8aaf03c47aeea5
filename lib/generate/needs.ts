import type { DemergeEntry, DisposableKind, MergeEntry, TargetProfile } from '../contract/profile/types.ts';
import type { CheckId } from './checks.generated.ts';

/**
 * What a case needs of the target profile to run, or to exercise some of its checks. Claims
 * (`CaseDef.claims`) say how many disposable entries a case consumes; needs say what else must be there:
 * more items in a list the case reads (`${profile.iswcs[1]}` needs two iswcs), more inside the entry it
 * claims (a merge entry with two agency works), or one of its entries apart from another (a demerge entry
 * under another preferred ISWC than the first). The planner skips a case whose needs are not met with
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

/**
 * The demerge entry the case claims as number `index` is under another preferred ISWC than its entry
 * number `from`: metadata one merge request carried into one preferred ISWC may be one set (4.4), so only
 * an entry under another preferred ISWC is surely left alone by a demerge of the first.
 */
export interface ApartNeed extends NeedScope {
  apart: 'demerges';
  index: number;
  from: number;
}

/**
 * The entry the case claims as number `index` holds a value at the limit of its field (`value`: `workcode`
 * of a submission or demerge, an agency work's `agencyWorkCode` of a merge; `length`: the limit, read from
 * the schema): only a value at its limit has neighbours one past it that a server cutting to the limit, or
 * trimming, reads as that value (issue 28).
 */
export interface AtLimitNeed extends NeedScope {
  atLimit: DisposableKind;
  index: number;
  value: AtLimitValue;
  length: number;
}

/** The entry values an at-limit need names. */
export type AtLimitValue = 'workcode' | 'agencyWorkCode';

/** A value of the profile a scenario names that the forms above do not cover (`${profile.merges[0].agencyWorks[1]}`). */
export interface ValueNeed extends NeedScope {
  reference: string;
  path: ReadonlyArray<string | number>;
}

export type Need = ListNeed | EntryNeed | ApartNeed | AtLimitNeed | ValueNeed;

/** What a case lacks, counted: the smallest addition to the profile that meets one need. */
export type Lack =
  /** `more` items in a list of the profile. */
  | { list: ProfileList; more: number }
  /** `more` merge entries with at least `atLeast` items in `list`. */
  | { entry: 'merges'; list: EntryList; atLeast: number; more: number }
  /** `more` demerge entries under another preferred ISWC than the case's others. */
  | { apart: 'demerges'; more: number }
  /** `more` entries of a kind whose value is at its limit (a workcode of 20 characters). */
  | { atLimit: DisposableKind; value: AtLimitValue; length: number; more: number }
  /** A value of the profile a scenario names. */
  | { reference: string };

export function isEntryNeed(n: Need): n is EntryNeed {
  return 'entry' in n;
}

export function isApartNeed(n: Need): n is ApartNeed {
  return 'apart' in n;
}

export function isAtLimitNeed(n: Need): n is AtLimitNeed {
  return 'atLimit' in n;
}

/** The values of an entry an at-limit need looks at: its workcode, or the codes of its agency works. */
function entryValues(entry: unknown, value: AtLimitValue): string[] {
  if (entry === null || typeof entry !== 'object') return [];
  if (value === 'agencyWorkCode') return ((entry as MergeEntry).agencyWorks ?? []).map((w) => w.agencyWorkCode);
  const code = (entry as Record<string, unknown>)[value];
  return typeof code === 'string' ? [code] : [];
}

/** A value of the entry at the limit, if any (the first). */
export function atLimitValueOf(entry: unknown, value: AtLimitValue, length: number): string | undefined {
  return entryValues(entry, value).find((v) => Array.from(v).length === length);
}

/**
 * What a claim would like one of its entries to be: an entry need's shape (`list`, `atLeast`) or an apart
 * need's (`apartFrom`: not under the preferred ISWC of the claim's entry of that number).
 */
export type EntryShape = Pick<EntryNeed, 'list' | 'atLeast'> | { apartFrom: number } | Pick<AtLimitNeed, 'value' | 'length'>;

function dig(value: unknown, path: ReadonlyArray<string | number>): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** Does an entry have what a shape asks of it, next to the entries its claim was given (by index)? */
export function entryMeets(entry: unknown, shape: EntryShape, given: readonly unknown[] = []): boolean {
  if ('value' in shape) return atLimitValueOf(entry, shape.value, shape.length) !== undefined;
  if ('apartFrom' in shape) {
    const other = given[shape.apartFrom] as DemergeEntry | undefined;
    return other === undefined || other === entry || (entry as DemergeEntry | undefined)?.preferredIswc !== other.preferredIswc;
  }
  return ((entry as MergeEntry | undefined)?.[shape.list]?.length ?? 0) >= shape.atLeast;
}

/**
 * What is lacking for one need, given the profile and the entries the case was given; undefined when the
 * need is met. An entry need of an entry the case did not get is the claim's lack, not this one's.
 */
export function lackOf(need: Need, profile: TargetProfile, entries: Partial<Record<DisposableKind, unknown[]>>): Lack | undefined {
  if ('reference' in need) return dig(profile, need.path) === undefined ? { reference: need.reference } : undefined;
  if (isEntryNeed(need)) {
    const entry = entries.merges?.[need.index];
    // No entry at all: only a claim that may be given none (atLeast 0) runs without it, and lacks one.
    if (entry !== undefined && entryMeets(entry, need)) return undefined;
    return { entry: 'merges', list: need.list, atLeast: need.atLeast, more: 1 };
  }
  if (isAtLimitNeed(need)) {
    const entry = entries[need.atLimit]?.[need.index];
    if (entry !== undefined && entryMeets(entry, need)) return undefined;
    return { atLimit: need.atLimit, value: need.value, length: need.length, more: 1 };
  }
  if (isApartNeed(need)) {
    const given = entries[need.apart] ?? [];
    const entry = given[need.index];
    if (entry === undefined || given[need.from] === undefined || entryMeets(entry, { apartFrom: need.from }, given)) return undefined;
    return { apart: need.apart, more: 1 };
  }
  const have = (profile[need.list] as unknown[]).length;
  return have >= need.atLeast ? undefined : { list: need.list, more: need.atLeast - have };
}

/** An entry lack, an apart lack or an at-limit lack: entries of a list that must carry something. */
type ShapedLack = Extract<Lack, { entry: 'merges' } | { apart: 'demerges' } | { atLimit: DisposableKind }>;

function isShaped(lack: Lack): lack is ShapedLack {
  return 'entry' in lack || 'apart' in lack || 'atLimit' in lack;
}

function shapedList(lack: ShapedLack): DisposableKind {
  return 'entry' in lack ? lack.entry : 'apart' in lack ? lack.apart : lack.atLimit;
}

/** "with at least 2 agencyWorks", "under another preferred ISWC", "whose workcode has 20 characters (its limit)". */
function shapeText(lack: ShapedLack): string {
  if ('entry' in lack) return `with at least ${lack.atLeast} ${lack.list}`;
  if ('apart' in lack) return 'under another preferred ISWC';
  return lack.value === 'agencyWorkCode' ? `with an agency work whose agencyWorkCode has ${lack.length} characters (its limit)` : `whose ${lack.value} has ${lack.length} characters (its limit)`;
}

/** "2 more merges", "a merges entry with at least 2 agencyWorks", "a demerges entry under another preferred ISWC", "${profile.merges[0].agencyWorks[1]} in the target profile". */
export function lackText(lack: Lack): string {
  if ('reference' in lack) return `\${${lack.reference}} in the target profile`;
  if (isShaped(lack)) return `${lack.more === 1 ? 'a' : lack.more} ${shapedList(lack)} entr${lack.more === 1 ? 'y' : 'ies'} ${shapeText(lack)}`;
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
  if ('atLimit' in lack) return `limit:${lack.atLimit}:${lack.value}:${lack.length}`;
  if ('entry' in lack) return `entry:${lack.entry}:${lack.list}:${lack.atLeast}`;
  if ('apart' in lack) return `apart:${lack.apart}`;
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
    const shaped = lacks.filter((l): l is ShapedLack => isShaped(l) && shapedList(l) === list);
    if (plain === 0 && shaped.length === 0) continue;
    if (plain === 0 && shaped.length === 1 && shaped[0]) {
      parts.push(lackText(shaped[0]));
      continue;
    }
    const total = plain + shaped.reduce((n, l) => n + l.more, 0);
    const of = shaped.map((l, i) => `${l.more} ${i === 0 ? 'of them ' : ''}${shapeText(l)}`);
    parts.push(`${total} more ${list}${of.length > 0 ? ` (${joinAnd(of)})` : ''}`);
  }
  for (const l of lacks) if ('reference' in l) parts.push(lackText(l));
  return joinAnd(parts);
}

/** "needs 2 more merges and a merges entry with at least 2 agencyWorks". */
export function needsText(lacks: readonly Lack[]): string {
  return `needs ${additionText(lacks)}`;
}
