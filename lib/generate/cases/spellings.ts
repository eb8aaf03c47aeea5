import type { Format } from '../../contract/codec/index.ts';
import type { Spelling } from '../../contract/codec/spellings.ts';
import { ALL_AT_ONCE_PART, bodyAllAtOnce, bodySpellings, KEY_HEADER_LOWER, queryAllAtOnce, querySpellings } from '../../contract/codec/spellings.ts';
import { runIdOf, statusOf } from '../../contract/answer.ts';
import type { RequestSpec } from '../../contract/exchange.ts';
import type { OperationId } from '../../contract/operations.ts';
import { operation } from '../../contract/operations.ts';
import type { TargetProfile } from '../../contract/profile/types.ts';
import type { CaseContext, CaseDef, CasePart, Step } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, queryRequest, rawBodyRequest } from '../requests.ts';
import { baseQuery, emptyMerge, otherIswc, queryFor, unknownIswc, validAgentRun, validWork } from '../templates.ts';

/**
 * Valid spellings (issue 38): each operation's request sent plainly, then spelled each other way the
 * codecs derive (lib/contract/codec/spellings.ts), each spelling a part, so that a budget takes one at a
 * time. A spelling every reader takes alike must get the plain request's answer (`spelling.read-alike`);
 * one readers take differently is recorded. The plain requests change nothing: a run is started and
 * ended, the merge goes to an unknown preferred ISWC, the delete and the demerge name a work code nothing
 * has on an existing ISWC; so the spellings run in every mode.
 */

const RUN = 'notifyAgentRun';
const MERGE = 'mergeIswcMetadata';
const DELETE = 'deleteSubmission';
const DEMERGE = 'demergeIswcMetadata';

/** What a spelling's part does with its spelled request. */
interface Spelled {
  spelling: Spelling;
  request: RequestSpec;
}

const part = (s: Spelling): CasePart => ({ id: s.id, title: `${s.label}: ${s.gated ? 'the answer of the plain request' : 'recorded'}` });

/**
 * The request spelled every way every reader takes alike, at once: one request that a server refusing any
 * one of them refuses, so that a budget proves them all before it spends a request on each (the spellings
 * alone, in parts of their own, then say which). Its part comes first.
 */
const ALL_AT_ONCE: CasePart = { id: ALL_AT_ONCE_PART, title: 'every spelling every reader takes alike, at once: the answer of the plain request' };

function allAtOnceStep(opId: OperationId, spellings: readonly Spelling[], request: RequestSpec, plainStatus: number | null, section: string): Step {
  const gated = spellings.filter((s) => s.gated);
  // One text cannot be both: bodyAllAtOnce writes them in turn.
  const labels = gated.map((s) => (s.id === 'xml-cdata' ? 'the texts in CDATA sections and as character references, in turn' : s.label)).filter((_, i) => gated[i]?.id !== 'xml-char-refs');
  return {
    label: `spelled every way at once: ${labels.join('; ')}`,
    operation: opId,
    request,
    expect: [
      expectCheck('spelling.read-alike', {
        plainStatus,
        because: `every reader takes each of these spellings alike (${gated.map((s) => s.rule).join('; ')}), so all of them together too; the plain request got ${plainStatus ?? 'no answer'} (section ${section}). A full run sends each alone, in a part of its own, and says which one the server reads otherwise`,
      }),
    ],
  };
}

function spelledStep(opId: OperationId, s: Spelled, plainStatus: number | null, section: string): Step {
  return s.spelling.gated
    ? { label: s.spelling.label, operation: opId, request: s.request, expect: [expectCheck('spelling.read-alike', { plainStatus, because: `${s.spelling.rule}; the plain request got ${plainStatus ?? 'no answer'} (section ${section})` })] }
    : { label: s.spelling.label, operation: opId, probe: 'open-point', request: s.request, expect: [expectCheck('observed.lenient-syntax', { because: `${s.spelling.label}: ${s.spelling.rule}` })] };
}

function runSpellings(profile: TargetProfile, format: Format): CaseDef {
  const op = operation(RUN);
  const start = validAgentRun(profile);
  const spelled: Spelled[] = [
    ...bodySpellings(format, 'AgentRun', start).map((spelling) => ({ spelling, request: rawBodyRequest(RUN, format, spelling.body) })),
    { spelling: KEY_HEADER_LOWER, request: { ...bodyRequest(RUN, format, start), keyHeaderLower: true } },
  ];
  return {
    id: `run.${format}-spellings`,
    title: `POST ${op.path}: a run started with its ${format.toUpperCase()} body spelled each other way every reader takes alike, and with the key header named in lower case: 200 as when spelled plainly; spellings readers take differently recorded`,
    operation: RUN,
    formats: [format],
    tags: ['@spelling'],
    parts: [ALL_AT_ONCE, ...spelled.map((s) => part(s.spelling))],
    async run(ctx) {
      // Each start is ended before the next: a target may let an agency have one run open at a time.
      const end = async (started: ReturnType<typeof runIdOf>, label: string): Promise<void> => {
        if (started === undefined) return;
        await ctx.send({
          label: `end the run ${label}`,
          operation: RUN,
          request: bodyRequest(RUN, format, { ...validAgentRun(profile, 1), runId: started }),
          expect: [expectCheck('status.success', { because: `a valid agent run carrying the runId ${started} the start answered (section 2.1) gets 200 (section ${op.section})` })],
        });
      };
      const plain = await ctx.send({
        label: 'start a run, spelled plainly',
        operation: RUN,
        request: bodyRequest(RUN, format, start),
        expect: [expectCheck('status.success', { because: `a valid agent run (section 2.1) gets 200 (section ${op.section})` })],
      });
      await end(runIdOf(plain), 'started plainly');
      const plainStatus = statusOf(plain);
      await ctx.part(ALL_AT_ONCE.id, async () => {
        const request = { ...rawBodyRequest(RUN, format, bodyAllAtOnce(format, 'AgentRun', start)), keyHeaderLower: true };
        const answer = await ctx.send(allAtOnceStep(RUN, spelled.map((s) => s.spelling), request, plainStatus, op.section));
        await end(runIdOf(answer), 'started spelled every way at once');
      });
      for (const s of spelled) {
        await ctx.part(s.spelling.id, async () => {
          const answer = await ctx.send(spelledStep(RUN, s, plainStatus, op.section));
          await end(runIdOf(answer), `started with ${s.spelling.label}`);
        });
      }
    },
  };
}

/** A merge into an unknown preferred ISWC of an existing ISWC and a work: refused, whatever the spelling. */
function mergeSpellings(profile: TargetProfile, format: Format): CaseDef {
  const op = operation(MERGE);
  const preferred = unknownIswc(profile);
  const work = profile.submissions[0];
  const body = { ...emptyMerge(), iswcs: [otherIswc(profile)], agencyWorks: [work ? { agencyCode: work.agency, agencyWorkCode: work.workcode } : validWork(profile)] };
  const query = queryFor(MERGE, { preferredIswc: preferred, agency: profile.agency });
  const spelled: Spelled[] = [
    ...bodySpellings(format, 'MergeRequest', body).map((spelling) => ({ spelling, request: rawBodyRequest(MERGE, format, spelling.body, { query }) })),
    ...querySpellings(query).map((spelling) => ({ spelling, request: { ...bodyRequest(MERGE, format, body), rawQuery: spelling.rawQuery } })),
    { spelling: KEY_HEADER_LOWER, request: { ...bodyRequest(MERGE, format, body, { query }), keyHeaderLower: true } },
  ];
  return {
    id: `merge.${format}-spellings`,
    title: `POST ${op.path} into an unknown preferred ISWC, its ${format.toUpperCase()} body and its query spelled each other way every reader takes alike, and with the key header named in lower case: the answer of the plain request; spellings readers take differently recorded`,
    operation: MERGE,
    formats: [format],
    tags: ['@spelling'],
    parts: [ALL_AT_ONCE, ...spelled.map((s) => part(s.spelling))],
    async run(ctx) {
      const plain = await ctx.send({
        label: 'the merge spelled plainly',
        operation: MERGE,
        request: bodyRequest(MERGE, format, body, { query }),
        expect: [expectCheck('status.refused', { because: `${preferred} does not exist in the target (profile unknownIswcs; section ${op.section})` })],
      });
      const request: RequestSpec = { ...rawBodyRequest(MERGE, format, bodyAllAtOnce(format, 'MergeRequest', body)), rawQuery: queryAllAtOnce(query), keyHeaderLower: true };
      await ctx.part(ALL_AT_ONCE.id, async () => void (await ctx.send(allAtOnceStep(MERGE, spelled.map((s) => s.spelling), request, statusOf(plain), op.section))));
      await sendSpelled(ctx, MERGE, spelled, statusOf(plain), op.section);
    },
  };
}

/** A delete or a demerge of a work code nothing has on an existing ISWC: refused, whatever the spelling. */
function removalSpellings(profile: TargetProfile, opId: typeof DELETE | typeof DEMERGE): CaseDef {
  const op = operation(opId);
  const query = queryFor(opId, baseQuery(opId, profile));
  const name = opId === DELETE ? 'delete' : 'demerge';
  const spellings = [...querySpellings(query), KEY_HEADER_LOWER];
  return {
    id: `${name}.spellings`,
    title: `${op.method} ${op.path} of a work code nothing has, its query spelled each other way every reader takes alike, and with the key header named in lower case: the answer of the plain request`,
    operation: opId,
    formats: ['none'],
    tags: ['@spelling'],
    parts: [ALL_AT_ONCE, ...spellings.map(part)],
    async run(ctx) {
      const plain = await ctx.send({
        label: `the ${name} spelled plainly`,
        operation: opId,
        request: queryRequest(opId, query),
        expect: [expectCheck('status.refused', { because: `no ${name === 'delete' ? 'submission' : 'merged work'} of that work code exists on that ISWC (section ${op.section})` })],
      });
      const request: RequestSpec = { ...queryRequest(opId, query), rawQuery: queryAllAtOnce(query), keyHeaderLower: true };
      await ctx.part(ALL_AT_ONCE.id, async () => void (await ctx.send(allAtOnceStep(opId, spellings, request, statusOf(plain), op.section))));
      const spelled: Spelled[] = spellings.map((spelling) => ({ spelling, request: 'rawQuery' in spelling ? { ...queryRequest(opId, query), rawQuery: spelling.rawQuery } : { ...queryRequest(opId, query), keyHeaderLower: true } }));
      await sendSpelled(ctx, opId, spelled, statusOf(plain), op.section);
    },
  };
}

async function sendSpelled(ctx: CaseContext, opId: OperationId, spelled: readonly Spelled[], plainStatus: number | null, section: string): Promise<void> {
  for (const s of spelled) await ctx.part(s.spelling.id, async () => void (await ctx.send(spelledStep(opId, s, plainStatus, section))));
}

export function spellingCases(profile: TargetProfile): CaseDef[] {
  return [runSpellings(profile, 'json'), runSpellings(profile, 'xml'), mergeSpellings(profile, 'json'), mergeSpellings(profile, 'xml'), removalSpellings(profile, DELETE), removalSpellings(profile, DEMERGE)];
}
