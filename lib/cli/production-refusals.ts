import type { TargetProfile } from '../contract/profile/types.ts';
import { KNOWN_AGENCIES } from '../../server/production.ts';

/**
 * What production as built would refuse of a profile's entries (docs/production.md, "A profile for
 * production"), read from the profile alone: an agency its registry does not hold (103), and entries naming
 * another agency's works, which production merges or demerges only when the profile's agency holds an
 * eligible submission on them (else 150) and then submits to that agency for approval (its rejection
 * reverts the change; the model shows no approvals). One line per entry, with its JSON path.
 */
export function productionRefusals(profile: TargetProfile): string[] {
  const known = new Set([...KNOWN_AGENCIES, profile.agency]);
  const out: string[] = [];
  const other = (agency: string): boolean => agency !== profile.agency;
  if (!KNOWN_AGENCIES.includes(profile.agency)) out.push(`agency: "${profile.agency}" is not an agency production's registry is known to hold: a merge or a delete for it is 400 "103" unless it is a society registered since (docs/production.md)`);
  profile.merges.forEach((m, i) => {
    (m.agencyWorks ?? []).forEach((w, j) => {
      if (!known.has(w.agencyCode)) out.push(`merges[${i}].agencyWorks[${j}]: agency "${w.agencyCode}" is not in production's registry: the merge finds no such work (400 "203")`);
      else if (other(w.agencyCode)) out.push(`merges[${i}].agencyWorks[${j}]: a work of agency ${w.agencyCode}, not ${profile.agency}: production merges it only if agency ${profile.agency} holds an eligible submission on one of the works (else 400 "150"), then asks agency ${w.agencyCode} to approve (a rejection reverts the merge): use works of agency ${profile.agency}`);
    });
  });
  profile.demerges.forEach((d, i) => {
    if (other(d.agency)) out.push(`demerges[${i}]: a work of agency ${d.agency}, not ${profile.agency}: production demerges it for agency ${d.agency} only if that agency holds an eligible submission on the ISWC (else 400 "150"), and may ask other agencies to approve: use works of agency ${profile.agency}`);
  });
  profile.submissions.forEach((s, i) => {
    if (!known.has(s.agency)) out.push(`submissions[${i}]: agency "${s.agency}" is not in production's registry: the delete is 400 "103"`);
    else if (other(s.agency)) out.push(`submissions[${i}]: a submission of agency ${s.agency}, not ${profile.agency}: the key acts for agency ${profile.agency} and production may ask the other agencies of the ISWC to approve the delete: use submissions of agency ${profile.agency}`);
  });
  return out;
}
