import { runIdOf } from '../../contract/answer.ts';
import type { Format } from '../../contract/codec/index.ts';
import { xmlRepresentable } from '../../contract/codec/xml.ts';
import type { FieldConstraint } from '../../contract/constraints.ts';
import type { Neighbour } from '../../contract/normalisations.ts';
import { lengthLimitOf, neighboursOf, normalisationsFor } from '../../contract/normalisations.ts';
import { fieldConstraints, isLimited } from '../../contract/constraints.ts';
import type { OperationId } from '../../contract/operations.ts';
import { operation } from '../../contract/operations.ts';
import type { AgencyWorkRef, DemergeEntry, DisposableKind, MergeEntry, SubmissionEntry, TargetProfile } from '../../contract/profile/types.ts';
import type { CaseContext, CaseDef, CasePart, Expectation, Step } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { neighbourBecause, neighbourFields, neighboursToSend, readingDoes, readingOf, restsOnEdgeWhitespace } from '../neighbours.ts';
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
 * - the run notification: its agencyCode (the profile's agency) and its counters (a realistic count of 1,000,
 *   sent where counts belong: at the end of one run, each counter in turn, the other counters adding up around
 *   it);
 * - the merge: an ISWC of a merge entry, the agencyCode and the agencyWorkCode of one of its agency works, each
 *   alone in a merge into the entry's preferred ISWC; then the work is shown unmerged by a demerge that must be
 *   refused (a neighbour within the limits, a prefix or a LIKE pattern, names another work, which a server may
 *   merge), and the entry merges (204);
 * - the submission delete and the demerge: each query value of an entry, the others the entry's own; then the
 *   entry is deleted or demerged (204).
 *
 * Each case sends each neighbour in a part of its own reading (CaseDef.parts, issue 31): a budget takes a
 * field's readings one at a time, each a complete proof, since each neighbour is judged alone and the case's
 * core (the run ended with the count, the entry named rightly) is sent whatever parts are taken. What the
 * core shows after the parts (a refused request that changed data) counts only for the whole case.
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
  // A neighbour within the constraint breaks no limit: it names data that does not exist (an ISWC whose check digit does not hold).
  if (n.valid) return expectCheck('status.refused', { because, sections: [...new Set([...c.sections, operation(c.operation).section])] });
  if (c.location === 'query') return expectCheck('query.refused', { because, sections: [...c.sections] });
  const item = c.operation === MERGE && c.field.includes('[]') ? { notFoundFits: true } : {};
  if (c.type === 'integer' && typeof n.value === 'string') return expectCheck('type.rejected', { because, sections: [...c.sections, '7'], ...item });
  return expectCheck('limit.rejected', { because, sections: [...c.sections], ...item });
}

/**
 * The id of a part: the reading, after the field for a case of several fields; a reading's second and later
 * neighbours (another variant: a leading space after a trailing one, a semicolon or a NUL after a comma) are
 * parts of their own, `<reading>.2`, `<reading>.3`, so that a budget proves a reading with one request.
 */
const partId = (prefix: string, reading: string, index = 1): string => `${prefix}${reading}${index > 1 ? `.${index}` : ''}`;

/** Each neighbour of a list with the part it is sent in: its reading, and its place among that reading's neighbours. */
function withParts(list: readonly Neighbour[], prefix: string): Array<{ n: Neighbour; part: string }> {
  const seen = new Map<string, number>();
  return list.map((n) => {
    const reading = readingOf(n);
    const index = (seen.get(reading) ?? 0) + 1;
    seen.set(reading, index);
    return { n, part: partId(prefix, reading, index) };
  });
}

/**
 * The parts of a neighbour case for a field: one per reading and neighbour of that reading some held value
 * is sent, in the order of the readings (lib/contract/normalisations.ts). `prefix` names the field in a case
 * of several.
 */
function readingParts(c: FieldConstraint, helds: ReadonlyArray<string | number>, valid: boolean, prefix = '', validFirst = false): CasePart[] {
  const most = new Map<string, Neighbour[]>();
  for (const held of helds) {
    const byReading = new Map<string, Neighbour[]>();
    for (const n of neighboursToSend(c, held, { valid })) byReading.set(readingOf(n), [...(byReading.get(readingOf(n)) ?? []), n]);
    for (const [reading, list] of byReading) if (list.length > (most.get(reading)?.length ?? 0)) most.set(reading, list);
  }
  const parts = normalisationsFor(c).flatMap((x) =>
    (most.get(x.id) ?? []).map((n, i) => ({
      valid: n.valid,
      part: {
        id: partId(prefix, x.id, i + 1),
        title: `${c.field}: its neighbour ${n.label}, which a server that ${readingDoes(x.id)} reads as data that exists, refused`,
        shows: `${c.operation}.${c.location}.${c.field}/${x.id}${i > 0 ? `.${i + 1}` : ''}`,
      },
    })),
  );
  // Sent first, the parts of neighbours within the limits each show at once what they merged (mergeCase):
  // before any other part, what they show is theirs alone.
  return (validFirst ? [...parts.filter((p) => p.valid), ...parts.filter((p) => !p.valid)] : parts).map((p) => p.part);
}

/**
 * Sends each neighbour in its part, the parts in the order declared; a neighbour of a part no part declares
 * (the entry allocated is not one the parts were read from) goes first, in the core.
 */
async function sendByReading(ctx: CaseContext, parts: readonly CasePart[], list: readonly Neighbour[], send: (n: Neighbour) => Promise<void>, prefix = ''): Promise<void> {
  const mine = parts.filter((p) => p.id.startsWith(prefix));
  const declared = new Set(mine.map((p) => p.id));
  const placed = withParts(list, prefix);
  for (const { n, part } of placed) if (!declared.has(part)) await send(n);
  for (const part of mine) {
    await ctx.part(part.id, async () => {
      for (const { n, part: id } of placed) if (id === part.id) await send(n);
    });
  }
}

/** The neighbours a case sends in a format: in XML, none that rests on edge whitespace (binders may trim text) and none XML cannot carry (a NUL). */
const inFormat = (list: readonly Neighbour[], format: string): Neighbour[] => list.filter((n) => format !== 'xml' || (xmlRepresentable(n.value) && !restsOnEdgeWhitespace(n.value)));

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
    parts: readingParts(c, [held], false),
    async run(ctx) {
      const parts = readingParts(c, [held], false);
      await sendByReading(ctx, parts, inFormat(list, ctx.format), async (n) => {
        await ctx.send({
          label: `agencyCode ${n.label}`,
          operation: RUN,
          request: bodyRequest(RUN, asFormat(ctx.format), bodyWith(validAgentRun(profile), c.field, n.value, profile)),
          expect: [refusalOf(c, n, neighbourBecause(c, n, held, `the profile's agency, and opens a run for it`))],
        });
      });
    },
  };
}

/** The case of the run notification's counters (one run for all of them). */
export const COUNTERS_CASE_ID = `neighbours.${RUN}.body.counters`;

/**
 * The counters of the run notification, in one run: a run started, ended with each counter in turn a
 * neighbour of a realistic count and the other counters adding up around that count (a server may check
 * that they do), then with the count itself (200). Each counter's readings are parts of their own (issue 31):
 * a budget takes them one at a time, the start and the end with the count in every selection.
 */
function runCountersCase(fields: readonly FieldConstraint[], profile: TargetProfile): CaseDef | undefined {
  const counters = fields.flatMap((c) => {
    const around = countersWith(c.field, COUNT);
    const list = neighboursToSend(c, COUNT, { valid: false });
    return around && list.length > 0 ? [{ c, around, list }] : [];
  });
  const [first] = counters;
  if (!first) return undefined;
  const parts = counters.flatMap(({ c }) => readingParts(c, [COUNT], false, `${c.field}.`));
  const op = operation(RUN);
  return {
    id: COUNTERS_CASE_ID,
    title: `${op.method} ${op.path} body ${counters.map(({ c }) => c.field).join(', ')}: near neighbours of a count of ${COUNT}, each read as it by a lenient server, refused at the end of one run, which then ends with the count`,
    operation: RUN,
    formats: ['json', 'xml'],
    tags: ['@neighbours'],
    parts,
    async run(ctx) {
      const format = asFormat(ctx.format);
      const start = await ctx.send({ label: 'start a run to end', operation: RUN, request: bodyRequest(RUN, format, validAgentRun(profile)), expect: [] });
      const runId = runIdOf(start) ?? `iswc-conformance-unstarted-${ctx.seed}`;
      for (const { c, around, list } of counters) {
        const body = (value: unknown): Record<string, unknown> => ({ ...validAgentRun(profile), ...around, [c.field]: value, runId });
        await sendByReading(
          ctx,
          parts,
          list,
          async (n) => {
            await ctx.send({
              label: `end the run with ${c.field} ${n.label}`,
              operation: RUN,
              request: bodyRequest(RUN, format, body(n.value)),
              expect: [refusalOf(c, n, neighbourBecause(c, n, COUNT, `a count the other counters add up around, and ends the run ${runId} with it`))],
            });
          },
          `${c.field}.`,
        );
      }
      await ctx.send({
        label: `end the run with ${first.c.field} ${COUNT}`,
        operation: RUN,
        request: bodyRequest(RUN, format, { ...validAgentRun(profile), ...first.around, runId }),
        expect: [expectCheck('status.success', { because: `a valid agent run carrying ${first.c.field} ${COUNT}, the other counters adding up around it, and the runId the start answered (sections 2.1, 4.1)` })],
      });
    },
  };
}

/** The fields a neighbour case sends neighbours for, as `profile check` names them ("POST /agent/run body agencyCode"). */
export function fieldsOfNeighbourCase(def: Pick<CaseDef, 'id' | 'title'>): string[] {
  const head = def.title.split(':')[0] ?? def.id;
  if (def.id !== COUNTERS_CASE_ID) return [head];
  const [method, path, location, ...names] = head.split(' ');
  return names.join(' ').split(', ').map((name) => `${method} ${path} ${location} ${name}`);
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
  const heldOf = (entry: MergeEntry): string | undefined => {
    const work = workOf(entry, workCodeLimit ?? workCodeLimitOf());
    return iswcs ? entry.iswcs?.[0] : work ? (work as unknown as Record<string, string>)[name] : undefined;
  };
  // Read from every merge entry of the profile: the case is given one of them.
  const parts = readingParts(c, profile.merges.flatMap((e) => heldOf(e) ?? []), true, '', true);
  return {
    id: caseId(c),
    title: `${titleOf(c, iswcs ? "a merge entry's ISWC" : `a merge entry's agency work`)}; the entry then merges @destructive`,
    operation: MERGE,
    formats: ['json'],
    tags: ['@neighbours', '@destructive'],
    claims: [{ kind: 'merges', count: 1 }],
    needs,
    parts,
    async run(ctx) {
      const entry = ctx.entries.merges?.[0] as MergeEntry | undefined;
      if (!entry) throw new Error('no merge entry allocated');
      const query = { query: queryFor(MERGE, { preferredIswc: entry.preferredIswc, agency: profile.agency }) };
      const work = workOf(entry, workCodeLimit ?? workCodeLimitOf());
      const held = heldOf(entry);
      if (held === undefined || (!iswcs && !work)) return;
      const list = neighboursToSend(c, held, { valid: true });
      const what = iswcs ? `an ISWC of the merge entry into ${entry.preferredIswc}, which the server then merges` : `the ${name} of the agency work ${work?.agencyCode}/${work?.agencyWorkCode} of the merge entry into ${entry.preferredIswc}, which the server then merges`;
      await sendByReading(ctx, parts, list, async (n) => {
        const body = iswcs ? { ...emptyMerge(), iswcs: [n.value] } : { ...emptyMerge(), agencyWorks: [{ ...work, [name]: n.value }] };
        // Within the limits a neighbour names another work, which a server may merge as it is (4.2 does not
        // refuse works it does not know): what it merged shows in the demerge below. An ISWC within the pattern
        // whose check digit does not hold names no ISWC that exists: refused as any ISWC not found (4.2).
        const judged = !n.valid || iswcs;
        await ctx.send({ label: `merge ${iswcs ? 'an ISWC' : `an agency work with ${name}`} ${n.label}`, operation: MERGE, request: bodyRequest(MERGE, 'json', body, query), expect: judged ? [refusalOf(c, n, neighbourBecause(c, n, held, what))] : [] });
        // What such a merge merged shows at once, in its own part: a part taken alone is a complete proof, and a
        // lenient server's merge of the held work is undone by the demerge that shows it.
        if (!judged && work) await ctx.send(demergeUnnamed(work, entry.preferredIswc, `the merge just sent named ${name} ${JSON.stringify(n.value)} (${n.label}), another work`));
      });
      if (work && !iswcs) await ctx.send(demergeUnnamed(work, entry.preferredIswc, `the merges just sent named neighbours of its ${name}, each refused or another work`));
      await ctx.send({
        label: 'merge the entry',
        operation: MERGE,
        request: bodyRequest(MERGE, 'json', mergeBody(entry), query),
        expect: [expectCheck('status.success', { because: `the target profile lists this merge into ${entry.preferredIswc} as accepted; the neighbours of its data sent before were refused (section 4.2)` })],
      });
    },
  };
}

/** The demerge of a merge entry's work that no merge named: refused (4.4), or a merge of a neighbour merged it. */
function demergeUnnamed(work: AgencyWorkRef, preferredIswc: string, why: string): Step {
  return {
    label: `demerge ${work.agencyCode}/${work.agencyWorkCode}, which no merge named`,
    operation: DEMERGE,
    request: queryRequest(DEMERGE, queryFor(DEMERGE, { preferredIswc, agency: work.agencyCode, workcode: work.agencyWorkCode })),
    expect: [expectCheck('status.refused', { because: `${work.agencyCode}/${work.agencyWorkCode} was never merged into ${preferredIswc}: ${why} (sections 4.2, 4.4)`, sections: ['4.2', '4.4'] })],
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
function removalCase(c: FieldConstraint, profile: TargetProfile): CaseDef {
  const opId = c.operation as typeof DELETE | typeof DEMERGE;
  const kind: DisposableKind = opId === DELETE ? 'submissions' : 'demerges';
  const limit = c.component === 'AgencyWorkCode' ? lengthLimitOf(c) : undefined;
  const op = operation(opId);
  const heldOf = (entry: SubmissionEntry | DemergeEntry): string | number | undefined => {
    const values: Record<string, string | number | undefined> = { ...entry, reasonCode: profile.reasonCode };
    return (limit !== undefined ? atLimitValueOf(entry, 'workcode', limit) : undefined) ?? values[c.field];
  };
  // Read from every entry of the profile of its kind: the case is given one of them.
  const entries: ReadonlyArray<SubmissionEntry | DemergeEntry> = opId === DELETE ? profile.submissions : profile.demerges;
  const parts = readingParts(c, entries.flatMap((e) => heldOf(e) ?? []), true);
  return {
    id: caseId(c),
    title: `${titleOf(c, `a ${opId === DELETE ? 'submission' : 'demerge entry'}'s ${c.field}`)}; the entry is then ${opId === DELETE ? 'deleted' : 'demerged'} (204) @destructive`,
    operation: opId,
    formats: ['none'],
    tags: ['@neighbours', '@destructive'],
    claims: [{ kind, count: 1 }],
    ...(limit !== undefined ? { needs: [atLimitNeed(kind, 'workcode', limit)] } : {}),
    parts,
    async run(ctx: CaseContext) {
      const entry = ctx.entries[kind]?.[0] as (SubmissionEntry | DemergeEntry) | undefined;
      if (!entry) throw new Error(`no ${kind} entry allocated`);
      const values: Record<string, string | number | undefined> = { ...entry, reasonCode: ctx.profile.reasonCode };
      const held = heldOf(entry);
      if (held === undefined) return;
      const named = `${opId === DELETE ? 'the submission' : 'the metadata'} ${JSON.stringify(entry)}, which it then ${opId === DELETE ? 'deletes' : 'demerges'}`;
      await sendByReading(ctx, parts, neighboursToSend(c, held, { valid: true }), async (n) => {
        await ctx.send({
          label: `${opId === DELETE ? 'delete' : 'demerge'} naming ${c.field} ${n.label}`,
          operation: opId,
          request: queryRequest(opId, queryFor(opId, { ...values, [c.field]: n.value })),
          expect: [refusalOf(c, n, neighbourBecause(c, n, held, named)), expectCheck('observed.refusal', { because: `${op.summary.toLowerCase()} naming a near neighbour of the entry's ${c.field}: which error status refuses it` })],
        });
      });
      await ctx.send({
        label: `${opId === DELETE ? 'delete' : 'demerge'} naming the entry rightly`,
        operation: opId,
        request: queryRequest(opId, queryFor(opId, values)),
        expect: [expectCheck('outcome.identity', { because: `the requests naming neighbours of its ${c.field} must have left ${JSON.stringify(entry)} in place (sections 2.5, ${op.section})`, sections: ['2.5', op.section] })],
      });
    },
  };
}

/**
 * The query preferredIswc `c` read as an ISWC (the pattern and sections of the body's ISWC), with the length
 * its pattern fixes, and the neighbours of `value` every reading refuses there: one digit past that length
 * (only a digit: a space, a case or a width variant may compare equal in a collation, a reading, not a fault)
 * and the ISWC with a check digit that does not hold (ISO 15707: it names no ISWC, and a server that
 * recomputes the check digit acts on the entry's, fault `preferred-check-digit-ignored`).
 */
export function preferredIswcNeighbours(c: FieldConstraint, value: string): { asIswc: FieldConstraint; limit: number; sent: Neighbour[] } | undefined {
  const iswc = neighbourFields().find((x) => x.component === 'Iswc');
  const limit = iswc ? lengthLimitOf(iswc) : undefined;
  if (!iswc || limit === undefined) return undefined;
  const asIswc: FieldConstraint = { ...c, pattern: iswc.pattern, ...(iswc.component !== undefined ? { component: iswc.component } : {}), sections: [...new Set([...c.sections, ...iswc.sections])] };
  const pastTheLength = (x: { value: string | number }) => /^[0-9]+$/.test(String(x.value).slice(limit));
  const sent = neighboursOf(value, asIswc).filter((x) => (x.lands.some((l) => l.normalisation === 'truncate') && !x.valid && pastTheLength(x)) || x.lands.some((l) => l.normalisation === 'check-digit'));
  return { asIswc, limit, sent };
}

/**
 * The query preferredIswc of a delete or demerge, one character past the length "T followed by 10 digits"
 * fixes (2.3): no ISWC has 12 characters, so the value names nothing, and a server whose parameter keeps 11
 * (CHAR(11)) acts on the entry's. The document states no pattern for the parameter (a malformed one may be
 * looked up and not found), so the only neighbour sent is the one every reading refuses: the ISWC with its last
 * digit once more (a case, width or space variant may compare equal in a database's collation). Then the entry
 * is named rightly (204).
 */
function preferredCutCase(c: FieldConstraint): CaseDef | undefined {
  const iswc = neighbourFields().find((x) => x.component === 'Iswc');
  const limit = iswc ? lengthLimitOf(iswc) : undefined;
  if (!iswc || limit === undefined) return undefined;
  const opId = c.operation as typeof DELETE | typeof DEMERGE;
  const kind: DisposableKind = opId === DELETE ? 'submissions' : 'demerges';
  const op = operation(opId);
  return {
    id: caseId(c),
    title: `${titleOf(c, `a ${opId === DELETE ? 'submission' : 'demerge entry'}'s preferred ISWC, one character past the ${limit} its pattern fixes, and with a check digit that does not hold`)}; the entry is then ${opId === DELETE ? 'deleted' : 'demerged'} (204) @destructive`,
    operation: opId,
    formats: ['none'],
    tags: ['@neighbours', '@destructive'],
    claims: [{ kind, count: 1 }],
    async run(ctx: CaseContext) {
      const entry = ctx.entries[kind]?.[0] as (SubmissionEntry | DemergeEntry) | undefined;
      if (!entry) throw new Error(`no ${kind} entry allocated`);
      const values: Record<string, string | number | undefined> = { ...entry, reasonCode: ctx.profile.reasonCode };
      const named = `${opId === DELETE ? 'the submission' : 'the metadata'} ${JSON.stringify(entry)}, which it then ${opId === DELETE ? 'deletes' : 'demerges'}`;
      const neighbours = preferredIswcNeighbours(c, entry.preferredIswc);
      if (!neighbours) throw new Error('schemas/openapi.yaml: the ISWC has no length its pattern fixes');
      const { asIswc, sent } = neighbours;
      for (const n of sent) {
        await ctx.send({
          label: `${opId === DELETE ? 'delete' : 'demerge'} naming preferredIswc ${n.label}`,
          operation: opId,
          request: queryRequest(opId, queryFor(opId, { ...values, preferredIswc: n.value })),
          expect: [expectCheck('query.refused', { because: neighbourBecause(asIswc, n, entry.preferredIswc, named), sections: [...asIswc.sections] })],
        });
      }
      await ctx.send({
        label: `${opId === DELETE ? 'delete' : 'demerge'} naming the entry rightly`,
        operation: opId,
        request: queryRequest(opId, queryFor(opId, values)),
        expect: [expectCheck('outcome.identity', { because: `the requests naming its preferred ISWC one character too long, or with a check digit that does not hold, must have left ${JSON.stringify(entry)} in place (sections 2.3, 2.5, ${op.section})`, sections: ['2.3', '2.5', op.section] })],
      });
    },
  };
}

/** One case per field with a stated limit or pattern, of every operation; the run notification's counters share one. */
export function neighbourCases(profile: TargetProfile): CaseDef[] {
  const out: CaseDef[] = [];
  const fields = neighbourFields();
  for (const c of fields) {
    const kind: Record<OperationId, () => CaseDef | undefined> = {
      notifyAgentRun: () => (c.type === 'integer' ? undefined : runAgencyCase(c, profile)),
      mergeIswcMetadata: () => (c.location === 'body' ? mergeCase(c, profile) : undefined),
      deleteSubmission: () => removalCase(c, profile),
      demergeIswcMetadata: () => removalCase(c, profile),
    };
    const made = kind[c.operation]();
    if (made) out.push(made);
  }
  for (const c of fieldConstraints().filter((x) => x.location === 'query' && x.name === 'preferredIswc' && (x.operation === DELETE || x.operation === DEMERGE) && !isLimited(x))) {
    const made = preferredCutCase(c);
    if (made) out.push(made);
  }
  const counters = runCountersCase(
    fields.filter((c) => c.operation === RUN && c.type === 'integer'),
    profile,
  );
  if (counters) out.push(counters);
  return out;
}
