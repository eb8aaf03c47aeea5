import { hasValidCheckDigit, iswcCheckDigit } from '../iswc.ts';
import type { TargetProfile } from './types.ts';

/**
 * What a valid profile can still get wrong: entries that interfere with each other, so that consuming one
 * makes another fail on a conforming server (a false alarm), and ISWCs whose check digit does not hold.
 * Production refuses a merge that would create a cycle or give an ISWC a second parent
 * (docs/production.md), so the second of two such merges is refused whatever the harness expects.
 */

export interface ProfileFinding {
  /** `error`: entries that interfere (a run would report false failures); `warning`: worth a look, harmless to the run's verdict on a server that does not check it. */
  severity: 'error' | 'warning';
  /** JSON path of the value: `merges[1].iswcs[0]`. */
  path: string;
  message: string;
}

interface Named {
  path: string;
  iswc: string;
}

/** Every ISWC of the profile with where it is. */
function allIswcs(profile: TargetProfile): Named[] {
  const out: Named[] = [];
  profile.iswcs.forEach((iswc, i) => out.push({ path: `iswcs[${i}]`, iswc }));
  profile.unknownIswcs.forEach((iswc, i) => out.push({ path: `unknownIswcs[${i}]`, iswc }));
  profile.merges.forEach((m, i) => {
    out.push({ path: `merges[${i}].preferredIswc`, iswc: m.preferredIswc });
    (m.iswcs ?? []).forEach((iswc, j) => out.push({ path: `merges[${i}].iswcs[${j}]`, iswc }));
  });
  profile.demerges.forEach((d, i) => out.push({ path: `demerges[${i}].preferredIswc`, iswc: d.preferredIswc }));
  profile.submissions.forEach((s, i) => out.push({ path: `submissions[${i}].preferredIswc`, iswc: s.preferredIswc }));
  return out;
}

/** Entries that interfere: what one consumption does to another entry. */
function interference(profile: TargetProfile): ProfileFinding[] {
  const out: ProfileFinding[] = [];
  const error = (path: string, message: string) => out.push({ severity: 'error', path, message });
  // ISWCs a merge entry merges away (they get a parent), with the first entry that does.
  const mergedAway = new Map<string, string>();
  const preferredOf = new Map<string, string>();
  profile.merges.forEach((m, i) => {
    if (!preferredOf.has(m.preferredIswc)) preferredOf.set(m.preferredIswc, `merges[${i}]`);
  });
  const existing = new Map<string, string>();
  profile.iswcs.forEach((iswc, i) => {
    if (!existing.has(iswc)) existing.set(iswc, `iswcs[${i}]`);
  });
  profile.merges.forEach((m, i) => {
    (m.iswcs ?? []).forEach((iswc, j) => {
      const path = `merges[${i}].iswcs[${j}]`;
      const listed = existing.get(iswc);
      if (listed !== undefined) {
        error(
          path,
          `${iswc} is also ${listed}, an ISWC the harness uses as existing data and never changes: once this entry merges it away it has a parent, and the checks that send it as existing data get a refusal (a merge of it into an unknown preferred ISWC must be 404; production refuses to merge an ISWC that has a parent, 400). Give this entry ISWCs of its own, or list another ISWC in iswcs`,
        );
      }
      if (iswc === m.preferredIswc) error(path, `${iswc} is this entry's own preferred ISWC: merging an ISWC into itself is a cycle, which production refuses`);
      const earlier = mergedAway.get(iswc);
      if (earlier !== undefined) error(path, `${iswc} is also merged by ${earlier}: after one of the two merges it has a parent, and production refuses to merge it again (give each merge entry ISWCs of its own)`);
      else mergedAway.set(iswc, `merges[${i}]`);
      const other = preferredOf.get(iswc);
      if (other !== undefined && other !== `merges[${i}]`) error(path, `${iswc} is the preferred ISWC of ${other}: once either merge is made, the other would re-parent an ISWC or create a cycle, which production refuses`);
    });
  });
  // Agency works: merged into two preferred ISWCs, or merged by one entry while a demerge entry expects it elsewhere.
  const works = new Map<string, string>();
  profile.merges.forEach((m, i) =>
    (m.agencyWorks ?? []).forEach((w, j) => {
      const key = `${w.agencyCode}/${w.agencyWorkCode}`;
      const path = `merges[${i}].agencyWorks[${j}]`;
      const earlier = works.get(key);
      if (earlier !== undefined) error(path, `agency work ${key} is also merged by ${earlier}: once it is merged into one preferred ISWC, merging it into another re-parents it, which production refuses`);
      else works.set(key, path);
    }),
  );
  profile.demerges.forEach((d, i) => {
    const key = `${d.agency}/${d.workcode}`;
    const merged = works.get(key);
    if (merged !== undefined) error(`demerges[${i}]`, `agency work ${key} is currently merged (a demerge entry) and also merged again by ${merged}: whichever check runs second finds it where it does not expect it`);
    const away = mergedAway.get(d.preferredIswc);
    if (away !== undefined) error(`demerges[${i}].preferredIswc`, `${d.preferredIswc} is merged away by ${away}: once that merge is made it is no longer a preferred ISWC, and this demerge would be refused`);
  });
  profile.submissions.forEach((s, i) => {
    const away = mergedAway.get(s.preferredIswc);
    if (away !== undefined) error(`submissions[${i}].preferredIswc`, `${s.preferredIswc} is merged away by ${away}: once that merge is made this submission's preferred ISWC has changed, and its delete would be refused`);
  });
  // Two demerge entries under one preferred ISWC: if one merge request carried both works, they are one set
  // of metadata (4.4), and demerging either removes both; the second check that demerges finds nothing.
  const demergedFrom = new Map<string, number>();
  profile.demerges.forEach((d, i) => {
    const earlier = demergedFrom.get(d.preferredIswc);
    if (earlier === undefined) {
      demergedFrom.set(d.preferredIswc, i);
      return;
    }
    const first = profile.demerges[earlier];
    // The same entry twice is said below.
    if (first?.agency === d.agency && first.workcode === d.workcode) return;
    error(
      `demerges[${i}].preferredIswc`,
      `${d.preferredIswc} is also the preferred ISWC of demerges[${earlier}]: if one merge request carried both works, a demerge of either removes both ("one set of metadata", 4.4), and the second check to demerge finds nothing (refused where it expects 204). Give each demerge entry a preferred ISWC of its own`,
    );
  });
  // The same disposable entry twice: the second consumption finds it gone.
  const seen = new Map<string, string>();
  const once = (path: string, key: string, what: string) => {
    const earlier = seen.get(key);
    if (earlier !== undefined) error(path, `repeats ${earlier}: ${what} can be consumed once; the second check to use it finds it gone`);
    else seen.set(key, path);
  };
  profile.demerges.forEach((d, i) => once(`demerges[${i}]`, `d:${d.preferredIswc}/${d.agency}/${d.workcode}`, 'a demerge'));
  profile.submissions.forEach((s, i) => once(`submissions[${i}]`, `s:${s.preferredIswc}/${s.agency}/${s.workcode}/${s.sourceDb}`, 'a submission'));
  // An entry naming an ISWC the profile says does not exist.
  const unknown = new Set(profile.unknownIswcs);
  for (const n of allIswcs(profile)) {
    if (!n.path.startsWith('iswcs[') && !n.path.startsWith('unknownIswcs[') && unknown.has(n.iswc)) {
      error(n.path, `${n.iswc} is listed in unknownIswcs, as an ISWC that does not exist: an entry cannot name it (checks that expect "not found" for it would fail once it is merged, or this entry's check fails)`);
    }
  }
  return out;
}

/** ISWCs whose check digit (ISO 15707) does not hold: a server that checks it refuses them where a case expects success or 404. */
function checkDigits(profile: TargetProfile): ProfileFinding[] {
  return allIswcs(profile)
    .filter((n) => !hasValidCheckDigit(n.iswc))
    .map((n) => ({
      severity: 'warning' as const,
      path: n.path,
      message: `${n.iswc}: the check digit should be ${iswcCheckDigit(n.iswc.slice(1, 10))} (ISO 15707); ${n.path.startsWith('unknownIswcs') ? 'a server that checks it answers 400, which the run takes besides 404, so such a server is never shown to answer 404 for an ISWC that does not exist' : 'a server that checks it answers 400 where the harness expects the answer to an existing ISWC'}`,
    }));
}

/** Every finding of a valid profile: interfering entries (errors), then check digits (warnings). */
export function profileFindings(profile: TargetProfile): ProfileFinding[] {
  return [...interference(profile), ...checkDigits(profile)];
}

/**
 * What a run prints once at its start about the profile's check digits: nothing when they all hold; else
 * one line naming each ISWC, where it is and the digit it should end in, and what to do.
 */
export function checkDigitNotice(profile: TargetProfile, profileFile: string): string[] {
  const wrong = allIswcs(profile).filter((n) => !hasValidCheckDigit(n.iswc));
  if (wrong.length === 0) return [];
  const listed = wrong.map((n) => `${n.path} ${n.iswc} (should end in ${iswcCheckDigit(n.iswc.slice(1, 10))})`).join(', ');
  return [
    `  warning: the profile ${profileFile} holds ${wrong.length === 1 ? 'an ISWC whose check digit does not hold' : `${wrong.length} ISWCs whose check digits do not hold`} (ISO 15707): ${listed}. A server that checks digits (production does) answers 400 where the run expects success or 404, and those checks fail for the profile, not the API: correct them (npx iswc-conformance profile check ${profileFile} lists them)`,
  ];
}
