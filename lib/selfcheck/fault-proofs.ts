import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { TargetProfile } from '../contract/profile/types.ts';
import { fromRoot } from '../foundation/paths.ts';
import { allCases } from '../generate/suite.ts';

/**
 * The fewest cases that show each fault of the catalogue caught by exactly its pinned checks
 * (tests/expectations/fault-proofs.json), so that the self-check of `npm test` sends a few requests per
 * fault instead of every case that catches it. Written by `npm run expectations:update` from the whole
 * plan's run of each fault, and each proof run once alone before it is written: what is committed showed
 * the pinned checks by itself. `null` says no smaller set did (a fault that only shows across cases of
 * both formats): its whole plan proves it. The self-check never trusts the file further than a run: a
 * proof that no longer shows the pinned checks (a case renamed, a check moved) is run again with more.
 */
export type FaultProofs = Record<string, string[] | null>;

export const PROOFS_FILE = fromRoot('tests', 'expectations', 'fault-proofs.json');

export function readProofs(file = PROOFS_FILE): FaultProofs {
  if (!existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8')) as FaultProofs;
}

export function writeProofs(proofs: FaultProofs, file = PROOFS_FILE): void {
  const sorted = Object.fromEntries(Object.keys(proofs).sort().map((id) => [id, proofs[id] ?? null]));
  writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
}

/**
 * A cover of the catching checks by the cases that caught them: greedily the case that shows the most
 * checks not yet shown, the earlier one on a tie (the order the run met them in). Each check keeps at
 * least one case; a check with none (it cannot be covered) is left out, and the proof's own run says so.
 */
export function proofCover(caughtIn: Readonly<Record<string, readonly string[]>>): string[] {
  const order = allCatching(caughtIn);
  const uncovered = new Set(Object.keys(caughtIn).filter((check) => (caughtIn[check]?.length ?? 0) > 0));
  const chosen: string[] = [];
  while (uncovered.size > 0) {
    let best: string | undefined;
    let bestCount = 0;
    for (const c of order) {
      const count = [...uncovered].filter((check) => caughtIn[check]?.includes(c)).length;
      if (count > bestCount) [best, bestCount] = [c, count];
    }
    if (best === undefined) break;
    chosen.push(best);
    for (const check of [...uncovered]) if (caughtIn[check]?.includes(best)) uncovered.delete(check);
  }
  return chosen;
}

/** Every case that caught the fault, in the order the run met them: the proof to try when the cover alone does not show it. */
export function allCatching(caughtIn: Readonly<Record<string, readonly string[]>>): string[] {
  const all: string[] = [];
  for (const cases of Object.values(caughtIn)) for (const c of cases) if (!all.includes(c)) all.push(c);
  return all;
}

/**
 * The cases and the same cases in their other body formats: the proof of a fault that shows only across
 * formats (a server numbering the runs of each format apart answers the second format's first start the
 * runId of the first format's).
 */
export function acrossFormats(keys: readonly string[], formatsOf: (caseId: string) => readonly string[]): string[] {
  const all = [...keys];
  for (const key of keys) {
    const caseId = key.slice(0, key.lastIndexOf('@'));
    for (const format of formatsOf(caseId)) if (!all.includes(`${caseId}@${format}`)) all.push(`${caseId}@${format}`);
  }
  return all;
}

/**
 * The planned case (PlannedCase key) an execution belongs to: a case planned without a body format ('none')
 * answers in JSON, so its executions say json and its key says none.
 */
export function caseKeyOf(profile: TargetProfile): (e: { caseId: string; format: string }) => string {
  const formatsOf = caseFormats(profile);
  return (e) => {
    const formats = formatsOf(e.caseId);
    return `${e.caseId}@${formats !== undefined && !formats.includes(e.format) && formats.includes('none') ? 'none' : e.format}`;
  };
}

/** The body formats each case of the profile is planned in (acrossFormats, caseKeyOf). */
export function caseFormats(profile: TargetProfile): (caseId: string) => readonly string[] | undefined {
  const formats = new Map(allCases(profile).map((d) => [d.id, d.formats as readonly string[]]));
  return (caseId) => formats.get(caseId);
}
