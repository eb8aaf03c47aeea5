import type { DisposableKind, TargetProfile } from '../contract/profile/types.ts';
import { DISPOSABLE_KINDS } from '../contract/profile/types.ts';
import type { EntryShape } from '../generate/needs.ts';
import { entryMeets } from '../generate/needs.ts';
import { ampleEntries } from './ample.ts';

/**
 * What the claimant would like entry number `index` of its claim to be: a merge entry with two agency
 * works, a demerge entry under another preferred ISWC than its entry number `apartFrom`.
 */
export type EntryPreference = EntryShape & { index: number };

/** A request for disposable profile entries made by one check execution (a case in one format). */
export interface Claim {
  /** Unique key of the claimant, e.g. `merge.success@json`. */
  key: string;
  kind: DisposableKind;
  count: number;
  /**
   * The claimant only names the entries (a 400 check next to existing data) and never consumes them.
   * Read-only claims share a reserved slice at the head of the pool that no consumer is given.
   */
  readOnly?: boolean;
  /**
   * The claimant also runs with fewer entries, down to this many: it is served this many in claim order,
   * then topped up to `count` from what no claim needed.
   */
  atLeast?: number;
  /** Entries it would rather have; the first unused entry that has most of them is given. */
  prefer?: readonly EntryPreference[];
}

export type Allocation<T> = { ok: true; entries: T[] } | { ok: false; reason: string; kind: DisposableKind; more: number };

/** How one kind's pool was shared: the indexes of the entries each claim got, or why not. */
type KindResult = Map<string, { ok: true; indexes: number[] } | { ok: false; have: number; taken: number }>;

/** How many of its preferences an entry meets as number `index` of a claim, next to the entries the claim was given before it. */
function score(entry: unknown, index: number, prefer: readonly EntryPreference[] | undefined, given: readonly unknown[]): number {
  return (prefer ?? []).filter((p) => p.index === index && entryMeets(entry, p, given)).length;
}

/** Serves the claims of one kind from one pool, in order: read-only ones from the reserved head, the others from the rest. */
function partitionKind(pool: readonly unknown[], claims: readonly Claim[]): KindResult {
  const reserved = Math.max(0, ...claims.filter((c) => c.readOnly).map((c) => c.count));
  const used = new Set<number>();
  const out: KindResult = new Map();
  /** `n` more entries for a claim that was given `before` already (their indexes in the pool). */
  const pick = (claim: Claim, n: number, before: readonly number[] = []): number[] | undefined => {
    const picked: number[] = [];
    const from = before.length;
    for (let i = 0; i < n; i++) {
      let best = -1;
      let bestScore = -1;
      const given = [...before, ...picked].map((k) => pool[k]);
      for (let j = reserved; j < pool.length; j++) {
        if (used.has(j) || picked.includes(j)) continue;
        const s = score(pool[j], from + i, claim.prefer, given);
        if (s > bestScore) {
          best = j;
          bestScore = s;
          if (s === (claim.prefer ?? []).filter((p) => p.index === from + i).length) break;
        }
      }
      if (best < 0) return undefined;
      picked.push(best);
    }
    return picked;
  };
  for (const claim of claims) {
    if (claim.readOnly) {
      out.set(claim.key, pool.length >= claim.count ? { ok: true, indexes: Array.from({ length: claim.count }, (_, i) => i) } : { ok: false, have: pool.length, taken: 0 });
      continue;
    }
    const want = Math.min(claim.atLeast ?? claim.count, claim.count);
    const picked = pick(claim, want);
    if (!picked) {
      out.set(claim.key, { ok: false, have: pool.length, taken: Math.min(pool.length, reserved + used.size) });
      continue;
    }
    for (const j of picked) used.add(j);
    out.set(claim.key, { ok: true, indexes: picked });
  }
  // Claims that run with fewer entries get what nobody else needed, in claim order.
  for (const claim of claims) {
    const got = out.get(claim.key);
    if (claim.readOnly || !got?.ok || got.indexes.length >= claim.count) continue;
    const more: number[] = [];
    for (let i = got.indexes.length; i < claim.count; i++) {
      const extra = pick(claim, 1, [...got.indexes, ...more]);
      if (!extra) break;
      used.add(extra[0]);
      more.push(extra[0]);
    }
    out.set(claim.key, { ok: true, indexes: [...got.indexes, ...more] });
  }
  return out;
}

/**
 * The fewest made-up entries (ample: with everything any claim prefers) that, added to the pool, make
 * `served` hold; adding entries can serve an earlier claim first, so it is counted, not subtracted. At most
 * one more than every claim of the kind asks for.
 */
function fewestToAdd(pool: readonly unknown[], claims: readonly Claim[], kind: DisposableKind, agency: string, served: (grown: readonly unknown[]) => boolean): number {
  const most = claims.reduce((n, c) => n + c.count, 0) + 1;
  for (let more = 1; more <= most; more++) if (served([...pool, ...ampleEntries(kind, agency, more)])) return more;
  return most;
}

/** How many made-up entries added to the pool would serve this claim. */
function entriesToServe(pool: readonly unknown[], claims: readonly Claim[], key: string, agency: string, kind: DisposableKind): number {
  return fewestToAdd(pool, claims, kind, agency, (grown) => partitionKind(grown, claims).get(key)?.ok === true);
}

/**
 * How many made-up entries added to the pool would give this claim entries that have what it prefers; 0
 * when its entries have it already.
 */
export function preferredEntriesToAdd(profile: TargetProfile, claims: readonly Claim[], key: string): number {
  const claim = claims.find((c) => c.key === key);
  if (!claim?.prefer?.length) return 0;
  const ofKind = claims.filter((c) => c.kind === claim.kind);
  const pool = profile[claim.kind] as unknown[];
  const has = (p: readonly unknown[]) => {
    const got = partitionKind(p, ofKind).get(key);
    if (got?.ok !== true) return false;
    const given = got.indexes.map((k) => p[k]);
    return (claim.prefer ?? []).every((pref) => given[pref.index] === undefined || entryMeets(given[pref.index], pref, given));
  };
  return has(pool) ? 0 : fewestToAdd(pool, ofKind, claim.kind, profile.agency, has);
}

/**
 * Deterministic partition of the disposable entries among claims. Every worker computes the same
 * partition from the same ordered list of claims, so an entry is used by at most one check in a run,
 * across the JSON and XML projects and across workers, without any coordination at run time.
 * Claims are served in order; a claim that cannot be served whole gets nothing, with a reason that
 * counts how many more entries would serve it.
 */
export function partition(profile: TargetProfile, claims: readonly Claim[]): Map<string, Allocation<unknown>> {
  const keys = new Set<string>();
  for (const claim of claims) {
    if (keys.has(claim.key)) throw new Error(`Duplicate claim key ${claim.key}`);
    keys.add(claim.key);
  }
  const out = new Map<string, Allocation<unknown>>();
  for (const kind of DISPOSABLE_KINDS) {
    const ofKind = claims.filter((c) => c.kind === kind);
    const pool = profile[kind] as unknown[];
    for (const [key, got] of partitionKind(pool, ofKind)) {
      if (got.ok) {
        out.set(key, { ok: true, entries: got.indexes.map((i) => pool[i]) });
        continue;
      }
      const claim = ofKind.find((c) => c.key === key);
      const more = entriesToServe(pool, ofKind, key, profile.agency, kind);
      const context = claim?.readOnly
        ? `the target profile lists ${got.have}; this case names ${claim.count} without consuming ${claim.count === 1 ? 'it' : 'them'}`
        : `the target profile lists ${got.have}${got.taken > 0 ? `, ${got.taken} of them given to cases planned before this one` : ''}`;
      out.set(key, { ok: false, kind, more, reason: `needs ${more} more ${kind} (${context})` });
    }
  }
  // Keep the callers' order (the map is read by key, but a stable order keeps plans comparable).
  return new Map(claims.map((c) => [c.key, out.get(c.key) as Allocation<unknown>]));
}

/** How many entries of each kind a list of claims needs (for plans and docs). */
export function demand(claims: readonly Claim[]): Record<DisposableKind, number> {
  const total: Record<DisposableKind, number> = { merges: 0, demerges: 0, submissions: 0 };
  for (const c of claims) total[c.kind] += c.count;
  for (const kind of DISPOSABLE_KINDS) total[kind] = total[kind] ?? 0;
  return total;
}
