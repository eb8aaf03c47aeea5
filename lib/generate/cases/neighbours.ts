import { runIdOf } from '../../contract/answer.ts';
import type { Format } from '../../contract/codec/index.ts';
import type { FieldConstraint } from '../../contract/constraints.ts';
import type { Neighbour } from '../../contract/normalisations.ts';
import { lengthLimitOf } from '../../contract/normalisations.ts';
import type { OperationId } from '../../contract/operations.ts';
import { operation } from '../../contract/operations.ts';
import type { AgencyWorkRef, DemergeEntry, DisposableKind, MergeEntry, SubmissionEntry, TargetProfile } from '../../contract/profile/types.ts';
import type { CaseContext, CaseDef, Expectation } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { neighbourBecause, neighbourFields, neighboursToSend, restsOnEdgeWhitespace } from '../neighbours.ts';
import type { AtLimitValue, Need } from '../needs.ts';
import { atLimitValueOf } from '../needs.ts';
import { bodyRequest, queryRequest } from '../requests.ts';
import { bodyWith, countersWith, emptyMerge, queryFor, validAgentRun } from '../templates.ts';
import { mergeBody } from './merge.ts';

/**
 * Near neighbours of data the target holds, one case per field with a stated limit or pattern (issue 28):
 * each neighbour is a value a lenient reading of the field lands on data that exists, so a refusal is the only
 * conformant answer and a 2xx shows the fault. Where a 2xx would change data, the data is a disposable
 * entry's, and the case ends by naming it rightly (204): the entry was there, so the refusals meant
 * something, and none of them acted on it (section 1 shows no effect of a refused request; a request shows it).
 *
 * - the run notification: its agencyCode (the profile's agency) and each counter (a realistic count of 1,000,
 *   sent where counts belong: at the end of a run of its own, the other counters adding up around it);
 * - the merge: an ISWC of a merge entry, the agencyCode and the agencyWorkCode of one of its agency works, each
 *   alone in a merge into the entry's preferred ISWC; then the work is shown unmerged by a demerge that must be
 *   refused (a neighbour within the limits, a prefix or a LIKE pattern, names another work, which a server may
 *   merge), and the entry merges (204);
 * - the submission delete and the demerge: each query value of an entry, the others the entry's own; then the
 *   entry is deleted or demerged (204).
 */

const RUN = 'notifyAgentRun';
const MERGE = 'mergeIswcMetadata';
const DELETE = 'deleteSubmission';
const DEMERGE = 'demergeIswcMetadata';

/** A realistic count, held by no data: what a lenient integer reading of a counter lands on. */
const COUNT = 1000;

const asFormat = (f: string): Format => (f === 'xml' ? 'xml' : 'json');

function caseId(c: FieldConstraint): string {
  return `neighbours.${c.operation}.${c.location}.${c.field}`;
}

function titleOf(c: FieldConstraint, what: string): string {
  const op = operation(c.operation);
  return `${op.method} ${op.path} ${c.location} ${c.field}: near neighbours of ${what}, each read as it by a lenient server, refused`;
}

/** The check a neighbour is judged by: a body value past its limit, of no integer type, or a query value naming nothing. */
function refusalOf(c: FieldConstraint, n: Neighbour, because: string): Expectation {
  if (c.location === 'query') return n.valid ? expectCheck('status.refused', { because, sections: [...c.sections] }) : expectCheck('query.refused', { because, sections: [...c.sections] });
  const item = c.operation === MERGE && c.field.includes('[]') ? { notFoundFits: true } : {};
  if (c.type === 'integer' && typeof n.value === 'string') return expectCheck('type.rejected', { because, sections: [...c.sections, '7'], ...item });
  return expectCheck('limit.rejected', { because, sections: [...c.sections], ...item });
}

/** The neighbours a case sends in a format: in XML, none that rests on edge whitespace (binders may trim text). */
const inFormat = (list: readonly Neighbour[], format: string): Neighbour[] => list.filter((n) => format !== 'xml' || !restsOnEdgeWhitespace(n.value));

/** The run notification's agencyCode: starts of runs whose agency code is a neighbour of the profile's. */
function runAgencyCase(c: FieldConstraint, profile: TargetProfile): CaseDef | undefined {
  const held = profile.agency;
  const list = neighboursToSend(c, held, { valid: false });
  if (list.length === 0) return undefined;
  return {
    id: caseId(c),
    title: titleOf(c, `the profile's agency ${held}`),
    operation: RUN,
    formats: inFormat(list, 'xml').length > 0 ? ['json', 'xml'] : ['json'],
    tags: ['@neighbours'],
    async run(ctx) {
      for (const n of inFormat(list, ctx.format)) {
        await ctx.send({
          label: `agencyCode ${n.label}`,
          operation: RUN,
          request: bodyRequest(RUN, asFormat(ctx.format), bodyWith(validAgentRun(profile), c.field, n.value, profile)),
          expect: [refusalOf(c, n, neighbourBecause(c, n, held, `the profile's agency, and opens a run for it`))],
        });
      }
    },
  };
}

/**
 * A counter of the run notification: a run started for it, ended first with the counter a neighbour of a
 * realistic count and the other counters adding up around that count (a server may check that they do), then
 * with the count itself (200).
 */
function runCounterCase(c: FieldConstraint, profile: TargetProfile): CaseDef | undefined {
  const around = countersWith(c.field, COUNT);
  const list = neighboursToSend(c, COUNT, { valid: false });
  if (!around || list.length === 0) return undefined;
  return {
    id: caseId(c),
    title: titleOf(c, `a count of ${COUNT}`),
    operation: RUN,
    formats: ['json', 'xml'],
    tags: ['@neighbours'],
    async run(ctx) {
      const format = asFormat(ctx.format);
      const start = await ctx.send({ label: 'start a run to end', operation: RUN, request: bodyRequest(RUN, format, validAgentRun(profile)), expect: [] });
      const runId = runIdOf(start) ?? `iswc-conformance-unstarted-${ctx.seed}`;
      const body = (value: unknown): Record<string, unknown> => ({ ...validAgentRun(profile), ...around, [c.field]: value, runId });
      for (const n of list) {
        await ctx.send({
          label: `end the run with ${c.field} ${n.label}`,
          operation: RUN,
          request: bodyRequest(RUN, format, body(n.value)),
          expect: [refusalOf(c, n, neighbourBecause(c, n, COUNT, `a count the other counters add up around, and ends the run ${runId} with it`))],
        });
      }
      await ctx.send({
        label: `end the run with ${c.field} ${COUNT}`,
        operation: RUN,
        request: bodyRequest(RUN, format, body(COUNT)),
        expect: [expectCheck('status.success', { because: `a valid agent run carrying ${c.field} ${COUNT} and the runId the start answered (sections 2.1, 4.1)` })],
      });
    },
  };
}

/** The agency work of a merge entry whose neighbours a case sends: one whose code is at its limit if there is one. */
function workOf(entry: MergeEntry, limit: number | undefined): AgencyWorkRef | undefined {
  const works = entry.agencyWorks ?? [];
  return works.find((w) => limit !== undefined && Array.from(w.agencyWorkCode).length === limit) ?? works[0];
}

/** A merge entry's item, alone in a merge into its preferred ISWC: an ISWC, or an agency work with one value a neighbour. */
function mergeCase(c: FieldConstraint, profile: TargetProfile): CaseDef {
  const name = c.field.replace(/^agencyWorks\[\]\./, '');
  const iswcs = c.field === 'iswcs[]';
  const workCodeLimit = name === 'agencyWorkCode' ? lengthLimitOf(c) : undefined;
  const needs: Need[] = [iswcs ? { entry: 'merges', index: 0, list: 'iswcs', atLeast: 1 } : { entry: 'merges', index: 0, list: 'agencyWorks', atLeast: 1 }];
  if (workCodeLimit !== undefined) needs.push(atLimitNeed('merges', 'agencyWorkCode', workCodeLimit));
  return {
    id: caseId(c),
    title: `${titleOf(c, iswcs ? "a merge entry's ISWC" : `a merge entry's agency work`)}; the entry then merges @destructive`,
    operation: MERGE,
    formats: ['json'],
    tags: ['@neighbours', '@destructive'],
    claims: [{ kind: 'merges', count: 1 }],
    needs,
    async run(ctx) {
      const entry = ctx.entries.merges?.[0] as MergeEntry | undefined;
      if (!entry) throw new Error('no merge entry allocated');
      const query = { query: queryFor(MERGE, { preferredIswc: entry.preferredIswc, agency: profile.agency }) };
      const work = workOf(entry, workCodeLimit ?? workCodeLimitOf());
      const held = iswcs ? entry.iswcs?.[0] : work ? (work as unknown as Record<string, string>)[name] : undefined;
      if (held === undefined || (!iswcs && !work)) return;
      const list = neighboursToSend(c, held, { valid: true });
      const what = iswcs ? `an ISWC of the merge entry into ${entry.preferredIswc}, which the server then merges` : `the ${name} of the agency work ${work?.agencyCode}/${work?.agencyWorkCode} of the merge entry into ${entry.preferredIswc}, which the server then merges`;
      for (const n of list) {
        const body = iswcs ? { ...emptyMerge(), iswcs: [n.value] } : { ...emptyMerge(), agencyWorks: [{ ...work, [name]: n.value }] };
        // Within the limits a neighbour names another work, which a server may merge as it is (4.2 does not
        // refuse works it does not know): what it merged shows in the demerge below.
        await ctx.send({ label: `merge ${iswcs ? 'an ISWC' : `an agency work with ${name}`} ${n.label}`, operation: MERGE, request: bodyRequest(MERGE, 'json', body, query), expect: n.valid ? [] : [refusalOf(c, n, neighbourBecause(c, n, held, what))] });
      }
      if (work && !iswcs) {
        await ctx.send({
          label: `demerge ${work.agencyCode}/${work.agencyWorkCode}, which no merge named`,
          operation: DEMERGE,
          request: queryRequest(DEMERGE, queryFor(DEMERGE, { preferredIswc: entry.preferredIswc, agency: work.agencyCode, workcode: work.agencyWorkCode })),
          expect: [
            expectCheck('status.refused', {
              because: `${work.agencyCode}/${work.agencyWorkCode} was never merged into ${entry.preferredIswc}: the merges just sent named neighbours of its ${name}, each refused or another work (sections 4.2, 4.4)`,
              sections: ['4.2', '4.4'],
            }),
          ],
        });
      }
      await ctx.send({
        label: 'merge the entry',
        operation: MERGE,
        request: bodyRequest(MERGE, 'json', mergeBody(entry), query),
        expect: [expectCheck('status.success', { because: `the target profile lists this merge into ${entry.preferredIswc} as accepted; the neighbours of its data sent before were refused (section 4.2)` })],
      });
    },
  };
}

/** The limit of an agency work code (the schema's AgencyWorkCode). */
function workCodeLimitOf(): number | undefined {
  const c = neighbourFields().find((x) => x.component === 'AgencyWorkCode');
  return c ? lengthLimitOf(c) : undefined;
}

function atLimitNeed(kind: DisposableKind, value: AtLimitValue, length: number): Need {
  return { atLimit: kind, index: 0, value, length };
}

/** A query value of a delete or demerge entry: each neighbour with the entry's other values, then the entry named rightly (204). */
function removalCase(c: FieldConstraint): CaseDef {
  const opId = c.operation as typeof DELETE | typeof DEMERGE;
  const kind: DisposableKind = opId === DELETE ? 'submissions' : 'demerges';
  const limit = c.component === 'AgencyWorkCode' ? lengthLimitOf(c) : undefined;
  const op = operation(opId);
  return {
    id: caseId(c),
    title: `${titleOf(c, `a ${opId === DELETE ? 'submission' : 'demerge entry'}'s ${c.field}`)}; the entry is then ${opId === DELETE ? 'deleted' : 'demerged'} (204) @destructive`,
    operation: opId,
    formats: ['none'],
    tags: ['@neighbours', '@destructive'],
    claims: [{ kind, count: 1 }],
    ...(limit !== undefined ? { needs: [atLimitNeed(kind, 'workcode', limit)] } : {}),
    async run(ctx: CaseContext) {
      const entry = ctx.entries[kind]?.[0] as (SubmissionEntry | DemergeEntry) | undefined;
      if (!entry) throw new Error(`no ${kind} entry allocated`);
      const values: Record<string, string | number | undefined> = { ...entry, reasonCode: ctx.profile.reasonCode };
      const held = (limit !== undefined ? atLimitValueOf(entry, 'workcode', limit) : undefined) ?? values[c.field];
      if (held === undefined) return;
      const named = `${opId === DELETE ? 'the submission' : 'the metadata'} ${JSON.stringify(entry)}, which it then ${opId === DELETE ? 'deletes' : 'demerges'}`;
      for (const n of neighboursToSend(c, held, { valid: true })) {
        await ctx.send({
          label: `${opId === DELETE ? 'delete' : 'demerge'} naming ${c.field} ${n.label}`,
          operation: opId,
          request: queryRequest(opId, queryFor(opId, { ...values, [c.field]: n.value })),
          expect: [refusalOf(c, n, neighbourBecause(c, n, held, named)), expectCheck('observed.refusal', { because: `${op.summary.toLowerCase()} naming a near neighbour of the entry's ${c.field}: which error status refuses it` })],
        });
      }
      await ctx.send({
        label: `${opId === DELETE ? 'delete' : 'demerge'} naming the entry rightly`,
        operation: opId,
        request: queryRequest(opId, queryFor(opId, values)),
        expect: [expectCheck('outcome.identity', { because: `the requests naming neighbours of its ${c.field} must have left ${JSON.stringify(entry)} in place (sections 2.5, ${op.section})`, sections: ['2.5', op.section] })],
      });
    },
  };
}

/** One case per field with a stated limit or pattern, of every operation. */
export function neighbourCases(profile: TargetProfile): CaseDef[] {
  const out: CaseDef[] = [];
  for (const c of neighbourFields()) {
    const kind: Record<OperationId, () => CaseDef | undefined> = {
      notifyAgentRun: () => (c.type === 'integer' ? runCounterCase(c, profile) : runAgencyCase(c, profile)),
      mergeIswcMetadata: () => (c.location === 'body' ? mergeCase(c, profile) : undefined),
      deleteSubmission: () => removalCase(c),
      demergeIswcMetadata: () => removalCase(c),
    };
    const made = kind[c.operation]();
    if (made) out.push(made);
  }
  return out;
}
