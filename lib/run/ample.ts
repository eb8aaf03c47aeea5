import { fieldConstraints } from '../contract/constraints.ts';
import { makeIswc } from '../contract/iswc.ts';
import { lengthLimitOf } from '../contract/normalisations.ts';
import type { DemergeEntry, DisposableKind, MergeEntry, SubmissionEntry, TargetProfile } from '../contract/profile/types.ts';
import type { CaseDef } from '../generate/case.ts';
import type { Lack, Need, ProfileList } from '../generate/needs.ts';
import { PROFILE_LISTS } from '../generate/needs.ts';

/**
 * Made-up data with everything any case needs, never sent: what a dry run gives a case the profile cannot
 * serve (so that its checks are known and reported skipped, with what it lacks), and what the planner adds
 * to a profile to count how many entries would serve a claim.
 */

const digits = (base: number, i: number): string => String(base + i).padStart(9, '0');

/** The most characters an agency work code has (the schema's AgencyWorkCode): made-up rich entries hold one that long. */
const WORK_CODE_LIMIT = lengthLimitOf(fieldConstraints().find((c) => c.component === 'AgencyWorkCode') ?? fieldConstraints()[0]) ?? 20;
/** A made-up work code at the limit of its field. */
const atLimit = (code: string): string => code.padEnd(WORK_CODE_LIMIT, '0').slice(0, WORK_CODE_LIMIT);

/**
 * The i-th made-up entry of a kind, shaped like the richest any case asks for (two ISWCs and three agency
 * works, one with a code at its limit; a workcode at its limit); `plain`, like the README's example (one
 * ISWC and one agency work).
 */
export function ampleEntry(kind: DisposableKind, agency: string, i: number, plain = false): MergeEntry | DemergeEntry | SubmissionEntry {
  if (kind === 'merges') {
    const works = plain ? [`AMPLE${i}A`] : [`AMPLE${i}A`, `AMPLE${i}B`, atLimit(`AMPLE${i}C`)];
    return {
      preferredIswc: makeIswc(digits(910000000, 3 * i)),
      iswcs: plain ? [makeIswc(digits(910000001, 3 * i))] : [makeIswc(digits(910000001, 3 * i)), makeIswc(digits(910000002, 3 * i))],
      agencyWorks: works.map((w) => ({ agencyCode: agency, agencyWorkCode: w })),
    };
  }
  if (kind === 'demerges') return { preferredIswc: makeIswc(digits(920000000, i)), agency, workcode: plain ? `AMPLE${i}D` : atLimit(`AMPLE${i}D`) };
  return { preferredIswc: makeIswc(digits(930000000, i)), agency, workcode: plain ? `AMPLE${i}S` : atLimit(`AMPLE${i}S`), sourceDb: Number(agency) || 1 };
}

export function ampleEntries(kind: DisposableKind, agency: string, count: number, from = 0): unknown[] {
  return Array.from({ length: count }, (_, i) => ampleEntry(kind, agency, from + i));
}

/** Made-up entries for every claim of a case: what a dry run gives a case that got none. */
export function ampleEntriesFor(def: Pick<CaseDef, 'claims'>, agency: string): Partial<Record<DisposableKind, unknown[]>> {
  const out: Partial<Record<DisposableKind, unknown[]>> = {};
  for (const claim of def.claims ?? []) out[claim.kind] = ampleEntries(claim.kind, agency, claim.count);
  return out;
}

/** The profile with its lists made long enough for these needs (made-up items after its own); the profile itself when they are. */
export function ampleProfile(profile: TargetProfile, needs: readonly Need[]): TargetProfile {
  let out = profile;
  for (const list of PROFILE_LISTS) {
    const want = Math.max(0, ...needs.map((n) => ('list' in n && !('entry' in n) && n.list === list ? n.atLeast : 0)));
    const have = (profile[list] as unknown[]).length;
    if (want <= have) continue;
    const extra =
      list === 'iswcs' ? Array.from({ length: want - have }, (_, i) => makeIswc(digits(900000000, i))) : list === 'unknownIswcs' ? Array.from({ length: want - have }, (_, i) => makeIswc(digits(890000000, i))) : ampleEntries(list, profile.agency, want - have);
    out = { ...out, [list]: [...(profile[list] as unknown[]), ...extra] };
  }
  return out;
}

/**
 * The profile with an addition made: made-up ISWCs and entries (plain ones for a list, ones with what is
 * asked for an entry lack, each under a preferred ISWC of its own for an apart lack) after its own. What `profile check` verifies its advice with.
 */
export function withAddition(profile: TargetProfile, lacks: readonly Lack[], seed = 0): TargetProfile {
  let out = profile;
  let n = seed;
  const append = (list: ProfileList, items: unknown[]) => {
    out = { ...out, [list]: [...(out[list] as unknown[]), ...items] };
  };
  for (const lack of lacks) {
    if ('reference' in lack) continue;
    if ('entry' in lack) {
      append(lack.entry, Array.from({ length: lack.more }, () => richMerge(profile.agency, n++, lack.list, lack.atLeast)));
      continue;
    }
    // An entry whose value is at its limit: a rich one (its work codes at the limit too).
    if ('atLimit' in lack) {
      append(lack.atLimit, Array.from({ length: lack.more }, () => ampleEntry(lack.atLimit, profile.agency, n++)));
      continue;
    }
    // Each made-up demerge entry is under a preferred ISWC of its own.
    if ('apart' in lack) {
      append(lack.apart, Array.from({ length: lack.more }, () => ampleEntry(lack.apart, profile.agency, n++, true)));
      continue;
    }
    const items =
      lack.list === 'iswcs'
        ? Array.from({ length: lack.more }, () => makeIswc(digits(900000000, n++)))
        : lack.list === 'unknownIswcs'
          ? Array.from({ length: lack.more }, () => makeIswc(digits(890000000, n++)))
          : Array.from({ length: lack.more }, () => ampleEntry(lack.list as DisposableKind, profile.agency, n++, true));
    append(lack.list, items);
  }
  return out;
}

/** A made-up merge entry with `atLeast` items in `list` (and one in the other list). */
function richMerge(agency: string, i: number, list: 'iswcs' | 'agencyWorks', atLeast: number): MergeEntry {
  const entry = ampleEntry('merges', agency, i, true) as MergeEntry;
  const count = Math.max(1, atLeast);
  if (list === 'agencyWorks') return { ...entry, agencyWorks: Array.from({ length: count }, (_, w) => ({ agencyCode: agency, agencyWorkCode: `AMPLE${i}W${w}` })) };
  return { ...entry, iswcs: Array.from({ length: count }, (_, k) => makeIswc(digits(940000000, i * 20 + k))) };
}
