import type { Format } from '../../contract/codec/index.ts';
import { constraintsOf, resourceSchema } from '../../contract/constraints.ts';
import { deref } from '../../contract/openapi.ts';
import { operation } from '../../contract/operations.ts';
import { withWrongCheckDigit } from '../../contract/iswc.ts';
import type { AgencyWorkRef, MergeEntry, TargetProfile } from '../../contract/profile/types.ts';
import type { CaseContext, CaseDef } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, queryRequest, rawBodyRequest } from '../requests.ts';
import type { BodyOptions } from '../requests.ts';
import { emptyMerge, existingIswc, otherAgency, otherIswc, queryFor, unknownIswc, validExample, validWork } from '../templates.ts';
import { READ_BACK } from './read-back.ts';
import { keyOnShapes, keyProofs } from './key-proofs.ts';
import { bodiesOfShapes, shapeOfBody, shapeSlug, shapeWords } from '../../contract/shapes.ts';
import { statusOf } from '../../contract/answer.ts';
import type { Exchange } from '../../contract/exchange.ts';
import { boundaryValues } from '../values.ts';

const OP = 'mergeIswcMetadata';
const DEMERGE = 'demergeIswcMetadata';
const op = () => operation(OP);
const BOTH: readonly Format[] = ['json', 'xml'];

function asFormat(format: string): Format {
  return format === 'xml' ? 'xml' : 'json';
}

/** The merge body of a profile entry, every array present (required-ness is not shown, so send all). */
export function mergeBody(entry: MergeEntry): Record<string, unknown> {
  return { ...emptyMerge(), iswcs: entry.iswcs ?? [], agencyWorks: entry.agencyWorks ?? [] };
}

function mergeQuery(preferredIswc: string, agency: string) {
  return queryFor(OP, { preferredIswc, agency });
}

/** The two kinds of item a merge body lists (2.3). */
type ItemKind = 'iswcs' | 'agencyWorks';

interface MergePart {
  label: string;
  body: Record<string, unknown>;
  because: string;
  /** Items the merge cannot take, each sent with this part's data once the entry is merged (status.item-refused). */
  refused: readonly ItemKind[];
}

/** How a profile entry is merged, and the works the case then demerges. */
interface MergePlan {
  parts: MergePart[];
  /** Its agency works, merged by one request (the part that carries them): each is then demerged in turn. */
  works: AgencyWorkRef[];
  /** The part that carries every agency work. */
  worksPart?: MergePart;
}

/**
 * The merges a profile entry is accepted as, in order: its ISWCs alone (a merge of ISWCs only: the body
 * carries "ISWCs and/or agency work references", 4.2), then all its agency works in one request. Each is part
 * of a merge the target accepts, and together they merge the whole entry. Every agency work of that one
 * request is then proven merged (issue 28: a server that merges only the first, the last or the first two
 * answers 204 all the same).
 *
 * A request refused may still have changed what it named (section 1 shows no effect of a refused request):
 * a server that merges item by item keeps what it merged before it met one it cannot take, a set-based one
 * merges everything it found. So the requests refused for an item go after the entry is merged, where
 * merging its data again changes nothing, each with the part of its kind and the item first among its items
 * (and an ISWC that does not exist after them: a server reading only the first items shows there). An entry
 * without ISWCs sends its refused ISWCs with its works (2.3: iswcs, then agencyWorks).
 */
function mergePlan(entry: MergeEntry): MergePlan {
  const iswcs = entry.iswcs ?? [];
  const works = entry.agencyWorks ?? [];
  const parts: MergePart[] = [];
  const accepted = `the target profile lists a merge of ${[...iswcs, ...works.map((w) => `${w.agencyCode}/${w.agencyWorkCode}`)].join(', ')} into ${entry.preferredIswc} as accepted`;
  let worksPart: MergePart | undefined;
  if (iswcs.length > 0 && works.length > 0) {
    parts.push({ label: 'merge its ISWCs alone', body: mergeBody({ ...entry, agencyWorks: [] }), because: `${accepted}; its ISWCs alone are a merge of ISWCs only`, refused: ['iswcs'] });
    worksPart = { label: `merge its ${works.length} agency works in one request`, body: mergeBody({ ...entry, iswcs: [] }), because: `${accepted}; its ISWCs are merged, its agency works follow`, refused: ['agencyWorks'] };
    parts.push(worksPart);
  } else {
    parts.push({ label: 'merge profile entry', body: mergeBody(entry), because: accepted, refused: works.length > 0 ? ['iswcs', 'agencyWorks'] : ['iswcs'] });
    if (works.length > 0) worksPart = parts[0];
  }
  return { parts, works, ...(worksPart ? { worksPart } : {}) };
}

/**
 * Do the profile's submissions show two agency works under one ISWC? A server may demerge a merged ISWC
 * with all its works (4.4, "one set of metadata"; production does), so after one of them is demerged the
 * other's state depends on the reading. Works the profile holds no submission of are taken to be of ISWCs
 * of their own, as the profile's description of merges asks.
 */
export function sameIswcShown(profile: Pick<TargetProfile, 'submissions'>, a: AgencyWorkRef, b: AgencyWorkRef): boolean {
  const iswcOf = (w: AgencyWorkRef): string | undefined => profile.submissions.find((s) => s.agency === w.agencyCode && s.workcode === w.agencyWorkCode)?.preferredIswc;
  const [x, y] = [iswcOf(a), iswcOf(b)];
  return x !== undefined && x === y;
}

interface RefusedItem {
  /** The list whose item it cannot take. */
  list: ItemKind;
  label: string;
  body: Record<string, unknown>;
  because: string;
  sections: readonly string[];
}

/**
 * The body of a merge the target accepts with one more item of a kind it cannot take, first among the
 * items of that kind: each item field of the merge body (from the contract's constraints) one past its
 * limit, every way every reading counts alike (one pattern miss for ISWCs), and an ISWC that does not exist.
 */
function withRefusedItem(profile: TargetProfile, body: Record<string, unknown>, kinds: readonly ItemKind[]): RefusedItem[] {
  const out: RefusedItem[] = [];
  const iswcs = Array.isArray(body.iswcs) ? (body.iswcs as unknown[]) : [];
  const works = Array.isArray(body.agencyWorks) ? (body.agencyWorks as unknown[]) : [];
  for (const c of constraintsOf(OP).filter((x) => x.location === 'body' && x.field.includes('[]'))) {
    const rejected = boundaryValues(c, validExample(c, profile)).filter((b) => b.role === 'rejected');
    const misses = rejected.filter((b) => b.label.startsWith('pattern-'));
    for (const b of [...rejected.filter((x) => !x.label.startsWith('pattern-')), ...misses.slice(0, 1)]) {
      const item = /^(\w+)\[\](?:\.(\w+))?$/.exec(c.field);
      const [array, name] = [item?.[1] ?? c.field, item?.[2]];
      if (array === 'iswcs' && kinds.includes('iswcs')) out.push({ list: 'iswcs', label: `an ISWC ${b.label}`, body: { ...body, iswcs: [b.value, ...iswcs] }, because: b.because, sections: c.sections });
      else if (array === 'agencyWorks' && name !== undefined && kinds.includes('agencyWorks')) {
        out.push({ list: 'agencyWorks', label: `an agency work with ${name} ${b.label}`, body: { ...body, agencyWorks: [{ ...validWork(profile), [name]: b.value }, ...works] }, because: b.because, sections: c.sections });
      }
    }
  }
  const unknown = unknownIswc(profile, 1);
  if (kinds.includes('iswcs')) {
    out.push({ list: 'iswcs', label: 'an ISWC that does not exist', body: { ...body, iswcs: [unknown, ...iswcs] }, because: `${unknown} does not exist in the target (profile unknownIswcs)`, sections: ['4.2'] });
    // Last too: a server that reads only the first items of a list takes the request without it (issue 28).
    if (iswcs.length > 0) out.push({ list: 'iswcs', label: 'an ISWC that does not exist after its ISWCs', body: { ...body, iswcs: [...iswcs, unknown] }, because: `${unknown} does not exist in the target (profile unknownIswcs), named after ${iswcs.length} ISWC${iswcs.length === 1 ? '' : 's'} that do`, sections: ['2.3', '4.2'] });
  }
  return out;
}

/** Does a merge body carry an agency work? */
function carriesWorks(body: Record<string, unknown>): boolean {
  return Array.isArray(body.agencyWorks) && body.agencyWorks.length > 0;
}

/**
 * Of the items a merge cannot take, one of each kind for a body carrying both lists: an ISWC off its
 * pattern, an ISWC that does not exist, an agency work past a limit (an agency work the server does not know
 * it may take, 4.2). Each sits with every item of both lists.
 */
export function mixedRefusals(profile: TargetProfile, body: Record<string, unknown>): RefusedItem[] {
  const all = withRefusedItem(profile, body, ['iswcs', 'agencyWorks']);
  const first = (test: (r: RefusedItem) => boolean): RefusedItem[] => all.filter(test).slice(0, 1);
  return [...first((r) => r.label.startsWith('an ISWC pattern-')), ...first((r) => r.label === 'an ISWC that does not exist'), ...first((r) => r.label.startsWith('an agency work with agencyWorkCode'))];
}

/**
 * An agency work is named by its agency and its work code together (2.4). The entry's first work named with
 * another agency's code, before anything of the entry is merged: whatever the merge gets (a server may take
 * works it does not know, 4.2, or refuse them), it named no work of the profile's, so the profile's work is
 * not merged and its demerge is refused (4.4). A server that looks a work up by its code alone merges the
 * profile's work and demerges it (204). What the merge may have merged of the work it named is demerged
 * again, unjudged.
 */
async function worksOfAnotherAgency(ctx: CaseContext, format: Format, preferredIswc: string, query: BodyOptions, work: AgencyWorkRef): Promise<void> {
  const named = { agencyCode: otherAgency(work.agencyCode), agencyWorkCode: work.agencyWorkCode };
  const demergeOf = (w: AgencyWorkRef) => queryRequest(DEMERGE, queryFor(DEMERGE, { preferredIswc, agency: w.agencyCode, workcode: w.agencyWorkCode }));
  await ctx.send({ label: `merge ${named.agencyCode}/${named.agencyWorkCode}, its work code under another agency`, operation: OP, request: bodyRequest(OP, format, mergeBody({ preferredIswc, agencyWorks: [named] }), query), expect: [] });
  await ctx.send({
    label: `demerge ${work.agencyCode}/${work.agencyWorkCode} after the merge of ${named.agencyCode}/${named.agencyWorkCode}`,
    operation: DEMERGE,
    request: demergeOf(work),
    expect: [
      expectCheck('status.refused', {
        because: `the merge just before named ${named.agencyCode}/${named.agencyWorkCode}, not ${work.agencyCode}/${work.agencyWorkCode} (an agency work is its agency and its work code, section 2.4), and nothing has merged ${work.agencyWorkCode} into ${preferredIswc} yet: a demerge of metadata never merged (section 4.4)`,
        sections: ['2.4', '4.4'],
      }),
    ],
  });
  await ctx.send({ label: `demerge ${named.agencyCode}/${named.agencyWorkCode}, whatever the merge kept of it`, operation: DEMERGE, request: demergeOf(named), expect: [] });
}

export function mergeCases(profile: TargetProfile): CaseDef[] {
  const section = op().section;
  const arrays = Object.entries(resourceSchema('MergeRequest').properties ?? {}).filter(([, raw]) => deref(raw).type === 'array');
  return [
    {
      id: 'merge.success-then-demerge',
      title: `POST ${op().path}: a profile merge, refused without the key, with an empty, a wrong or a case-changed key (and then shown to have merged nothing), gets 204 with the key (its ISWCs alone, then all its agency works in one request); merged again with one item it cannot take, it is refused; every work of that request then demerges (204; the first refused first without the key, with an empty, a wrong or a case-changed key); with two works or more the last, merged on its own, survives a demerge of the first; a repeat demerge is refused @smoke @destructive`,
      operation: OP,
      formats: BOTH,
      tags: ['@smoke', '@destructive'],
      claims: [{ kind: 'merges', count: 1 }],
      // Each proof beyond the merge that succeeds and the demerge that shows it is a part (issue 37: no case
      // takes more than a fair share of a small budget): the core is four requests.
      parts: [
        { id: 'key-shapes', title: 'the key refused on each other shape of its body (one ISWC alone, one agency work alone, ISWCs and agency works together) and of the request (no Content-Type, an Accept of the other format), before anything is merged' },
        { id: 'key-iswcs', title: 'the key refused on the merge of its ISWCs alone, which then succeeds' },
        { id: 'key-works', title: 'the key refused on the merge of its agency works, which then merged nothing: the demerge of its first work is refused' },
        { id: 'works-agency', title: 'its first agency work named with another agency\'s code, before it is merged: the profile\'s work is not merged by it' },
        { id: 'refused-iswcs', title: 'merged again with one ISWC it cannot take (off its pattern, unknown first, unknown after its ISWCs), refused' },
        { id: 'refused-works', title: 'merged again with one agency work it cannot take (each of its fields past a limit), refused' },
        { id: 'mixed-items', title: 'its ISWCs and agency works in one body with one item of one list it cannot take, refused' },
        { id: 'key-demerge', title: 'the demerge of its first work refused without the key, with an empty, a wrong or a case-changed key, before it succeeds' },
        { id: 'every-work', title: 'every other agency work of its merge request demerged, the request sent again before each: every item was merged' },
        { id: 'demerge-one', title: 'its first and last agency works merged each by a request of its own: demerging the first leaves the last merged', after: ['every-work'] },
        { id: READ_BACK, title: 'its agency work merged once more on its own, then demerged among the run\'s last requests (still merged) and the demerge repeated (refused): the merge and the demerge hold' },
      ],
      readsBack: true,
      // What is merged and then demerged are the entry's agency works: without one, only the merge is shown.
      needs: [
        { entry: 'merges', index: 0, list: 'agencyWorks', atLeast: 1, checks: ['outcome.merge', 'outcome.demerge', 'observed.refusal'] },
        { entry: 'merges', index: 0, list: 'agencyWorks', atLeast: 2, checks: ['outcome.demerge-one'] },
      ],
      async run(ctx) {
        const entry = (ctx.entries.merges?.[0] ?? null) as MergeEntry | null;
        if (!entry) throw new Error('no merge entry allocated');
        const format = asFormat(ctx.format);
        const query = { query: mergeQuery(entry.preferredIswc, profile.agency) };
        const { parts, works, worksPart } = mergePlan(entry);
        const [work, ...others] = works;
        const demergeOf = (w: AgencyWorkRef) => queryRequest(DEMERGE, queryFor(DEMERGE, { preferredIswc: entry.preferredIswc, agency: w.agencyCode, workcode: w.agencyWorkCode }));
        // The key is proven on the part that carries the agency works: a demerge of the first shows the refused
        // merges merged nothing (section 5), which no request can show of an ISWC.
        const proven = worksPart ?? parts[0];
        if (!proven) return;
        // The key on every other shape of the entry's body (issue 38: a server may check it on the shapes it
        // was tested with), sent without it before anything is merged; the demerge that follows the key
        // proofs of the works shows that none of them merged a work (section 5).
        const proofShapes = new Set(parts.map((part) => shapeOfBody(OP, part.body)).filter((x) => x !== undefined).map(shapeSlug));
        const otherShapes = bodiesOfShapes(OP, { iswcs: entry.iswcs ?? [], agencyWorks: works }, emptyMerge()).filter(({ shape }) => !proofShapes.has(shapeSlug(shape)));
        await ctx.part('key-shapes', async () => {
          for (const { shape, body } of otherShapes) {
            await keyProofs(ctx, OP, bodyRequest(OP, format, body, query), `merge ${shapeWords(shape)}`, 'this merge of the profile\'s items is accepted (sections 5.1, 4.2)', ['none']);
          }
          // And on the request's other shapes (no Content-Type, an Accept of the other format): a success shows the key skipped.
          await keyOnShapes(ctx, OP, bodyRequest(OP, format, proven.body, query), `merge ${proven.label}`, 'this merge is accepted (sections 5.1, 4.2)', 'auth.key-checked', false);
        });
        for (const part of parts) {
          // The key proven on a merge of ISWCs only too (issue 38): a server that checks the key against the
          // agency of each agency work serves a body without one with no key at all. No request shows what a
          // merge of ISWCs did (section 4.4 names works), so the refusals alone are judged.
          if (part !== proven && !carriesWorks(part.body)) {
            await ctx.part('key-iswcs', () => keyProofs(ctx, OP, bodyRequest(OP, format, part.body, query), part.label, 'this merge of ISWCs only is accepted (sections 5.1, 4.2)'));
          }
          if (part === proven) {
            await ctx.part('key-works', async () => {
              await keyProofs(ctx, OP, bodyRequest(OP, format, part.body, query), part.label, 'this merge is accepted (sections 5.1, 4.2)');
              if (!work) return;
              await ctx.send({
                label: `demerge ${work.agencyWorkCode} before it is merged`,
                operation: DEMERGE,
                request: demergeOf(work),
                expect: [
                  expectCheck('auth.key-checked', {
                    noEffect: true,
                    because: `the merges of ${work.agencyCode}/${work.agencyWorkCode} into ${entry.preferredIswc} just refused for their key must have merged nothing, so there is nothing of it to demerge (sections 5.1, 3)`,
                  }),
                ],
              });
            });
            if (work) await ctx.part('works-agency', () => worksOfAnotherAgency(ctx, format, entry.preferredIswc, query, work));
          }
          await ctx.send({
            label: part.label,
            operation: OP,
            request: bodyRequest(OP, format, part.body, query),
            expect: [expectCheck('status.success', { because: `${part.because} (section ${section})` })],
          });
        }
        // Each part again with one item it cannot take, now that the entry is merged: refused (4.2), and
        // whatever such a request keeps of what it named, merging it again changes nothing.
        const refusals = parts.flatMap((part) => withRefusedItem(profile, part.body, part.refused).map((broken) => ({ part, broken })));
        for (const [id, list] of [['refused-iswcs', 'iswcs'], ['refused-works', 'agencyWorks']] as const) {
          const ofList = refusals.filter(({ broken }) => broken.list === list);
          if (ofList.length === 0) continue;
          await ctx.part(id, async () => {
            for (const { part, broken } of ofList) {
              await ctx.send({
                label: `${part.label} again with ${broken.label}`,
                operation: OP,
                request: bodyRequest(OP, format, broken.body, query),
                expect: [expectCheck('status.item-refused', { because: `${broken.because}; the rest of the merge is the profile's, merged just before (section ${section})`, sections: [...broken.sections] })],
              });
            }
          });
        }
        // Mixed bodies (issue 38): the entry's ISWCs and agency works in one request, with one item of one list
        // it cannot take; a server that reads one list only while the other is present takes it.
        if ((entry.iswcs ?? []).length > 0 && works.length > 0) {
          await ctx.part('mixed-items', async () => {
            for (const broken of mixedRefusals(profile, mergeBody(entry))) {
              await ctx.send({
                label: `merge its ISWCs and agency works again with ${broken.label}`,
                operation: OP,
                request: bodyRequest(OP, format, broken.body, query),
                expect: [expectCheck('status.item-refused', { because: `${broken.because}; the other items are the profile's, merged just before, ISWCs and agency works in one body (sections ${section}, 2.3)`, sections: [...broken.sections] })],
              });
            }
          });
        }
        if (!work || !worksPart) return;
        // The demerge that is about to succeed, first without the key, with an empty, a wrong and a
        // case-changed one: the key proven on demerge with a merge entry alone (a profile whose only demerges
        // entry is named, never consumed, shows it nowhere else; section 5).
        await ctx.part('key-demerge', () => keyProofs(ctx, DEMERGE, demergeOf(work), 'demerge the merged work', 'this demerge of the work just merged succeeds (sections 5.1, 4.4)'));
        const carried = `the merge of ${works.map((w) => w.agencyWorkCode).join(', ')} in one request into ${entry.preferredIswc}`;
        await ctx.send({
          label: 'demerge its first agency work',
          operation: DEMERGE,
          request: demergeOf(work),
          expect: [expectCheck('outcome.merge', { because: `${carried} made ${work.agencyCode}/${work.agencyWorkCode} part of it (section 3)` })],
        });
        // Every other work of that one request, proven merged too (issue 28: a server that merges only the
        // first item, or the first two, answers 204 all the same). A demerge may remove more than the work it
        // names ("one set of metadata", 4.4: the works one merge request carried), so the same request is sent
        // again before each: refused or not (a server may refuse to merge a work merged already), one request
        // naming all of them made the work demergeable.
        // A server may also refuse to merge again a work just demerged from the same preferred ISWC (a business
        // rule, like the refusal to merge a work twice): when the request sent again is refused, the demerge
        // before it may have taken the work with it (one merge request's set), and what it left is not known.
        // The work the repeat demerges again: the last one demerged (the first, when the budget took neither
        // part that demerges the others).
        let repeated = work;
        const last = others[others.length - 1];
        let lastRemerged = true;
        await ctx.part('every-work', async () => {
          for (const [i, other] of others.entries()) {
            const again = await ctx.send({ label: `merge its agency works again, before demerging the work at position ${i + 2}`, operation: OP, request: bodyRequest(OP, format, worksPart.body, query), expect: [] });
            const merged = succeeded(again);
            if (i === others.length - 1) lastRemerged = merged;
            await ctx.send({
              label: `demerge its agency work at position ${i + 2} of ${works.length}`,
              operation: DEMERGE,
              request: demergeOf(other),
              expect: merged
                ? [expectCheck('outcome.merge', { because: `${carried}, sent again just before, made ${other.agencyCode}/${other.agencyWorkCode}, item ${i + 2} of ${works.length}, part of it: every item of a merge is merged (sections 2.3, 3)` })]
                : [],
            });
          }
          if (last) repeated = last;
        });
        // Two agency works or more: the last and the first, each merged by a request of its own, so that
        // demerging the first leaves the last merged whether "one set of metadata" (4.4) means one work or one
        // merge request; and when the profile shows them works of one ISWC, a server that demerges a merged
        // ISWC with all its works removes both, so the last is not demanded then. The first may still be
        // merged (a merge refused for a work merged already may have kept it): its own merge and demerge are
        // not judged, only what they leave. After every-work: the last was demerged just before, so its
        // merge on its own is a merge of a work not merged.
        if (last && !sameIswcShown(profile, work, last)) {
          await ctx.part('demerge-one', async () => {
            await ctx.send({ label: 'merge its first agency work on its own', operation: OP, request: bodyRequest(OP, format, mergeBody({ preferredIswc: entry.preferredIswc, agencyWorks: [work] }), query), expect: [] });
            // Where the server refused to merge the works again after a demerge, it may refuse this merge for the
            // same rule: then the demerges below show nothing, and are not judged.
            const lastMerge = await ctx.send({
              label: 'merge its last agency work on its own',
              operation: OP,
              request: bodyRequest(OP, format, mergeBody({ preferredIswc: entry.preferredIswc, agencyWorks: [last] }), query),
              expect: lastRemerged ? [expectCheck('status.success', { because: `${last.agencyCode}/${last.agencyWorkCode}, demerged just before, merged by a request of its own (section ${section})` })] : [],
            });
            await ctx.send({ label: 'demerge its first agency work again', operation: DEMERGE, request: demergeOf(work), expect: [] });
            await ctx.send({
              label: 'demerge its last agency work',
              operation: DEMERGE,
              request: demergeOf(last),
              expect: succeeded(lastMerge)
                ? [expectCheck('outcome.demerge-one', { because: `the demerge before it removed the metadata of ${work.agencyWorkCode}; ${last.agencyWorkCode}, a work of another ISWC merged by a request of its own, is still merged (section 4.4)` })]
                : [],
            });
          });
        }
        await ctx.send({
          label: 'repeat the demerge',
          operation: DEMERGE,
          request: demergeOf(repeated),
          expect: [expectCheck('outcome.demerge', { because: 'the demerge just removed this metadata (section 3)' }), expectCheck('observed.refusal', { because: 'a repeated demerge: which error status refuses it' })],
        });
        // Read back (issue 38): the work merged once more on its own now, demerged among the run's last
        // requests (it must still be merged), then that demerge repeated (it must hold). A server may refuse
        // to merge again a work it demerged (choice merge-after-demerge-refused): then only the repeat is judged.
        const held = repeated;
        await ctx.part(READ_BACK, async () => {
          const merged = await ctx.send({ label: 'merge its agency work on its own once more, to read back at the run\'s end', operation: OP, request: bodyRequest(OP, format, mergeBody({ preferredIswc: entry.preferredIswc, agencyWorks: [held] }), query), expect: [] });
          await ctx.atRunEnd(async () => {
            await ctx.send({
              label: 'demerge the work merged once more, at the run\'s end',
              operation: DEMERGE,
              request: demergeOf(held),
              expect: succeeded(merged) ? [expectCheck('outcome.merge', { because: `${held.agencyCode}/${held.agencyWorkCode} was merged into ${entry.preferredIswc} by a request of its own (204), and no request since demerged it (section 3)` })] : [],
            });
            await ctx.send({
              label: 'repeat the demerge at the run\'s end',
              operation: DEMERGE,
              request: demergeOf(held),
              expect: [expectCheck('outcome.demerge', { because: 'the demerge just before removed this metadata (section 3)' })],
            });
          });
        });
      },
    },
    {
      id: 'merge.no-content-type',
      title: `POST ${op().path} without Content-Type, into an unknown preferred ISWC (observed: read as JSON, sniffed, or refused as a media type the server does not read)`,
      operation: OP,
      formats: BOTH,
      tags: ['@observed'],
      async run(ctx) {
        // Content-Type is optional for the client; how a body without it is read is not said. Into a preferred
        // ISWC that does not exist, so that nothing changes whatever the server makes of the body: a server
        // that reads it answers 404 (or 400), one that refuses the unlabelled body 415.
        const format = asFormat(ctx.format);
        await ctx.send({
          label: 'merge without Content-Type',
          operation: OP,
          probe: 'open-point',
          request: bodyRequest(OP, format, { ...emptyMerge(), iswcs: [otherIswc(profile)] }, { query: mergeQuery(unknownIswc(profile), profile.agency), contentType: null }),
          expect: [expectCheck('observed.content-type-default', { because: `a merge in ${format.toUpperCase()} without Content-Type, into ${unknownIswc(profile)}, which does not exist` })],
        });
      },
    },
    {
      id: 'merge.unknown-preferred',
      title: `POST ${op().path} into an unknown preferred ISWC, with one ISWC or with agency works only (several where the profile has them): 404 @smoke`,
      operation: OP,
      formats: BOTH,
      tags: ['@smoke'],
      async run(ctx) {
        await ctx.send({
          label: 'unknown preferred ISWC',
          operation: OP,
          request: bodyRequest(OP, asFormat(ctx.format), { ...emptyMerge(), iswcs: [profile.iswcs[1] ?? existingIswc(profile)] }, { query: mergeQuery(unknownIswc(profile), profile.agency) }),
          expect: [expectCheck('status.not-found', { because: `${unknownIswc(profile)} does not exist in the target (profile unknownIswcs; section ${section})` })],
        });
        // Agency works only (no ISWC to look up first), two of them where the profile has two works of one
        // agency: the unknown preferred ISWC is still not found, whether the merge names one item or several
        // (a server that answers a merge of several items into it 400 shows it here; one ISWC alone, above).
        const work = profile.submissions[0];
        if (!work) return;
        const second = profile.submissions.find((s) => s.agency === work.agency && s.workcode !== work.workcode);
        const works = [work, ...(second ? [second] : [])];
        const named = works.map((w) => `${w.agency}/${w.workcode}`).join(' and ');
        await ctx.send({
          label: `unknown preferred ISWC, agency works only (${works.length === 1 ? 'one' : 'two'})`,
          operation: OP,
          request: bodyRequest(OP, asFormat(ctx.format), { ...emptyMerge(), agencyWorks: works.map((w) => ({ agencyCode: w.agency, agencyWorkCode: w.workcode })) }, { query: mergeQuery(unknownIswc(profile), profile.agency) }),
          expect: [expectCheck('status.not-found', { because: `${unknownIswc(profile)} does not exist in the target; the body names only the agency work${works.length === 1 ? '' : 's'} ${named} (section ${section})` })],
        });
      },
    },
    {
      id: 'merge.unknown-iswc',
      title: `POST ${op().path} of an unknown ISWC, and of nothing into an unknown preferred ISWC: refused (400 or 404)`,
      operation: OP,
      formats: BOTH,
      tags: [],
      async run(ctx) {
        // The document lists 400 and 404 for the merge; an ISWC of the body that does not exist fits
        // "ISWC not found" and "bad request" alike, so either refuses it.
        await ctx.send({
          label: 'unknown ISWC in the body',
          operation: OP,
          request: bodyRequest(OP, asFormat(ctx.format), { ...emptyMerge(), iswcs: [unknownIswc(profile, 1)] }, { query: mergeQuery(existingIswc(profile), profile.agency) }),
          expect: [
            expectCheck('status.refused', { because: `${unknownIswc(profile, 1)} does not exist in the target (section ${section})` }),
            expectCheck('observed.refusal', { because: 'merge of an ISWC that does not exist: which error status refuses it' }),
          ],
        });
        // A merge that names nothing, into a preferred ISWC that does not exist: a server may refuse an empty
        // merge (400) or look the ISWC up first (404), but its 204 says "the ISWC designated as preferred" (4.2)
        // of an ISWC that does not exist (docs/readings.md, "An empty merge").
        await ctx.send({
          label: 'empty merge into an unknown preferred ISWC',
          operation: OP,
          request: bodyRequest(OP, asFormat(ctx.format), emptyMerge(), { query: mergeQuery(unknownIswc(profile), profile.agency) }),
          expect: [expectCheck('status.refused', { because: `the merge names nothing and ${unknownIswc(profile)} does not exist in the target: it cannot be designated as preferred (section ${section})` })],
        });
      },
    },
    ...(['none', 'wrong'] as const).map(
      (auth): CaseDef => ({
        id: `merge.auth.${auth}`,
        title: `POST ${op().path} with ${auth === 'none' ? 'no' : 'a wrong'} key: refused`,
        operation: OP,
        formats: BOTH,
        tags: ['@smoke', '@auth'],
        async run(ctx) {
          await ctx.send({
            label: `${auth === 'none' ? 'missing' : 'wrong'} key`,
            operation: OP,
            request: bodyRequest(OP, asFormat(ctx.format), { ...emptyMerge(), iswcs: [profile.iswcs[1] ?? existingIswc(profile)] }, { query: mergeQuery(unknownIswc(profile), profile.agency), auth }),
            expect: [
              expectCheck('auth.required', { because: `the subscription key is ${auth === 'none' ? 'missing' : 'wrong'} (section 5.1)` }),
              expectCheck('observed.auth-answer', { because: `merge with ${auth === 'none' ? 'no' : 'a wrong'} key` }),
            ],
          });
        },
      }),
    ),
    {
      id: 'merge.array-types',
      title: `POST ${op().path} with arrays of the wrong type: 400`,
      operation: OP,
      formats: ['json'],
      tags: ['@types'],
      async run(ctx) {
        const variants: Array<{ label: string; body: string; notFoundFits?: boolean }> = [
          { label: 'body is an array', body: '[]' },
          { label: 'body is a string', body: '"MergeRequest"' },
        ];
        for (const [name, raw] of arrays) {
          variants.push({ label: `${name} is a string`, body: JSON.stringify({ ...emptyMerge(), [name]: 'x' }) });
          variants.push({ label: `${name} is an object`, body: JSON.stringify({ ...emptyMerge(), [name]: {} }) });
          // A number where the items are text: a lenient binder reads "42", which a server may look up first and not find (404).
          const textItems = deref(raw).items !== undefined && deref(deref(raw).items ?? {}).type === 'string';
          variants.push({ label: `an item of ${name} is a number`, body: JSON.stringify({ ...emptyMerge(), [name]: [42] }), ...(textItems ? { notFoundFits: true } : {}) });
        }
        for (const { label, body, notFoundFits } of variants) {
          await ctx.send({
            label,
            operation: OP,
            request: rawBodyRequest(OP, 'json', body, { query: mergeQuery(existingIswc(profile), profile.agency) }),
            expect: [expectCheck('type.rejected', { because: `${label}, not a merge request (section 2.3)`, ...(notFoundFits ? { notFoundFits } : {}) })],
          });
        }
      },
    },
    {
      id: 'merge.malformed',
      title: `POST ${op().path} with a body no parser accepts: 400`,
      operation: OP,
      formats: BOTH,
      tags: ['@syntax'],
      async run(ctx) {
        const format = asFormat(ctx.format);
        const root = op().body?.xmlRoot ?? '';
        const bodies =
          format === 'json'
            ? [
                { label: 'truncated JSON', body: '{"iswcs": [' },
                { label: 'not JSON', body: 'iswcs=T0000000000' },
              ]
            : [
                { label: 'unclosed element', body: `<${root}><iswcs>${existingIswc(profile)}</iswcs>` },
                { label: 'mismatched end tag', body: `<${root}><iswcs>${existingIswc(profile)}</agencyWorks></${root}>` },
              ];
        for (const { label, body } of bodies) {
          await ctx.send({
            label,
            operation: OP,
            request: rawBodyRequest(OP, format, body, { query: mergeQuery(existingIswc(profile), profile.agency) }),
            expect: [expectCheck('body.malformed', { because: `the body is ${label} (section 2.3)` })],
          });
        }
      },
    },
    {
      id: 'merge.lenient-syntax',
      title: `POST ${op().path} with XML of another root element (observed)`,
      operation: OP,
      formats: ['xml'],
      tags: ['@syntax', '@observed'],
      async run(ctx) {
        // Into an ISWC that does not exist: a binder that ignores the root's name must merge nothing.
        await ctx.send({
          label: 'another root element',
          operation: OP,
          probe: 'open-point',
          request: rawBodyRequest(OP, 'xml', `<AgentRun><iswcs>${existingIswc(profile)}</iswcs></AgentRun>`, { query: mergeQuery(unknownIswc(profile), profile.agency) }),
          expect: [expectCheck('observed.lenient-syntax', { because: 'a merge request under another root element: binders that do not check the root name take it' })],
        });
      },
    },
    {
      id: 'merge.observed',
      title: `POST ${op().path} with points the document leaves open (observed)`,
      operation: OP,
      formats: ['json'],
      tags: ['@observed'],
      async run(ctx) {
        const existing = existingIswc(profile);
        const steps = [
          { label: 'empty body object', query: mergeQuery(existing, profile.agency), body: {}, check: 'observed.requiredness' as const },
          { label: 'malformed preferredIswc', query: mergeQuery('T123', profile.agency), body: emptyMerge(), check: 'observed.iswc-handling' as const },
          { label: 'preferredIswc with a wrong check digit', query: mergeQuery(withWrongCheckDigit(existing), profile.agency), body: emptyMerge(), check: 'observed.iswc-handling' as const },
        ];
        for (const s of steps) {
          await ctx.send({ label: s.label, operation: OP, probe: 'open-point', request: bodyRequest(OP, 'json', s.body, { query: s.query }), expect: [expectCheck(s.check, { because: `merge: ${s.label}` })] });
        }
      },
    },
  ];
}

/** Did the target answer a 2xx (a request it took)? */
export function succeeded(exchange: Exchange): boolean {
  const status = statusOf(exchange);
  return status !== null && status >= 200 && status < 300;
}
