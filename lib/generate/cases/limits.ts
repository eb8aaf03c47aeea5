import type { Format } from '../../contract/codec/index.ts';
import { encodeXml, decodeXml, xmlRepresentable } from '../../contract/codec/xml.ts';
import type { FieldConstraint } from '../../contract/constraints.ts';
import { constraintsOf, fieldConstraints, isLimited, namesOnlySubmitter } from '../../contract/constraints.ts';
import { operation } from '../../contract/operations.ts';
import { sameNumberSpellings } from '../../contract/integer-readings.ts';
import { runIdOf } from '../../contract/answer.ts';
import { validateResource } from '../../contract/validators.ts';
import { textMemo } from '../../foundation/memo.ts';
import type { DisposableKind, MergeEntry, SubmissionEntry, TargetProfile } from '../../contract/profile/types.ts';
import type { Exchange } from '../../contract/exchange.ts';
import type { CaseContext, CaseDef, CaseFormat, Expectation, Step } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, queryRequest } from '../requests.ts';
import { baseQuery, bodyWith, countersWith, emptyMerge, otherIswc, queryFor, unknownIswc, validAgentRun, validExample } from '../templates.ts';
import type { BoundaryValue } from '../values.ts';
import { boundaryValues, typeRole, wrongTypes, xmlTypeRole } from '../values.ts';

/**
 * Limit and type cases, derived from every constrained field of schemas/openapi.yaml, under the rule that
 * a `spec` check demands only what every reading of the document agrees on: values past a limit in
 * characters every reading counts alike (400 for a body, a refusal for a query parameter), realistic
 * values at a limit (answered like a nominal value), values no reading takes as the field's type (400);
 * what the readings count differently, unrealistic values and lossless coercions are only observed.
 */

type BodyResource = 'AgentRun' | 'MergeRequest';

/** The field of an agent run that names the run an end notification ends. */
const RUN_ID = 'runId';

/** Many XML binders trim text: a value whose meaning rests on edge whitespace has no fair XML twin. */
function restsOnEdgeWhitespace(value: unknown): boolean {
  return /"\s|\s"/.test(JSON.stringify(value));
}

/** The XML twin of a body keeps the case's meaning only if it is still invalid (or still valid). */
export function xmlTwinKeeps(resource: BodyResource, value: unknown, valid: boolean): boolean {
  if (!xmlRepresentable(value) || restsOnEdgeWhitespace(value)) return false;
  const text = encodeXml(resource, value);
  const twinValid = twinValidity(`${resource}\u0000${text}`, () => {
    const decoded = decodeXml(resource, text);
    return decoded.ok && validateResource(resource, decoded.value).length === 0;
  });
  return twinValid === valid;
}

/** Whether an XML body is a valid resource, by resource and text: generation asks again of the same values. */
const twinValidity = textMemo<boolean>();

function resourceOf(c: FieldConstraint): BodyResource | undefined {
  const resource = operation(c.operation).body?.resource;
  return resource === 'AgentRun' || resource === 'MergeRequest' ? resource : undefined;
}

function asFormat(format: CaseFormat): Format {
  return format === 'xml' ? 'xml' : 'json';
}

/** Which data a request names: everything existing but the broken value, or nothing that exists. */
type Naming = 'existing' | 'unknown';

/**
 * Which profile entry a demand of 400 names so that everything but the broken value exists: a submission
 * for delete and for an agency work of a merge, merged metadata for demerge. Read-only: never consumed.
 */
function reservedKind(c: FieldConstraint): DisposableKind | undefined {
  if (c.location === 'query' && c.operation === 'deleteSubmission') return 'submissions';
  if (c.location === 'query' && c.operation === 'demergeIswcMetadata') return 'demerges';
  if (c.location === 'body' && c.field.startsWith('agencyWorks[]')) return 'submissions';
  return undefined;
}

export { namesOnlySubmitter };

/** An item of a merge request's arrays (`iswcs[]`, `agencyWorks[].agencyCode`): what a merge looks up. */
export function mergeItem(c: FieldConstraint): boolean {
  return c.operation === 'mergeIswcMetadata' && c.location === 'body' && c.field.includes('[]');
}

/**
 * An item of a merge body of another type that a server may still read as text, then look up and not find
 * (404): anything in XML, where every value is text, and in JSON a number or boolean a lenient binder
 * turns into a string. An object or array is no item any binder reads: 400.
 */
export function readAsText(c: FieldConstraint, value: unknown, format: CaseFormat | Format): boolean {
  return mergeItem(c) && (format === 'xml' || typeof value === 'number' || typeof value === 'boolean');
}

/**
 * An agent run with `value` in `field`. A count keeps the others adding up around it, for a server that
 * checks they do: past int32 on either side too, so that such a server refuses it for its type, not for a
 * sum, and one that takes any integer (or one past its maximum) accepts it.
 */
function agentRunWith(run: Record<string, unknown>, field: string, value: unknown, profile: TargetProfile): Record<string, unknown> {
  const count = typeof value === 'number' && Number.isSafeInteger(value);
  const around = count ? countersWith(field, value) : undefined;
  return around ? { ...run, ...around } : bodyWith(run, field, value, profile);
}

/** The body a case sends with `value` in the constrained field (query cases send a valid body). */
function bodyFor(c: FieldConstraint, profile: TargetProfile, value: unknown, naming: Naming, entry: Partial<SubmissionEntry> | undefined): Record<string, unknown> | undefined {
  if (!operation(c.operation).body) return undefined;
  if (c.location === 'query') {
    // A merge that names nothing but the query value: empty where 400 is demanded (a faulty server that
    // takes the value merges nothing), an existing ISWC where it names unknown data (an empty merge may
    // itself be a bad request: the body carries ISWCs "and/or" works, 4.2).
    return naming === 'existing' ? emptyMerge() : { ...emptyMerge(), iswcs: [otherIswc(profile)] };
  }
  if (c.operation === 'notifyAgentRun') return agentRunWith(validAgentRun(profile), c.field, value, profile);
  if (entry && c.field.startsWith('agencyWorks[]')) {
    const name = c.field.slice('agencyWorks[].'.length);
    return { ...emptyMerge(), agencyWorks: [{ agencyCode: entry.agency, agencyWorkCode: entry.workcode, [name]: value }] };
  }
  return bodyWith(emptyMerge(), c.field, value, profile);
}

/** The step sending `value` in field `c`, naming existing data (a demand of 400) or unknown data. */
/** `extra`: body fields added to the request (the runId of a run the request ends). */
function stepFor(c: FieldConstraint, profile: TargetProfile, ctx: CaseContext, label: string, value: unknown, naming: Naming, expect: Expectation[], probe?: Step['probe'], extra?: Record<string, unknown>): Step {
  const kind = naming === 'existing' ? reservedKind(c) : undefined;
  const entry = kind ? (ctx.entries[kind]?.[0] as Partial<SubmissionEntry> | undefined) : undefined;
  const preferred = naming === 'unknown' && c.operation !== 'notifyAgentRun' ? unknownIswc(profile) : undefined;
  const query: Record<string, string | number | undefined> = { ...baseQuery(c.operation, profile, preferred), ...(entry && c.location === 'query' ? entry : {}) };
  if (c.location === 'query') query[c.field] = value as string | number;
  const q = queryFor(c.operation, query);
  const found = bodyFor(c, profile, value, naming, entry);
  const body = found && extra ? { ...found, ...extra } : found;
  const request = body && ctx.format !== 'none' ? bodyRequest(c.operation, asFormat(ctx.format), body, { query: q }) : queryRequest(c.operation, q);
  return { label, operation: c.operation, request, expect, ...(probe ? { probe } : {}) };
}

function groupOf(c: FieldConstraint): NonNullable<CaseDef['group']> {
  const op = operation(c.operation);
  return { id: `limits.${c.operation}.${c.location}.${c.field}`, title: `${op.method} ${op.path} ${c.location} ${c.field}: values at and past its limits, and of the wrong type @limits` };
}

function titleOf(c: FieldConstraint, label: string, what: string): string {
  const op = operation(c.operation);
  return `${op.method} ${op.path} ${c.location} ${c.field} ${label}: ${what}`;
}

/** Formats a body value case runs in: JSON, and XML where the twin keeps the value's meaning. */
function formatsFor(c: FieldConstraint, profile: TargetProfile, value: unknown, valid: boolean, observedOnly: boolean): CaseFormat[] {
  if (!operation(c.operation).body) return ['none'];
  // A query parameter of an operation with a body: the body (valid) is sent in JSON once.
  if (c.location === 'query') return ['json'];
  const resource = resourceOf(c);
  if (!resource) return ['json'];
  const body = bodyFor(c, profile, value, 'unknown', undefined) ?? {};
  if (observedOnly) return xmlRepresentable(body) ? ['json', 'xml'] : ['json'];
  return xmlTwinKeeps(resource, body, valid) ? ['json', 'xml'] : ['json'];
}

/** A value past a limit that every reading counts alike: 400 for a body field, a refusal for a query parameter. */
function rejectedCase(c: FieldConstraint, profile: TargetProfile, b: BoundaryValue): CaseDef {
  const kind = reservedKind(c);
  // An item of a merge body past its limits names nothing that exists: a server that looks items up before
  // it validates them answers 404 "ISWC not found", documented for the merge and then true.
  const notFoundFits = mergeItem(c) ? { notFoundFits: true } : {};
  return {
    id: `limit.${c.operation}.${c.location}.${c.field}.${b.label}`,
    title: titleOf(c, b.label, c.location === 'query' ? 'refused' : '400'),
    operation: c.operation,
    formats: formatsFor(c, profile, b.value, false, false),
    tags: ['@limits', '@reject'],
    ...(kind ? { claims: [{ kind, count: 1, readOnly: true }] } : {}),
    group: groupOf(c),
    async run(ctx) {
      const expect =
        c.location === 'query'
          ? [expectCheck('query.refused', { because: b.because, sections: [...c.sections] }), expectCheck('observed.refusal', { because: `${c.field} ${b.label}: which error status refuses it` })]
          : [expectCheck('limit.rejected', { because: b.because, sections: [...c.sections], ...notFoundFits })];
      await ctx.send(stepFor(c, profile, ctx, `${c.field} ${b.label}`, b.value, 'existing', expect));
    },
  };
}

/**
 * Realistic values at a limit, shown differentially: the same request names unknown data with a nominal
 * value, then with each value at the limit, and every answer must equal the nominal one. Whatever the
 * server answers for the data named (204, 404, a business 400), only the value can make them differ.
 */
function acceptedCase(c: FieldConstraint, profile: TargetProfile, values: BoundaryValue[], example: string | number): CaseDef {
  const formats = values.every((b) => formatsFor(c, profile, b.value, true, false).includes('xml')) ? formatsFor(c, profile, example, true, false) : (['json'] as CaseFormat[]);
  return {
    id: `limit.${c.operation}.${c.location}.${c.field}.at-limit`,
    title: titleOf(c, values.map((b) => b.label).join(', '), 'answered like a nominal value'),
    operation: c.operation,
    formats: operation(c.operation).body ? formats : ['none'],
    tags: ['@limits', '@accept'],
    group: groupOf(c),
    async run(ctx) {
      // A counter is sent where it counts: at the end of a run of its own (a server may refuse counts on a
      // run that starts, 2.1, 3, and may refuse a second end of one run), so every request ends a fresh run.
      const endsRun = c.operation === 'notifyAgentRun' && c.location === 'body' && c.type === 'integer';
      const runToEnd = async (): Promise<Record<string, unknown> | undefined> => {
        if (!endsRun || ctx.format === 'none') return undefined;
        const start = await ctx.send({ label: 'start a run to end', operation: c.operation, request: bodyRequest(c.operation, asFormat(ctx.format), validAgentRun(profile)), expect: [] });
        return { runId: runIdOf(start) ?? `iswc-conformance-unstarted-${ctx.seed}` };
      };
      // Delete and demerge name an existing preferred ISWC with a work code nothing has: nothing changes
      // whatever the answer, and a server that looks the preferred ISWC up first still reads the value.
      const naming: Naming = c.location === 'query' && !operation(c.operation).body ? 'existing' : 'unknown';
      const nominal = await ctx.send(stepFor(c, profile, ctx, `${c.field} nominal ${JSON.stringify(example)}`, example, naming, [], undefined, await runToEnd()));
      const nominalStatus = nominal.error && nominal.error.code !== 'THROTTLED' ? null : (nominal.response?.status ?? null);
      for (const b of values) {
        const because = `${b.because}${endsRun ? ', ending a run' : ''}; the same request with the nominal ${JSON.stringify(example)} got ${nominalStatus ?? 'no answer'}`;
        const expect = [expectCheck('limit.accepted', { because, sections: [...c.sections], nominalStatus, ...(c.operation === 'notifyAgentRun' ? { success: operation(c.operation).successStatus } : {}) })];
        await ctx.send(stepFor(c, profile, ctx, `${c.field} ${b.label}`, b.value, naming, expect, undefined, await runToEnd()));
      }
    },
  };
}

/**
 * Realistic values at a limit of an item of the merge body, into a preferred ISWC that exists: a server that
 * looks the preferred ISWC up first answers an unknown one 404 whatever the item, which hides an item
 * refused at its limit. The preferred ISWC is a disposable entry's, since a server that takes agency works
 * it did not know merges them: the request with the nominal value, then each value at the limit.
 */
function acceptedOnEntryCase(c: FieldConstraint, profile: TargetProfile, values: BoundaryValue[], example: string | number): CaseDef {
  // The work codes this case merges are its entry's own: a work another case names (the nominal code, the
  // codes at the limit a delete or demerge sends) merged somewhere would change what those get.
  const ownExample = (entry: MergeEntry): string => `${String(example).slice(0, 4)}${entry.preferredIswc.slice(1)}`;
  return {
    id: `limit.${c.operation}.${c.location}.${c.field}.at-limit-existing-preferred`,
    title: titleOf(c, values.map((b) => b.label).join(', '), 'answered like a nominal value, into a preferred ISWC that exists @destructive'),
    operation: c.operation,
    formats: values.every((b) => formatsFor(c, profile, b.value, true, false).includes('xml')) ? formatsFor(c, profile, example, true, false) : ['json'],
    tags: ['@limits', '@accept', '@destructive'],
    claims: [{ kind: 'merges', count: 1 }],
    group: groupOf(c),
    async run(ctx) {
      const entry = ctx.entries.merges?.[0] as MergeEntry | undefined;
      if (!entry) throw new Error('no merge entry allocated');
      const format = asFormat(ctx.format);
      const query = { query: queryFor(c.operation, { preferredIswc: entry.preferredIswc, agency: profile.agency }) };
      const send = (label: string, value: unknown, expect: Expectation[]): Promise<Exchange> =>
        ctx.send({ label, operation: c.operation, request: bodyRequest(c.operation, format, bodyFor(c, profile, value, 'existing', undefined) ?? {}, query), expect });
      const own = c.component === 'AgencyWorkCode' ? ownExample(entry) : example;
      const nominal = await send(`${c.field} nominal ${JSON.stringify(own)}, into ${entry.preferredIswc}`, own, []);
      const nominalStatus = nominal.error && nominal.error.code !== 'THROTTLED' ? null : (nominal.response?.status ?? null);
      const atLimit = own === example ? values : boundaryValues(c, own).filter((b) => b.role === 'accepted');
      for (const b of atLimit) {
        const because = `${b.because}; the same merge into ${entry.preferredIswc} (a disposable entry's, which exists) with the nominal ${JSON.stringify(own)} got ${nominalStatus ?? 'no answer'}`;
        await send(`${c.field} ${b.label}, into ${entry.preferredIswc}`, b.value, [expectCheck('limit.accepted', { because, sections: [...c.sections], nominalStatus })]);
      }
    },
  };
}

/** A value the readings count differently, or an unrealistic one: what it gets is recorded, never judged. */
function observedCase(c: FieldConstraint, profile: TargetProfile, b: BoundaryValue): CaseDef {
  const check = b.role === 'characters' ? 'observed.characters' : 'observed.edge-values';
  return {
    id: `limit.${c.operation}.${c.location}.${c.field}.${b.label}`,
    title: titleOf(c, b.label, 'observed'),
    operation: c.operation,
    formats: formatsFor(c, profile, b.value, b.valid, true),
    tags: ['@limits', '@observed'],
    group: groupOf(c),
    async run(ctx) {
      const facts = { field: c.field, value: b.value, ...(b.lengths ? { lengths: b.lengths } : {}), contractValid: b.valid };
      await ctx.send(stepFor(c, profile, ctx, `${c.field} ${b.label}`, b.value, 'unknown', [expectCheck(check, { because: b.because, sections: [...c.sections], facts })], 'open-point'));
    },
  };
}

/** A body value of another type: 400 where no reading takes it, observed where a lenient one converts it. */
function typeCase(c: FieldConstraint, profile: TargetProfile, label: string, value: unknown, jsonRole: 'rejected' | 'coercion'): CaseDef {
  const resource = resourceOf(c);
  const body = bodyFor(c, profile, value, 'unknown', undefined);
  let xmlRole: 'rejected' | 'coercion' | 'valid' = 'valid';
  if (resource && body && xmlRepresentable(body)) {
    const decoded = decodeXml(resource, encodeXml(resource, body));
    const field = decoded.ok ? fieldValue(decoded.value, c.field) : undefined;
    xmlRole = decoded.ok ? xmlTypeRole(c.type, field) : 'valid';
  }
  const roleIn = (format: CaseFormat) => (format === 'xml' ? xmlRole : jsonRole);
  const formats: CaseFormat[] = xmlRole === 'valid' ? ['json'] : ['json', 'xml'];
  const because = `${c.field} must be ${c.type === 'integer' ? 'a 32-bit integer' : 'a string'}, sent ${label} ${JSON.stringify(value)} (section ${c.sections.join(', ')})`;
  const judged = formats.some((f) => roleIn(f) === 'rejected');
  const kind = reservedKind(c);
  return {
    id: `type.${c.operation}.${c.location}.${c.field}.${label}`,
    title: titleOf(c, label, judged ? '400' : 'observed'),
    operation: c.operation,
    formats,
    tags: ['@limits', '@types'],
    ...(kind ? { claims: [{ kind, count: 1, readOnly: true }] } : {}),
    group: groupOf(c),
    async run(ctx) {
      if (roleIn(ctx.format) === 'rejected') {
        const notFoundFits = readAsText(c, value, ctx.format) ? { notFoundFits: true } : {};
        await ctx.send(stepFor(c, profile, ctx, `${c.field} ${label}`, value, 'existing', [expectCheck('type.rejected', { because, sections: [...c.sections, '7'], ...notFoundFits })]));
      } else {
        const facts = { field: c.field, value, format: ctx.format };
        const step = stepFor(c, profile, ctx, `${c.field} ${label}`, value, 'unknown', [expectCheck('observed.coercion', { because: `${because}: a lenient reading converts it`, sections: [...c.sections], facts })], 'open-point');
        await ctx.send(step);
      }
    },
  };
}

/** The value at a field path (`agencyWorks[].agencyCode` reads the first item). */
function fieldValue(root: unknown, field: string): unknown {
  let node: unknown = root;
  for (const segment of field.split('.')) {
    const name = segment.replace(/\[\]$/, '');
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[name];
    if (segment.endsWith('[]')) node = Array.isArray(node) ? node[0] : node;
  }
  return node;
}

/**
 * A query integer that is no integer at all: refused (the document lets 400 or 404 answer it). A value
 * given as a function is built from the entry the request names ("128.5" for its sourceDb 128): a server
 * that reads integers leniently (parseInt, truncation) then finds the entry and acts on it, so the case
 * may change data on a faulty server and runs only where destructive checks are on.
 */
function queryTypeCase(c: FieldConstraint, profile: TargetProfile, label: string, value: string | ((entry: Partial<SubmissionEntry>) => string)): CaseDef {
  const kind = reservedKind(c);
  return {
    id: `type.${c.operation}.${c.location}.${c.field}.${label}`,
    title: titleOf(c, label, 'refused'),
    operation: c.operation,
    formats: operation(c.operation).body ? ['json'] : ['none'],
    tags: ['@limits', '@types'],
    // A value derived from the entry's own (12 -> "12.5") deletes the entry on a server that truncates it:
    // such a case consumes its entry rather than sharing one.
    ...(kind ? { claims: [{ kind, count: 1, readOnly: typeof value !== 'function' }] } : {}),
    ...(typeof value === 'function' ? { changesData: true } : {}),
    group: groupOf(c),
    async run(ctx) {
      const entry = (kind ? ctx.entries[kind]?.[0] : undefined) as Partial<SubmissionEntry> | undefined;
      const sent = typeof value === 'function' ? value(entry ?? {}) : value;
      const because = `${c.field} must be a 32-bit integer, sent ${JSON.stringify(sent)} (section ${c.sections.join(', ')})`;
      await ctx.send(
        stepFor(c, profile, ctx, `${c.field} ${label}`, sent, 'existing', [
          expectCheck('query.refused', { because, sections: [...c.sections] }),
          expectCheck('observed.refusal', { because: `${c.field} ${label}: which error status refuses it` }),
        ]),
      );
    },
  };
}

/**
 * The notification that ends a run is an agent run too (2.1, 4.1): each value a start must have refused
 * (past a limit every reading counts alike, of a type no reading takes) is sent ending a run of its own,
 * started for it, and must get 400 as well. The run is then ended with a valid notification. A counter is
 * where an end has it; the agency code, the agent version and the counters all belong to 2.1.
 */
function runEndCase(c: FieldConstraint, profile: TargetProfile): CaseDef | undefined {
  const example = validExample(c, profile);
  const limits = isLimited(c) ? boundaryValues(c, example).filter((b) => b.role === 'rejected').map((b) => ({ label: b.label, value: b.value, because: b.because, check: 'limit.rejected' as const })) : [];
  const types = wrongTypes(c.type, example)
    .filter((w) => typeRole(c, w) === 'rejected')
    .map((w) => ({ label: w.label, value: w.value, because: `${c.field} must be ${c.type === 'integer' ? 'a 32-bit integer' : 'a string'}, sent ${w.label} ${JSON.stringify(w.value)} (section ${c.sections.join(', ')})`, check: 'type.rejected' as const }));
  const values = [...limits, ...types];
  if (values.length === 0) return undefined;
  const op = operation(c.operation);
  // In XML a value keeps its meaning only where its twin is still invalid, and an element where text is due is a shape question.
  const keeps = (format: CaseFormat, v: (typeof values)[number]): boolean => {
    if (format !== 'xml') return true;
    const body = bodyWith(validAgentRun(profile), c.field, v.value, profile);
    if (v.check === 'type.rejected') {
      if (!xmlRepresentable(body)) return false;
      const decoded = decodeXml('AgentRun', encodeXml('AgentRun', body));
      return decoded.ok && xmlTypeRole(c.type, fieldValue(decoded.value, c.field)) === 'rejected';
    }
    return xmlTwinKeeps('AgentRun', body, false);
  };
  return {
    id: `limit.notifyAgentRun.end-of-run.${c.field}`,
    title: `${op.method} ${op.path} ending a run, ${c.field} past its limits or of the wrong type: 400, as on a start`,
    operation: c.operation,
    formats: values.some((v) => keeps('xml', v)) ? ['json', 'xml'] : ['json'],
    tags: ['@limits', '@reject', '@run-end'],
    group: { id: 'limits.notifyAgentRun.end-of-run', title: `${op.method} ${op.path} ending a run: values a start must refuse, refused on an end too @limits` },
    async run(ctx) {
      const format = asFormat(ctx.format);
      const start = await ctx.send({ label: 'start a run to end', operation: c.operation, request: bodyRequest(c.operation, format, validAgentRun(profile)), expect: [] });
      const runId = runIdOf(start) ?? `iswc-conformance-unstarted-${ctx.seed}`;
      for (const v of values.filter((x) => keeps(ctx.format, x))) {
        const body = { ...agentRunWith(validAgentRun(profile, 1), c.field, v.value, profile), runId };
        const because = `${v.because}; the notification ends the run ${runId}, an agent run as a start is (sections 2.1, 4.1)`;
        await ctx.send({
          label: `end the run with ${c.field} ${v.label}`,
          operation: c.operation,
          request: bodyRequest(c.operation, format, body),
          expect: [v.check === 'limit.rejected' ? expectCheck('limit.rejected', { because, sections: [...c.sections] }) : expectCheck('type.rejected', { because, sections: [...c.sections, '7'] })],
        });
      }
      await ctx.send({
        label: 'end the run',
        operation: c.operation,
        request: bodyRequest(c.operation, format, { ...validAgentRun(profile, 1), runId }),
        expect: [expectCheck('status.success', { because: `a valid agent run ending the run ${runId} the start answered (sections 2.1, 4.1)` })],
      });
    },
  };
}

export function limitCases(profile: TargetProfile): CaseDef[] {
  const out: CaseDef[] = [];
  const spelled = new Set<string>();
  for (const c of constraintsOf('notifyAgentRun').filter((x) => x.location === 'body' && x.field !== RUN_ID)) {
    const end = runEndCase(c, profile);
    if (end) out.push(end);
  }
  for (const c of fieldConstraints()) {
    const example = validExample(c, profile);
    if (isLimited(c)) {
      const values = boundaryValues(c, example);
      // A limit is demanded only where the document states it: the merge's query agency names the
      // submitter, and section 8 limits the body field agencyCode; what such values get is recorded.
      const stated = !namesOnlySubmitter(c);
      for (const b of values.filter((v) => v.role === 'rejected')) out.push(stated ? rejectedCase(c, profile, b) : observedCase(c, profile, { ...b, because: `${b.because}; no limit is stated for the merge's query agency, which names the submitter (sections 4.2, 8)` }));
      const accepted = values.filter((v) => v.role === 'accepted');
      if (accepted.length > 0) out.push(acceptedCase(c, profile, accepted, example));
      if (accepted.length > 0 && mergeItem(c)) out.push(acceptedOnEntryCase(c, profile, accepted, example));
      for (const b of values.filter((v) => v.role === 'characters' || v.role === 'edge')) out.push(observedCase(c, profile, b));
    }
    if (c.location === 'body') {
      for (const w of wrongTypes(c.type, example)) out.push(typeCase(c, profile, w.label, w.value, typeRole(c, w)));
      // Spellings of the number that one platform's parser reads as it and another refuses ("1_28", "١٢٨"):
      // recorded, never judged, on the first integer of each body (the platforms read every integer alike).
      if (c.type === 'integer' && !spelled.has(c.operation)) {
        spelled.add(c.operation);
        for (const s of sameNumberSpellings(Number(example))) out.push(typeCase(c, profile, s.label, s.value, 'coercion'));
        // Past int32, as text: a server that converts numeric strings must range-check what it converts, and one
        // that refuses them refuses this one too: a 400 under every reading (a fresh reading of 2026-12-01).
        out.push(typeCase(c, profile, 'past-int32-as-string', String(2 ** 31), 'rejected'));
      }
    } else if (c.type === 'integer') {
      for (const w of [{ label: 'word', value: 'abc' }, { label: 'fraction', value: '1.5' }]) out.push(queryTypeCase(c, profile, w.label, w.value));
      const own = (entry: Partial<SubmissionEntry>): string => {
        const value = (entry as Record<string, unknown>)[c.field];
        return typeof value === 'number' || typeof value === 'string' ? String(value) : String(example);
      };
      out.push(queryTypeCase(c, profile, 'entry-fraction', (entry) => `${own(entry)}.5`));
      out.push(queryTypeCase(c, profile, 'entry-with-letters', (entry) => `${own(entry)}abc`));
    }
  }
  return out;
}
