import type { DisposableKind, TargetProfile } from '../contract/profile/types.ts';
import { DISPOSABLE_KINDS } from '../contract/profile/types.ts';

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
}

export type Allocation<T> = { ok: true; entries: T[] } | { ok: false; reason: string };

/**
 * Deterministic partition of the disposable entries among claims. Every worker computes the same
 * partition from the same ordered list of claims, so an entry is used by at most one check in a run,
 * across the JSON and XML projects and across workers, without any coordination at run time.
 * Claims are served in order; a claim that cannot be served whole gets nothing, with a reason.
 */
export function partition(profile: TargetProfile, claims: readonly Claim[]): Map<string, Allocation<unknown>> {
  const reserved: Record<DisposableKind, number> = { merges: 0, demerges: 0, submissions: 0 };
  for (const claim of claims) if (claim.readOnly) reserved[claim.kind] = Math.max(reserved[claim.kind], claim.count);
  const next: Record<DisposableKind, number> = { ...reserved };
  const out = new Map<string, Allocation<unknown>>();
  for (const claim of claims) {
    if (out.has(claim.key)) throw new Error(`Duplicate claim key ${claim.key}`);
    const pool = profile[claim.kind] as unknown[];
    if (claim.readOnly) {
      out.set(
        claim.key,
        pool.length >= claim.count
          ? { ok: true, entries: pool.slice(0, claim.count) }
          : { ok: false, reason: `target profile "${profile.name}" has no ${claim.kind} entry to name (${pool.length} in the profile, ${claim.count} needed)` },
      );
      continue;
    }
    const start = next[claim.kind];
    if (start + claim.count > pool.length) {
      out.set(claim.key, {
        ok: false,
        reason: `target profile "${profile.name}" has no ${claim.kind} entry left for this check (${pool.length} in the profile, ${start} already given to earlier checks, ${claim.count} needed)`,
      });
      continue;
    }
    next[claim.kind] = start + claim.count;
    out.set(claim.key, { ok: true, entries: pool.slice(start, start + claim.count) });
  }
  return out;
}

/** How many entries of each kind a list of claims needs (for plans and docs). */
export function demand(claims: readonly Claim[]): Record<DisposableKind, number> {
  const total: Record<DisposableKind, number> = { merges: 0, demerges: 0, submissions: 0 };
  for (const c of claims) total[c.kind] += c.count;
  for (const kind of DISPOSABLE_KINDS) total[kind] = total[kind] ?? 0;
  return total;
}
