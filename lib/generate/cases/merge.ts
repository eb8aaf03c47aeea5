import type { Format } from '../../contract/codec/index.ts';
import { resourceSchema } from '../../contract/constraints.ts';
import { deref } from '../../contract/openapi.ts';
import { operation } from '../../contract/operations.ts';
import { withWrongCheckDigit } from '../../contract/iswc.ts';
import type { MergeEntry, TargetProfile } from '../../contract/profile/types.ts';
import type { CaseDef } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, queryRequest, rawBodyRequest } from '../requests.ts';
import { emptyMerge, existingIswc, queryFor, unknownIswc } from '../templates.ts';

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

export function mergeCases(profile: TargetProfile): CaseDef[] {
  const section = op().section;
  const arrays = Object.entries(resourceSchema('MergeRequest').properties ?? {}).filter(([, raw]) => deref(raw).type === 'array');
  return [
    {
      id: 'merge.success-then-demerge',
      title: `POST ${op().path}: a profile merge, refused without the key, gets 204 with it; its agency work then demerges (204); a repeat demerge is refused @smoke @destructive`,
      operation: OP,
      formats: BOTH,
      tags: ['@smoke', '@destructive'],
      claims: [{ kind: 'merges', count: 1 }],
      // What is merged and then demerged are the entry's agency works: without one, only the merge is shown.
      needs: [
        { entry: 'merges', index: 0, list: 'agencyWorks', atLeast: 1, checks: ['outcome.merge', 'outcome.demerge', 'observed.refusal'] },
        { entry: 'merges', index: 0, list: 'agencyWorks', atLeast: 2, checks: ['outcome.demerge-one'] },
      ],
      async run(ctx) {
        const entry = (ctx.entries.merges?.[0] ?? null) as MergeEntry | null;
        if (!entry) throw new Error('no merge entry allocated');
        // Two agency works or more: the last one is merged by a request of its own, so that demerging the
        // first one leaves it merged whether "one set of metadata" (4.4) means one work or one merge request.
        const works = entry.agencyWorks ?? [];
        const last = works.length >= 2 ? works[works.length - 1] : undefined;
        const firstBody = last ? mergeBody({ ...entry, agencyWorks: works.slice(0, -1) }) : mergeBody(entry);
        const query = { query: mergeQuery(entry.preferredIswc, profile.agency) };
        // The same merge without the key first: refused, and without effect, since the merge with the key succeeds.
        await ctx.send({
          label: 'merge profile entry without the key',
          operation: OP,
          request: bodyRequest(OP, asFormat(ctx.format), firstBody, { ...query, auth: 'none' }),
          expect: [expectCheck('auth.required', { because: 'the subscription key is missing; with it this merge is accepted (sections 5.1, 4.2)' })],
        });
        await ctx.send({
          label: 'merge profile entry',
          operation: OP,
          request: bodyRequest(OP, asFormat(ctx.format), firstBody, query),
          expect: [expectCheck('status.success', { because: `the target profile lists this merge as accepted (section ${section})` })],
        });
        if (last) {
          await ctx.send({
            label: 'merge its last agency work on its own',
            operation: OP,
            request: bodyRequest(OP, asFormat(ctx.format), mergeBody({ preferredIswc: entry.preferredIswc, iswcs: [], agencyWorks: [last] }), query),
            expect: [expectCheck('status.success', { because: `the target profile lists this agency work in an accepted merge into ${entry.preferredIswc} (section ${section})` })],
          });
        }
        const work = works[0];
        if (!work) return;
        const demerge = queryRequest(DEMERGE, queryFor(DEMERGE, { preferredIswc: entry.preferredIswc, agency: work.agencyCode, workcode: work.agencyWorkCode }));
        await ctx.send({
          label: 'demerge the merged work',
          operation: DEMERGE,
          request: demerge,
          expect: [expectCheck('outcome.merge', { because: `the merge just made ${work.agencyCode}/${work.agencyWorkCode} part of ${entry.preferredIswc} (section 3)` })],
        });
        const second = last;
        if (second) {
          await ctx.send({
            label: 'demerge the other merged work',
            operation: DEMERGE,
            request: queryRequest(DEMERGE, queryFor(DEMERGE, { preferredIswc: entry.preferredIswc, agency: second.agencyCode, workcode: second.agencyWorkCode })),
            expect: [expectCheck('outcome.demerge-one', { because: `the first demerge removed the metadata of ${work.agencyWorkCode}; ${second.agencyWorkCode}, merged by a request of its own, is still merged (section 4.4)` })],
          });
        }
        await ctx.send({
          label: 'repeat the demerge',
          operation: DEMERGE,
          request: demerge,
          expect: [expectCheck('outcome.demerge', { because: 'the demerge just removed this metadata (section 3)' }), expectCheck('observed.refusal', { because: 'a repeated demerge: which error status refuses it' })],
        });
      },
    },
    {
      id: 'merge.no-content-type',
      title: `POST ${op().path} without Content-Type: understood in JSON (204), recorded in XML @destructive`,
      operation: OP,
      formats: BOTH,
      tags: ['@destructive'],
      claims: [{ kind: 'merges', count: 1 }],
      async run(ctx) {
        const entry = (ctx.entries.merges?.[0] ?? null) as MergeEntry | null;
        if (!entry) throw new Error('no merge entry allocated');
        const format = asFormat(ctx.format);
        await ctx.send({
          label: 'merge without Content-Type',
          operation: OP,
          request: bodyRequest(OP, format, mergeBody(entry), { query: mergeQuery(entry.preferredIswc, profile.agency), contentType: null }),
          ...(format === 'xml' ? { probe: 'open-point' as const } : {}),
          expect: [
            format === 'json'
              ? expectCheck('content-type.optional', { because: 'the profile lists this merge as accepted and Content-Type is optional (section 4.2)' })
              : expectCheck('observed.content-type-default', { because: 'a merge the profile lists as accepted, in XML without Content-Type' }),
          ],
        });
      },
    },
    {
      id: 'merge.unknown-preferred',
      title: `POST ${op().path} into an unknown preferred ISWC, with ISWCs or with agency works only: 404 @smoke`,
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
        // Agency works only (no ISWC to look up first): the unknown preferred ISWC is still not found.
        const work = profile.submissions[0];
        if (!work) return;
        await ctx.send({
          label: 'unknown preferred ISWC, agency works only',
          operation: OP,
          request: bodyRequest(OP, asFormat(ctx.format), { ...emptyMerge(), agencyWorks: [{ agencyCode: work.agency, agencyWorkCode: work.workcode }] }, { query: mergeQuery(unknownIswc(profile), profile.agency) }),
          expect: [expectCheck('status.not-found', { because: `${unknownIswc(profile)} does not exist in the target; the body names only the agency work ${work.agency}/${work.workcode} (section ${section})` })],
        });
      },
    },
    {
      id: 'merge.unknown-iswc',
      title: `POST ${op().path} of an unknown ISWC: refused (400 or 404)`,
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
        const variants: Array<{ label: string; body: string }> = [
          { label: 'body is an array', body: '[]' },
          { label: 'body is a string', body: '"MergeRequest"' },
        ];
        for (const [name] of arrays) {
          variants.push({ label: `${name} is a string`, body: JSON.stringify({ ...emptyMerge(), [name]: 'x' }) });
          variants.push({ label: `${name} is an object`, body: JSON.stringify({ ...emptyMerge(), [name]: {} }) });
          variants.push({ label: `an item of ${name} is a number`, body: JSON.stringify({ ...emptyMerge(), [name]: [42] }) });
        }
        for (const { label, body } of variants) {
          await ctx.send({
            label,
            operation: OP,
            request: rawBodyRequest(OP, 'json', body, { query: mergeQuery(existingIswc(profile), profile.agency) }),
            expect: [expectCheck('type.rejected', { because: `${label}, not a merge request (section 2.3)` })],
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
          { label: 'no agency parameter', query: queryFor(OP, { preferredIswc: existing }), body: emptyMerge(), check: 'observed.requiredness' as const },
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
