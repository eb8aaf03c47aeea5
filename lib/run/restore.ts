import type { Exchange } from '../contract/exchange.ts';
import type { DisposableKind, MergeEntry } from '../contract/profile/types.ts';
import type { Restoration, Step } from '../generate/case.ts';

/**
 * Disposable entries a run leaves as it found them (a profile with `"reusable": true`, issue 31). The
 * API has no read operation and no create operation, so what a run changes it can undo only with another
 * operation, and show undone only by an answer:
 *
 * - a merge of agency works is undone by a demerge of each work (4.4), provided each work was merged by a
 *   request of its own (then "one set of metadata" is the same set under every reading: one work, one
 *   merge request, or the merged ISWC with all its works, which the work brought in); and a demerge of
 *   what is no longer merged is refused (3, 4.4), which shows it undone;
 * - a merge of ISWCs cannot be undone: a demerge names an agency work, never an ISWC (4.4);
 * - a submission delete cannot be undone: no operation creates a submission (1);
 * - a demerge of a profile's `demerges` entry cannot be undone surely: what it removes may have been
 *   matched rather than merged, or merged by a request that carried more than the named work (4.4), so a
 *   merge of that work alone need not put back what was there.
 *
 * So a run on a reusable profile merges agency works of its `merges` entries, one request each, demerges
 * them, and ends by showing each demerged: the demerge sent again is refused. The rest needs entries it
 * consumes, and is left out with that reason.
 */

/** Sends of a restoration's undo at most: one that may still undo something, one that must be refused. */
export const UNDO_LIMIT = 2;

/** What became of one change a case registered. */
export interface RestoreOutcome {
  entry: string;
  what: string;
  /** Shown undone: the undo was refused at last (a conforming server's answer once nothing is left to undo). */
  proven: boolean;
  /** Why not, when not proven. */
  reason?: string;
  /** The undo had work left to do when the case ended (a 2xx before the refusal): the case had not undone it. */
  undoneAtEnd: boolean;
}

/** Sends a restoration's undo until refused; the last send is the proof, judged by the undo step's checks. */
export async function settle(
  change: Restoration,
  send: (step: Step) => Promise<Exchange>,
  record: (step: Step, exchange: Exchange) => void,
  keep: (label: string, exchange: Exchange) => void,
): Promise<RestoreOutcome> {
  let undoneAtEnd = false;
  for (let attempt = 1; attempt <= UNDO_LIMIT; attempt += 1) {
    const exchange = await send(change.undo);
    const status = exchange.response?.status;
    if (exchange.attempts === 0 || status === undefined) {
      keep(`${change.undo.label} (left as found?)`, exchange);
      return { entry: change.entry, what: change.what, proven: false, undoneAtEnd, reason: `not shown: ${exchange.error?.message ?? 'no answer'}` };
    }
    const accepted = status >= 200 && status < 300;
    if (accepted && attempt < UNDO_LIMIT) {
      // Something was still there: it is undone now; the next send must be refused.
      undoneAtEnd = true;
      keep(`${change.undo.label} (undone when the case ended)`, exchange);
      continue;
    }
    record(change.undo, exchange);
    return accepted
      ? { entry: change.entry, what: change.what, proven: false, undoneAtEnd, reason: `the undo was accepted ${UNDO_LIMIT} times in a row (${status}): the entry cannot be shown as found` }
      : { entry: change.entry, what: change.what, proven: true, undoneAtEnd };
  }
  return { entry: change.entry, what: change.what, proven: false, undoneAtEnd, reason: 'not shown' };
}

/** The text of a request body, for the guard below. */
function bodyText(step: Step): string {
  const body = step.request.body;
  if (body === undefined) return '';
  return typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
}

/**
 * Why a step would change a reusable profile's entries beyond what a run can undo, or undefined: a merge
 * naming an ISWC of a merges entry the case was given among its items (a merge of ISWCs cannot be undone).
 * A harness defect when it happens: the case must keep to what it can undo on a reusable profile.
 */
export function irreversible(step: Step, entries: Partial<Record<DisposableKind, unknown[]>>): string | undefined {
  if (step.operation !== 'mergeIswcMetadata') return undefined;
  const text = bodyText(step);
  for (const entry of (entries.merges ?? []) as MergeEntry[]) {
    const named = (entry.iswcs ?? []).find((iswc) => text.includes(iswc));
    if (named !== undefined) return `"${step.label}" merges ${named}, an ISWC of the merges entry into ${entry.preferredIswc}: a merge of ISWCs cannot be undone (a demerge names an agency work, section 4.4), and the profile's entries are never recreated (reusable)`;
  }
  return undefined;
}
