import type { Format } from '../../contract/codec/index.ts';
import type { AgencyWorkRef, MergeEntry, TargetProfile } from '../../contract/profile/types.ts';
import type { CaseDef, Step } from '../case.ts';
import { keyProofs } from './key-proofs.ts';
import { mixedRefusals, sameIswcShown, succeeded } from './merge.ts';
import { preferredIswcNeighbours } from './neighbours.ts';
import { fieldConstraints } from '../../contract/constraints.ts';
import { neighbourBecause } from '../neighbours.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, queryRequest } from '../requests.ts';
import { emptyMerge, queryFor } from '../templates.ts';

/**
 * The restoring merge (issue 31): the agency works of a merges entry, each merged by a request of its own
 * (undone by a demerge under every reading of 4.4), registered for restoration before a request names it.
 * The core merges the first work and demerges it (three requests and its restoration); the rest are parts:
 * the key refused first; the first work merged into near neighbours of the preferred ISWC (one digit too
 * long, a check digit that does not hold), refused; the other works merged too; a broken work refused beside the merged one; on a
 * profile that is not reusable, the key refused on a merge of the entry's first ISWC alone, which then
 * succeeds (issue 38: a server that checks the key against the agency of each agency work serves it with no
 * key; a merge of ISWCs cannot be undone, 4.4 names works, so a reusable profile never sends it), before the
 * first work is demerged (a merge of ISWCs that drops the works merged before fails that demerge); the last
 * work still demergeable after the first's demerge. The run then sends each registered work's demerge until refused:
 * the entry is shown as found. On a reusable profile (`"reusable": true`) it is what lets a destructive gate
 * judge merges, demerges and refused items on entries that are never recreated; on any other profile it
 * consumes a merges entry like the other merge cases. A budget that proves the key on the merge takes the
 * core and the key (issue 37).
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
      { id: 'preferred-neighbours', title: 'its first work merged into the preferred ISWC one digit too long, and with a check digit that does not hold: refused' },
      { id: 'other-works', title: 'the entry\'s other agency works merged too, each by a request of its own (in JSON the last one\'s body without "iswcs")' },
      { id: 'item', title: 'a broken agency work refused beside the merged one' },
      { id: 'demerge-one', title: 'a demerge removes one set: the other work still demerges', after: ['other-works'] },
      { id: 'key-iswcs', title: 'the key refused on a merge of the entry\'s first ISWC alone, which then succeeds (a profile that is not reusable)' },
      { id: 'iswcs-kept', title: 'the first work demerged right after that merge of ISWCs: a merge adds, the work is still merged', after: ['key-iswcs'] },
      { id: 'mixed-items', title: 'its first ISWC and first agency work in one body with one item of one list it cannot take, refused (a profile that is not reusable)', after: ['key-iswcs'] },
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
      // Registered before any request names a work: whatever a request did, refused or not, the run undoes it.
      const register = (w: AgencyWorkRef) => ctx.restore({ entry: `merges entry into ${entry.preferredIswc}`, what: `${entry.preferredIswc} ← ${w.agencyCode}/${w.agencyWorkCode}`, undo: undo(w) });
      const mergeOnItsOwn = (w: AgencyWorkRef) =>
        ctx.send({ label: `merge ${w.agencyWorkCode} on its own`, operation: OP, request: merge([w]), expect: [expectCheck('status.success', { because: `the profile lists ${w.agencyWorkCode} as a work merged into ${entry.preferredIswc} (section 4.2)` })] });
      const [first, ...others] = works;
      if (!first) return;
      const last = others[others.length - 1];
      register(first);
      await ctx.part('key', async () => {
        await keyProofs(ctx, OP, merge([first]), `merge ${first.agencyWorkCode}`, 'this merge is accepted (sections 5.1, 4.2)');
        await ctx.send({
          label: `demerge ${first.agencyWorkCode} before it is merged`,
          operation: DEMERGE,
          request: demergeOf(first),
          expect: [expectCheck('auth.key-checked', { noEffect: true, because: `the merges of ${first.agencyWorkCode} just refused for their key must have merged nothing (sections 5.1, 3)` })],
        });
      });
      // The merge's query preferredIswc, near neighbours of the entry's (a sixth fresh reading, 2026-12-01): a
      // server that keeps 11 characters of it, or recomputes its check digit, on the merge only, merges the
      // first work into the entry's preferred ISWC (registered above: the run demerges it whatever happened).
      const preferredParam = fieldConstraints().find((c) => c.operation === OP && c.location === 'query' && c.name === 'preferredIswc');
      const neighbours = preferredParam ? preferredIswcNeighbours(preferredParam, entry.preferredIswc) : undefined;
      if (neighbours && neighbours.sent.length > 0) {
        await ctx.part('preferred-neighbours', async () => {
          for (const n of neighbours.sent) {
            await ctx.send({
              label: `merge ${first.agencyWorkCode} into preferredIswc ${n.label}`,
              operation: OP,
              request: bodyRequest(OP, format, { ...emptyMerge(), agencyWorks: [first] }, { query: queryFor(OP, { preferredIswc: n.value, agency: profile.agency }) }),
              expect: [expectCheck('query.refused', { because: neighbourBecause(neighbours.asIswc, n, entry.preferredIswc, `the merges entry's preferred ISWC ${entry.preferredIswc}, into which it would merge ${first.agencyCode}/${first.agencyWorkCode}`), sections: [...neighbours.asIswc.sections] })],
            });
          }
        });
      }
      await mergeOnItsOwn(first);
      // In JSON the last work's body leaves the ISWCs out (a sixth fresh reading, 2026-12-01): every other JSON
      // merge sends the list it does not use as `[]`, so a server that merges nothing of a body without it, and
      // answers 204, passed. Refusing such a body is a reading (docs/readings.md, "A list of a merge body present
      // and empty"), so its merge is not judged; a 204 to it must have merged the work (the demerge-one part).
      let lastShown = true;
      if (others.length > 0) {
        await ctx.part('other-works', async () => {
          for (const w of others) register(w);
          for (const w of others) {
            if (w !== last || format !== 'json') {
              await mergeOnItsOwn(w);
              continue;
            }
            const merged = await ctx.send({ label: `merge ${w.agencyWorkCode} on its own, its JSON body without "iswcs"`, operation: OP, request: bodyRequest(OP, format, { agencyWorks: [w] }, query), expect: [] });
            lastShown = succeeded(merged);
          }
        });
      }
      await ctx.part('item', async () => {
        await ctx.send({
          label: 'merge again with a work code of 21 characters first',
          operation: OP,
          request: merge([{ agencyCode: first.agencyCode, agencyWorkCode: `${first.agencyWorkCode}${'X'.repeat(21)}`.slice(0, 21) }, first]),
          expect: [expectCheck('status.item-refused', { because: 'agencyWorkCode is at most 20 characters (section 2.4); the rest of the merge is merged already (section 4.2)' })],
        });
      });
      const demergeFirst = (because: string) => ctx.send({ label: `demerge ${first.agencyWorkCode}`, operation: DEMERGE, request: demergeOf(first), expect: [expectCheck('outcome.merge', { because })] });
      const mergedOnItsOwn = `the merge of ${first.agencyWorkCode} on its own made it part of ${entry.preferredIswc} (section 3)`;
      // Set in the part that demerges the first work itself (a part's steps run only when the plan took it).
      const firstWork = { demerged: false };
      // Its first ISWC alone (issue 38): a merge of one ISWC, the shape the other merge cases leave to the key
      // and refusals, accepted; its ISWCs together go in merge.success-then-demerge. Sent after the works are
      // merged, and the first work demerged right after it: a merge adds, so the work is still there (a server
      // whose merge of ISWCs rebuilds the group and drops its works fails that demerge; a fresh reading of
      // 2026-12-01). That demerge is the core's, sent in its own part (`iswcs-kept`) when a plan takes it.
      const iswcs = (entry.iswcs ?? []).slice(0, 1);
      if (!profile.reusable && iswcs.length > 0) {
        await ctx.part('key-iswcs', async () => {
          const iswcsAlone = bodyRequest(OP, format, { ...emptyMerge(), iswcs }, query);
          await keyProofs(ctx, OP, iswcsAlone, 'merge its first ISWC alone', 'this merge of one ISWC is accepted (sections 5.1, 4.2)', ['none']);
          await ctx.send({ label: 'merge its first ISWC alone', operation: OP, request: iswcsAlone, expect: [expectCheck('status.success', { because: `the profile lists ${iswcs.join(', ')} as merged into ${entry.preferredIswc}, and a merge may name one ISWC alone (sections 4.2, 2.3)` })] });
        });
        await ctx.part('iswcs-kept', async () => {
          await demergeFirst(`${mergedOnItsOwn}; the merge of ${iswcs.join(', ')} after it adds to the preferred ISWC and removes nothing (sections 3, 4.2)`);
          firstWork.demerged = true;
        });
        // Mixed bodies (issue 38): its first ISWC, merged just before, and its first work (registered for
        // restoration) in one request, with one item of one list it cannot take; a server that reads one list
        // only while the other is present takes it.
        await ctx.part('mixed-items', async () => {
          for (const broken of mixedRefusals(profile, { ...emptyMerge(), iswcs, agencyWorks: [first] })) {
            await ctx.send({
              label: `merge its first ISWC and ${first.agencyWorkCode} again with ${broken.label}`,
              operation: OP,
              request: bodyRequest(OP, format, broken.body, query),
              expect: [expectCheck('status.item-refused', { because: `${broken.because}; the other items are the profile's, ISWCs and an agency work in one body (sections 4.2, 2.3)`, sections: [...broken.sections] })],
            });
          }
        });
      }
      if (!firstWork.demerged) await demergeFirst(mergedOnItsOwn);
      if (last && !sameIswcShown(profile, first, last)) {
        await ctx.part('demerge-one', async () => {
          await ctx.send({
            label: `demerge ${last.agencyWorkCode}`,
            operation: DEMERGE,
            request: demergeOf(last),
            expect: lastShown ? [expectCheck('outcome.demerge-one', { because: `${last.agencyWorkCode}, merged by a request of its own${format === 'json' ? ' (its body without "iswcs", answered 2xx)' : ''}, is still merged after the demerge of ${first.agencyWorkCode} (section 4.4)` })] : [],
          });
        });
      }
    },
  };
}
