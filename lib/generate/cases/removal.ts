import { operation } from '../../contract/operations.ts';
import { withWrongCheckDigit } from '../../contract/iswc.ts';
import type { DemergeEntry, SubmissionEntry, TargetProfile } from '../../contract/profile/types.ts';
import type { CaseDef } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { queryRequest } from '../requests.ts';
import { baseQuery, existingIswc, otherAgency, queryFor, sampleWorkCode, unknownIswc } from '../templates.ts';
import { keyOnShapes, keyProofs } from './key-proofs.ts';
import { readBack, readBackPart } from './read-back.ts';

const DELETE = 'deleteSubmission';
const DEMERGE = 'demergeIswcMetadata';

/** The values a delete names otherwise, each a part of delete.identity but the first: its id, and what is named otherwise. */
const DELETE_OTHERS = [
  ['other-sourceDb', 'sourceDb'],
  ['other-agency', 'agency'],
  ['other-workcode', 'work code'],
  ['other-preferred', 'preferred ISWC'],
  ['sourceDb-past-32-bits', 'sourceDb past 32 bits'],
  // 0 names no source database: a server reading it as any (a wildcard, a default) finds the submission.
  ['sourceDb-zero', 'sourceDb, 0'],
] as const;

/** The value of DELETE_OTHERS the core of delete.identity names otherwise (see its parts). */
const CORE_OTHER = 'other-sourceDb';

/** The values a demerge names otherwise, each a part of demerge.identity. */
const DEMERGE_OTHERS = [
  ['other-agency', 'agency'],
  ['other-workcode', 'work code'],
  ['other-preferred', 'preferred ISWC'],
] as const;

/** The key on the request's other shapes (no Content-Type, Accept of the other format, a parameter twice): a part of its own. */
const KEY_SHAPES_PART = { id: 'key-shapes', title: 'the key refused on each other shape of the request (no Content-Type, an Accept of the other format, a query parameter given twice), the entry still there' } as const;

function submissionQuery(profile: TargetProfile, s: SubmissionEntry, sourceDb = s.sourceDb) {
  return queryFor(DELETE, { preferredIswc: s.preferredIswc, agency: s.agency, workcode: s.workcode, sourceDb, reasonCode: profile.reasonCode });
}

/** Submission delete (4.3) and demerge (4.4): operations without a body, run once ('none' format). */
export function removalCases(profile: TargetProfile): CaseDef[] {
  const del = operation(DELETE);
  const dem = operation(DEMERGE);
  const authCases = (opId: typeof DELETE | typeof DEMERGE): CaseDef[] =>
    (['none', 'wrong'] as const).map((auth) => ({
      id: `${opId === DELETE ? 'delete' : 'demerge'}.auth.${auth}`,
      title: `${operation(opId).method} ${operation(opId).path} with ${auth === 'none' ? 'no' : 'a wrong'} key: refused`,
      operation: opId,
      formats: ['none'],
      tags: ['@smoke', '@auth'],
      async run(ctx) {
        await ctx.send({
          label: `${auth === 'none' ? 'missing' : 'wrong'} key`,
          operation: opId,
          request: queryRequest(opId, queryFor(opId, baseQuery(opId, profile, unknownIswc(profile))), { auth }),
          expect: [
            expectCheck('auth.required', { because: `the subscription key is ${auth === 'none' ? 'missing' : 'wrong'} (section 5.1)` }),
            expectCheck('observed.auth-answer', { because: `${operation(opId).summary} with ${auth === 'none' ? 'no' : 'a wrong'} key` }),
          ],
        });
      },
    }));
  /**
   * An unknown preferred ISWC, everything else naming existing data (a reserved entry, never consumed):
   * refused. The delete's 404 is "submission not found" and its 400 "invalid agency and work code
   * provided": a server that finds the submission by its work and checks the preferred ISWC next may answer
   * either. The demerge's metadata is merged into another preferred ISWC, and a server that finds it first
   * may call the request bad (400); a work merged nowhere would be a second fault of the request, which a
   * server that checks the work first refuses with 400 too (production's answer to metadata never merged).
   * So both demand a refusal, and no demerge demands one exact 404. A work the existing preferred ISWC does
   * not have: the document lets 400 or 404 answer it, so either refuses it.
   */
  const unknownCase = (opId: typeof DELETE | typeof DEMERGE, neverLabel: string, neverBecause: string): CaseDef => {
    const op = operation(opId);
    const unknown = unknownIswc(profile);
    const kind = opId === DELETE ? 'submissions' : 'demerges';
    return {
      id: `${opId === DELETE ? 'delete' : 'demerge'}.unknown`,
      title: `${op.method} ${op.path} naming an unknown preferred ISWC: refused; naming a work it does not have: refused @smoke`,
      operation: opId,
      formats: ['none'],
      tags: ['@smoke'],
      claims: [{ kind, count: 1, readOnly: true }],
      async run(ctx) {
        const entry = ctx.entries[kind]?.[0] as Partial<SubmissionEntry> | undefined;
        if (!entry) throw new Error(`no reserved ${kind} entry allocated`);
        await ctx.send({
          label: 'unknown preferred ISWC',
          operation: opId,
          request: queryRequest(opId, queryFor(opId, { ...baseQuery(opId, profile), ...entry, preferredIswc: unknown })),
          expect: [
            expectCheck('status.refused', { because: `${unknown} does not exist; agency and work code are those of the profile's ${JSON.stringify(entry)} (section ${op.section})` }),
            expectCheck('observed.refusal', { because: `${opId === DELETE ? 'a delete' : 'a demerge'} naming an unknown preferred ISWC and existing metadata: which error status refuses it` }),
          ],
        });
        await ctx.send({
          label: neverLabel,
          operation: opId,
          request: queryRequest(opId, queryFor(opId, baseQuery(opId, profile, existingIswc(profile)))),
          expect: [
            expectCheck('status.refused', { because: `${neverBecause} (section ${op.section})` }),
            expectCheck('observed.refusal', { because: `${op.summary}: ${neverLabel}: which error status refuses it` }),
          ],
        });
      },
    };
  };
  return [
    {
      id: 'delete.success-then-repeat',
      title: `DELETE ${del.path}: a profile submission, refused without the key, with an empty and with a wrong key, deletes with it (204); a repeat is refused @smoke @destructive`,
      operation: DELETE,
      formats: ['none'],
      tags: ['@smoke', '@destructive'],
      claims: [{ kind: 'submissions', count: 1 }],
      parts: [readBackPart('the delete')],
      readsBack: true,
      async run(ctx) {
        const s = ctx.entries.submissions?.[0] as SubmissionEntry | undefined;
        if (!s) throw new Error('no submission entry allocated');
        const request = queryRequest(DELETE, submissionQuery(profile, s));
        // Without the key, with an empty one and with a wrong one first: refused, and without effect, since the delete with the key then succeeds.
        await keyProofs(ctx, DELETE, request, 'delete profile submission', 'this delete succeeds (sections 5.1, 4.3)');
        await ctx.send({ label: 'delete profile submission', operation: DELETE, request, expect: [expectCheck('status.success', { because: `the target profile lists this submission (section ${del.section})` })] });
        await ctx.send({
          label: 'repeat the delete',
          operation: DELETE,
          request,
          expect: [expectCheck('outcome.delete', { because: 'the delete just removed this submission (section 3)' }), expectCheck('observed.refusal', { because: 'a repeated delete: which error status refuses it' })],
        });
        await readBack(ctx, { label: 'repeat the delete at the run\'s end', operation: DELETE, request, expect: [expectCheck('outcome.delete', { because: 'the delete at the start of the run removed this submission, and nothing since brings a deleted submission back (section 3)' })] });
      },
    },
    {
      id: 'delete.identity',
      title: `DELETE ${del.path} naming another sourceDb (or one past 32 bits), agency, work code or preferred ISWC: refused each time, and the submission is still there (204) @destructive`,
      operation: DELETE,
      formats: ['none'],
      tags: ['@destructive'],
      claims: [{ kind: 'submissions', count: 1 }],
      // Each value named otherwise is a part of its own, and so are the key's shapes (issue 37): a budget proves
      // the delete's identity by one value, and its key by one part, each refused on the submission still there.
      // The other sourceDb stays in the core: production ignores sourceDb (fixtures/waivers/production-as-built.yaml),
      // and a waiver of this case is exercised whenever the case is sent, whichever parts a budget takes.
      parts: [...DELETE_OTHERS.filter(([id]) => id !== CORE_OTHER).map(([id, what]) => ({ id, title: `a delete naming another ${what} refused, the submission still there` })), KEY_SHAPES_PART],
      async run(ctx) {
        const s = ctx.entries.submissions?.[0] as SubmissionEntry | undefined;
        if (!s) throw new Error('no submission entry allocated');
        // Section 2.5: the submission is identified by all four values; naming any other one finds nothing.
        const changes: Record<(typeof DELETE_OTHERS)[number][0], Partial<SubmissionEntry>> = {
          'other-sourceDb': { sourceDb: otherSourceDb(profile, s) },
          'other-agency': { agency: otherAgency(s.agency) },
          'other-workcode': { workcode: otherWorkCode(s.workcode) },
          'other-preferred': { preferredIswc: otherExisting(profile, s.preferredIswc) },
          // Past int32 (4.3, 8) and equal to it modulo 2^32: a server that wraps the number finds the submission.
          'sourceDb-past-32-bits': { sourceDb: s.sourceDb + 2 ** 32 },
          'sourceDb-zero': { sourceDb: s.sourceDb === 0 ? otherSourceDb(profile, s) : 0 },
        };
        for (const [id, what] of DELETE_OTHERS) {
          const named = { ...s, ...changes[id] };
          const send = async (): Promise<void> => {
            await ctx.send({
              label: `delete naming another ${what}`,
              operation: DELETE,
              request: queryRequest(DELETE, submissionQuery(profile, named)),
              expect: [
                expectCheck('status.refused', { because: `no submission has this ${what}; the profile's is ${JSON.stringify(s)} (sections 2.5, 4.3)`, sections: ['2.5', '4.3'] }),
                expectCheck('observed.refusal', { because: `a delete naming another ${what}: which error status refuses it` }),
              ],
            });
          };
          if (id === CORE_OTHER) await send();
          else await ctx.part(id, send);
        }
        // The key on the request's other shapes (issue 38), on the submission still there: a success shows the key skipped.
        await ctx.part(KEY_SHAPES_PART.id, async () => {
          await keyOnShapes(ctx, DELETE, queryRequest(DELETE, submissionQuery(profile, s)), 'delete the submission', 'this delete succeeds (sections 5.1, 4.3)');
        });
        await ctx.send({
          label: 'delete naming the submission rightly',
          operation: DELETE,
          request: queryRequest(DELETE, submissionQuery(profile, s)),
          expect: [expectCheck('outcome.identity', { because: 'the deletes naming another value must have left this submission in place (section 2.5)' })],
        });
        // Its work code left out, then empty, now that it is gone, naming its preferred ISWC, which exists: a
        // server that looks the preferred ISWC up first reaches the missing value (which parameters are
        // required is not shown: only recorded; a 5xx is still a failure).
        for (const [label, value] of [['no workcode', undefined], ['empty workcode', '']] as const) {
          await ctx.send({
            label: `delete with ${label}, naming the deleted submission's preferred ISWC`,
            operation: DELETE,
            probe: 'open-point',
            request: queryRequest(DELETE, queryFor(DELETE, { preferredIswc: s.preferredIswc, agency: s.agency, workcode: value, sourceDb: s.sourceDb, reasonCode: profile.reasonCode })),
            expect: [expectCheck('observed.requiredness', { because: `submission delete: ${label}, naming ${s.preferredIswc}, whose submission was just deleted (which query parameters are required is not shown, section 4)`, facts: { parameter: 'workcode', sent: value === undefined ? 'absent' : 'empty' } })],
          });
        }
      },
    },
    unknownCase(DELETE, 'work code never submitted', `no submission of ${sampleWorkCode(profile)} exists on ${existingIswc(profile)}`),
    {
      id: 'delete.observed',
      title: `DELETE ${del.path} with points the document leaves open (observed)`,
      operation: DELETE,
      formats: ['none'],
      tags: ['@observed'],
      async run(ctx) {
        const base = baseQuery(DELETE, profile);
        const steps = [
          { label: 'no reasonCode', query: { ...base, reasonCode: undefined }, check: 'observed.reason-code' as const },
          { label: 'blank reasonCode', query: { ...base, reasonCode: ' ' }, check: 'observed.reason-code' as const },
          { label: 'malformed preferredIswc', query: { ...base, preferredIswc: 't123' }, check: 'observed.iswc-handling' as const },
          { label: 'preferredIswc with a wrong check digit', query: { ...base, preferredIswc: withWrongCheckDigit(existingIswc(profile)) }, check: 'observed.iswc-handling' as const },
        ];
        for (const s of steps) {
          await ctx.send({ label: s.label, operation: DELETE, probe: 'open-point', request: queryRequest(DELETE, queryFor(DELETE, s.query)), expect: [expectCheck(s.check, { because: `submission delete: ${s.label}` })] });
        }
      },
    },
    ...authCases(DELETE),
    {
      id: 'demerge.success-then-repeat',
      title: `DELETE ${dem.path}: profile metadata, refused without the key, with an empty and with a wrong key, demerges with it (204); a repeat is refused @smoke @destructive`,
      operation: DEMERGE,
      formats: ['none'],
      tags: ['@smoke', '@destructive'],
      claims: [{ kind: 'demerges', count: 1 }],
      parts: [readBackPart('the demerge')],
      readsBack: true,
      async run(ctx) {
        const d = ctx.entries.demerges?.[0] as DemergeEntry | undefined;
        if (!d) throw new Error('no demerge entry allocated');
        const request = queryRequest(DEMERGE, queryFor(DEMERGE, { preferredIswc: d.preferredIswc, agency: d.agency, workcode: d.workcode }));
        await keyProofs(ctx, DEMERGE, request, 'demerge profile metadata', 'this demerge succeeds (sections 5.1, 4.4)');
        await ctx.send({ label: 'demerge profile metadata', operation: DEMERGE, request, expect: [expectCheck('status.success', { because: `the target profile lists this metadata as merged (section ${dem.section})` })] });
        await ctx.send({
          label: 'repeat the demerge',
          operation: DEMERGE,
          request,
          expect: [expectCheck('outcome.demerge', { because: 'the demerge just removed this metadata (section 3)' }), expectCheck('observed.refusal', { because: 'a repeated demerge: which error status refuses it' })],
        });
        await readBack(ctx, { label: 'repeat the demerge at the run\'s end', operation: DEMERGE, request, expect: [expectCheck('outcome.demerge', { because: 'the demerge at the start of the run removed this metadata, and no request since merged it again (section 3)' })] });
      },
    },
    {
      id: 'demerge.identity',
      title: `DELETE ${dem.path} naming another agency, work code or preferred ISWC: refused each time, and the metadata still demerges (204); metadata merged into another preferred ISWC is left alone (204) @destructive`,
      operation: DEMERGE,
      formats: ['none'],
      tags: ['@destructive'],
      // Two entries: the second, merged into another preferred ISWC, shows that demerging the first left it
      // alone ("exactly one preferred ISWC", 4.4). Nothing reads metadata but a demerge, which consumes it.
      // Under the same preferred ISWC it shows nothing: one merge request may have carried both works, and
      // a demerge of one then removes both ("one set of metadata").
      claims: [{ kind: 'demerges', count: 2 }],
      needs: [{ apart: 'demerges', index: 1, from: 0, checks: ['outcome.demerge-one'] }],
      parts: [...DEMERGE_OTHERS.map(([id, what]) => ({ id, title: `a demerge naming another ${what} refused, the metadata still merged` })), KEY_SHAPES_PART],
      async run(ctx) {
        const [d, elsewhere] = (ctx.entries.demerges ?? []) as Array<DemergeEntry | undefined>;
        if (!d || !elsewhere) throw new Error('no demerge entries allocated');
        const q = (e: DemergeEntry) => queryFor(DEMERGE, { preferredIswc: e.preferredIswc, agency: e.agency, workcode: e.workcode });
        const changes: Record<(typeof DEMERGE_OTHERS)[number][0], Partial<DemergeEntry>> = {
          'other-agency': { agency: otherAgency(d.agency) },
          'other-workcode': { workcode: otherWorkCode(d.workcode) },
          // A preferred ISWC with metadata of its own when the profile has one (the other entry's): a server
          // that finds "some" metadata there, not this one, shows it.
          'other-preferred': { preferredIswc: elsewhere.preferredIswc !== d.preferredIswc ? elsewhere.preferredIswc : otherExisting(profile, d.preferredIswc) },
        };
        for (const [id, what] of DEMERGE_OTHERS) {
          await ctx.part(id, async () => {
            await ctx.send({
              label: `demerge naming another ${what}`,
              operation: DEMERGE,
              request: queryRequest(DEMERGE, q({ ...d, ...changes[id] })),
              expect: [
                expectCheck('status.refused', { because: `this metadata is merged under another ${what}: ${JSON.stringify(d)} (section 4.4)`, sections: ['4.4'] }),
                expectCheck('observed.refusal', { because: `a demerge naming another ${what}: which error status refuses it` }),
              ],
            });
          });
        }
        // The key on the request's other shapes (issue 38), on the metadata still merged: a success shows the key skipped.
        await ctx.part(KEY_SHAPES_PART.id, async () => {
          await keyOnShapes(ctx, DEMERGE, queryRequest(DEMERGE, q(d)), 'demerge the metadata', 'this demerge succeeds (sections 5.1, 4.4)');
        });
        await ctx.send({
          label: 'demerge naming the metadata rightly',
          operation: DEMERGE,
          request: queryRequest(DEMERGE, q(d)),
          expect: [expectCheck('outcome.identity', { because: 'the demerges naming another value must have left this metadata in place (section 4.4)', sections: ['4.4'] })],
        });
        if (elsewhere.preferredIswc === d.preferredIswc) return;
        await ctx.send({
          label: 'demerge the metadata of another preferred ISWC',
          operation: DEMERGE,
          request: queryRequest(DEMERGE, q(elsewhere)),
          expect: [
            expectCheck('outcome.demerge-one', {
              because: `${elsewhere.agency}/${elsewhere.workcode} is merged into ${elsewhere.preferredIswc}, and the demerge of ${d.agency}/${d.workcode} removed metadata from ${d.preferredIswc} alone (section 4.4: exactly one preferred ISWC)`,
            }),
          ],
        });
      },
    },
    unknownCase(DEMERGE, 'work never merged', `${sampleWorkCode(profile)} was never merged into ${existingIswc(profile)}`),
    {
      id: 'demerge.observed',
      title: `DELETE ${dem.path} with a malformed preferredIswc (observed)`,
      operation: DEMERGE,
      formats: ['none'],
      tags: ['@observed'],
      async run(ctx) {
        await ctx.send({
          label: 'malformed preferredIswc',
          operation: DEMERGE,
          probe: 'open-point',
          request: queryRequest(DEMERGE, queryFor(DEMERGE, { ...baseQuery(DEMERGE, profile), preferredIswc: 'T12345' })),
          expect: [expectCheck('observed.iswc-handling', { because: 'demerge: malformed preferredIswc' })],
        });
      },
    },
    ...authCases(DEMERGE),
  ];
}

/** The same work code with its last character changed (same length, within its limit). */
function otherWorkCode(workcode: string): string {
  const chars = [...workcode];
  const last = chars.pop() ?? '';
  // Different however case is compared (a case-insensitive database collation finds 'z' as 'Z').
  return `${chars.join('')}${/[zZ]/.test(last) ? 'Y' : 'Z'}`;
}

/** Another ISWC that exists in the target, for requests that must not match. */
function otherExisting(profile: TargetProfile, iswc: string): string {
  return profile.iswcs.find((i) => i !== iswc) ?? unknownIswc(profile, 2);
}

/**
 * Another sourceDb than the submission's: one of the profile's where there is one (a key scoped to the
 * profile's source databases acts for it, so the delete reaches the lookup), never one that names another
 * submission of the profile with the same agency, work code and preferred ISWC; else 300.
 */
function otherSourceDb(profile: TargetProfile, s: SubmissionEntry): number {
  const same = (db: number) => profile.submissions.some((x) => x.sourceDb === db && x.agency === s.agency && x.workcode === s.workcode && x.preferredIswc === s.preferredIswc);
  return profile.submissions.map((x) => x.sourceDb).find((db) => db !== s.sourceDb && !same(db)) ?? (s.sourceDb === 300 ? 301 : 300);
}
