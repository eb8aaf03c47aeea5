import type { Format } from '../../contract/codec/index.ts';
import type { AgencyWorkRef, MergeEntry, TargetProfile } from '../../contract/profile/types.ts';
import type { CaseDef, Step } from '../case.ts';
import { keyProofs } from './key-proofs.ts';
import { sameIswcShown } from './merge.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, queryRequest } from '../requests.ts';
import { emptyMerge, queryFor } from '../templates.ts';

/**
 * The restoring merge (issue 31): the agency works of a merges entry, each merged by a request of its own
 * (undone by a demerge under every reading of 4.4), registered for restoration before it is sent; the key
 * refused first (a part); a broken work refused beside the merged ones (a part); each work demerged, the
 * other still demergeable (a part), the demerge repeated and refused. The run then sends each demerge until
 * refused: the entry is shown as found. On a reusable profile (`"reusable": true`) it is what lets a
 * destructive gate judge merges, demerges and refused items on entries that are never recreated; on any
 * other profile it consumes a merges entry like the other merge cases (and leaves it as found all the same).
 */
export function restoringMergeCase(profile: TargetProfile): CaseDef {
  const OP = 'mergeIswcMetadata';
  const DEMERGE = 'demergeIswcMetadata';
  return {
    id: 'merge.restored',
    title: 'POST /iswc/merge of a merges entry\'s agency works one request each, demerged again: the entry left as found and shown so',
    operation: OP,
    formats: ['json', 'xml'],
    tags: ['@destructive'],
    claims: [{ kind: 'merges', count: 1, restores: true }],
    needs: [{ entry: 'merges', index: 0, list: 'agencyWorks', atLeast: 1 }],
    parts: [
      { id: 'key', title: 'the key refused on the merge that then succeeds, and shown to have merged nothing' },
      { id: 'item', title: 'a broken agency work refused beside the merged ones' },
      { id: 'demerge-one', title: 'a demerge removes one set: the other work still demerges' },
    ],
    async run(ctx) {
      const entry = ctx.entries.merges?.[0] as MergeEntry | undefined;
      if (!entry) throw new Error('no merge entry allocated');
      const format: Format = ctx.format === 'xml' ? 'xml' : 'json';
      const works = entry.agencyWorks ?? [];
      const query = { query: queryFor(OP, { preferredIswc: entry.preferredIswc, agency: profile.agency }) };
      const merge = (items: readonly AgencyWorkRef[]) => bodyRequest(OP, format, { ...emptyMerge(), agencyWorks: items }, query);
      const demergeOf = (w: AgencyWorkRef) => queryRequest(DEMERGE, queryFor(DEMERGE, { preferredIswc: entry.preferredIswc, agency: w.agencyCode, workcode: w.agencyWorkCode }));
      const undo = (w: AgencyWorkRef): Step => ({
        label: `demerge ${w.agencyWorkCode} again: left as found`,
        operation: DEMERGE,
        request: demergeOf(w),
        expect: [expectCheck('outcome.demerge', { because: `the run merged ${w.agencyCode}/${w.agencyWorkCode} into ${entry.preferredIswc} and demerged it: nothing of it is left to demerge, the entry is as the profile found it (section 3)` })],
      });
      const [first] = works;
      if (!first) return;
      // Registered before any request names a work: whatever a request did, refused or not, the run undoes it.
      for (const w of works) ctx.restore({ entry: `merges entry into ${entry.preferredIswc}`, what: `${entry.preferredIswc} ← ${w.agencyCode}/${w.agencyWorkCode}`, undo: undo(w) });
      await ctx.part('key', async () => {
        await keyProofs(ctx, OP, merge([first]), `merge ${first.agencyWorkCode}`, 'this merge is accepted (sections 5.1, 4.2)');
        await ctx.send({
          label: `demerge ${first.agencyWorkCode} before it is merged`,
          operation: DEMERGE,
          request: demergeOf(first),
          expect: [expectCheck('auth.key-checked', { noEffect: true, because: `the merges of ${first.agencyWorkCode} just refused for their key must have merged nothing (sections 5.1, 3)` })],
        });
      });
      for (const w of works) {
        await ctx.send({ label: `merge ${w.agencyWorkCode} on its own`, operation: OP, request: merge([w]), expect: [expectCheck('status.success', { because: `the profile lists ${w.agencyWorkCode} as a work merged into ${entry.preferredIswc} (section 4.2)` })] });
      }
      await ctx.part('item', async () => {
        await ctx.send({
          label: 'merge again with a work code of 21 characters first',
          operation: OP,
          request: merge([{ agencyCode: first.agencyCode, agencyWorkCode: `${first.agencyWorkCode}${'X'.repeat(21)}`.slice(0, 21) }, ...works]),
          expect: [expectCheck('status.item-refused', { because: 'agencyWorkCode is at most 20 characters (section 2.4); the rest of the merge is merged already (section 4.2)' })],
        });
      });
      await ctx.send({ label: `demerge ${first.agencyWorkCode}`, operation: DEMERGE, request: demergeOf(first), expect: [expectCheck('outcome.merge', { because: `the merge just made ${first.agencyWorkCode} part of ${entry.preferredIswc} (section 3)` })] });
      const last = works.length >= 2 ? works[works.length - 1] : undefined;
      if (last && !sameIswcShown(profile, first, last)) {
        await ctx.part('demerge-one', async () => {
          await ctx.send({
            label: `demerge ${last.agencyWorkCode}`,
            operation: DEMERGE,
            request: demergeOf(last),
            expect: [expectCheck('outcome.demerge-one', { because: `${last.agencyWorkCode}, merged by a request of its own, is still merged after the demerge of ${first.agencyWorkCode} (section 4.4)` })],
          });
        });
      }
    },
  };
}
