import type { IncomingMessage } from 'node:http';
import type { Operation, RequestBodySpec } from '../lib/contract/operations.ts';
import { validateNode } from '../lib/contract/validators.ts';
import { hasValidCheckDigit } from '../lib/contract/iswc.ts';
import type { AgencyWorkRef } from '../lib/contract/profile/types.ts';
import { decodeRequestBody } from './body.ts';
import type { BodyOutcome } from './body.ts';
import type { Context } from './context.ts';
import type { ErrorCode } from './errors.ts';
import { errorReply } from './errors.ts';
import { refuseForeignAgency } from './auth.ts';
import { iswcSchema } from './limits.ts';
import { mediaFailure } from './media.ts';
import { mergeBindingError, validationProblem } from './production.ts';
import type { Problem } from './query.ts';
import { problemCode, Q, Query } from './query.ts';
import { oddValue } from './readings.ts';
import { shapeRoleSkipped } from './shape-faults.ts';
import type { ShapeRole } from './shape-faults.ts';
import type { Reply } from './wire.ts';
import { empty, text } from './wire.ts';

/** The fields of a merge request the server acts on (2.3, 2.4). */
interface MergeBody {
  iswcs?: string[];
  agencyWorks?: AgencyWorkRef[];
}

/** Choice `work-code-charset`: the characters real agency work codes use. */
export const WORK_CODE_CHARS = /^[A-Za-z0-9._\/-]*$/;

/** 404 text of merge and demerge (not shown by the document: choice, like production). */
export const ISWC_NOT_FOUND = 'Iswc not found';

/** Fault `drop-invalid-iswcs`: items of iswcs that break the Iswc schema are silently left out. */
function dropInvalidIswcs(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const body = value as MergeBody;
  if (!Array.isArray(body.iswcs)) return value;
  return { ...body, iswcs: (body.iswcs as unknown[]).filter((item) => validateNode(iswcSchema(), item).length === 0) };
}

/** Fault `merge-drops-invalid-works`: agency works past their limits are silently left out. */
function dropInvalidWorks(ctx: Context, op: Operation, resource: RequestBodySpec['resource'], value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const body = value as MergeBody;
  if (!Array.isArray(body.agencyWorks)) return value;
  return { ...body, agencyWorks: (body.agencyWorks as unknown[]).filter((work) => ctx.limits.checkBody(op.id, resource, { agencyWorks: [work] }).length === 0) };
}

/** How many items (ISWCs and agency works) a merge body names. */
function itemCount(value: unknown): number {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 0;
  const body = value as Record<string, unknown>;
  return (Array.isArray(body.iswcs) ? body.iswcs.length : 0) + (Array.isArray(body.agencyWorks) ? body.agencyWorks.length : 0);
}

/** A business rule of the server's choices that refuses this merge, if any (none by the reference choices). */
function businessRefusal(ctx: Context, preferred: string, merge: MergeBody): string | undefined {
  const c = ctx.choices;
  const iswcs = merge.iswcs ?? [];
  const works = merge.agencyWorks ?? [];
  if (c.has('empty-merge-400') && iswcs.length === 0 && works.length === 0) return 'the merge names neither ISWCs nor agency works';
  if (c.has('merge-duplicates-400') && (new Set(iswcs).size < iswcs.length || iswcs.includes(preferred))) return 'the merge repeats an ISWC or names the preferred ISWC itself';
  if (c.has('merge-self-refused') && iswcs.includes(preferred)) return 'the merge names the preferred ISWC itself (a self-referential link)';
  if (c.has('check-digit-all') && iswcs.some((i) => !hasValidCheckDigit(i))) return 'an ISWC has a wrong check digit';
  if (c.has('merge-child-refused') && iswcs.some((i) => ctx.state.hasParent(i))) return 'an ISWC of the merge already has a parent (production refuses it)';
  if (c.has('merge-max-items') && iswcs.length + works.length > 10) return 'a merge names at most 10 items';
  if (c.has('work-code-charset') && works.some((w) => !WORK_CODE_CHARS.test(w.agencyWorkCode))) return 'an agencyWorkCode holds a character work codes do not';
  if (c.has('merge-preferred-child-refused') && ctx.state.hasParent(preferred)) return 'the preferred ISWC is merged into another';
  if (c.has('merge-work-elsewhere-refused') && works.some((w) => { const into = ctx.state.mergedIswcOf(w.agencyCode, w.agencyWorkCode); return into !== undefined && into !== preferred; })) return 'an agency work is merged into another preferred ISWC';
  if (c.has('merge-again-refused') && works.some((w) => ctx.state.isMerged(preferred, w.agencyCode, w.agencyWorkCode))) return 'an agency work is already merged into this preferred ISWC';
  if (c.has('merge-after-demerge-refused') && works.some((w) => ctx.state.wasDemerged(preferred, w.agencyCode, w.agencyWorkCode))) return 'an agency work demerged from this preferred ISWC cannot be merged into it again';
  if (c.has('business-odd-values')) return oddValue(merge);
  return undefined;
}

/**
 * Whether the lookup of the i-th ISWC of a merge body refuses it as not found, wherever the server's
 * choices look items up. The faults that leave items unchecked (`merge-iswc-pattern-loose`,
 * `array-tail-unchecked`) leave them un-looked-up too, and those that take unknown ISWCs
 * (`merge-unknown-body-iswc-accepted`, `merge-drops-unknown-iswcs`) take them in every lookup.
 */
function iswcNotFound(ctx: Context, iswc: string, i: number): boolean {
  const f = ctx.faults;
  if (f.has('merge-unknown-body-iswc-accepted') || f.has('merge-drops-unknown-iswcs')) return false;
  if (f.has('merge-iswc-pattern-loose') && validateNode(iswcSchema(), iswc).length > 0) return false;
  if (f.has('array-tail-unchecked') && i >= 3) return false;
  return !ctx.state.iswcExists(iswc);
}

/**
 * Choice `merge-items-in-order`: the merge handles its items one after the other, as a loop over the
 * request would: each ISWC of `iswcs`, then each agency work, is validated and then looked up; the first
 * item that breaks its limits is 400, the first one the server does not know is 404 ("ISWC not found").
 * Which of two fitting errors comes first is not shown: a request with an unknown work before a broken one
 * gets the 404. Null when every item passes (the whole body is then validated as usual).
 */
function itemsInOrder(ctx: Context, op: Operation, resource: RequestBodySpec['resource'], value: unknown, preferred: string, effect: boolean, bad: (code: ErrorCode, message: string) => Reply, notFound: () => Reply): Reply | 'merged' | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const body = value as Record<string, unknown>;
  const shape = { ...body, ...(Array.isArray(body.iswcs) ? { iswcs: [] } : {}), ...(Array.isArray(body.agencyWorks) ? { agencyWorks: [] } : {}) };
  const top = ctx.limits.checkBody(op.id, resource, shape)[0];
  if (top) return bad('BAD_BODY', `${top.field} ${top.message}`);
  // With `merge-commits-per-item` too, a loop with a commit per item: each item that passes is merged at
  // once (into a preferred ISWC that exists), so an item it cannot take leaves the ones before it merged.
  const commit = ctx.choices.has('merge-commits-per-item') && ctx.state.iswcExists(preferred);
  const set = commit ? ctx.state.newMergeSet() : 0;
  const seen = new Set<unknown>();
  for (const [i, iswc] of (Array.isArray(body.iswcs) ? (body.iswcs as unknown[]) : []).entries()) {
    // Fault `duplicate-items-500`, in a loop that commits each item: the second insert of one ISWC crashes.
    if (commit && ctx.faults.has('duplicate-items-500') && seen.has(iswc)) return text(500, 'Internal Server Error');
    seen.add(iswc);
    // Fault `array-tail-unchecked`: the items after the third are neither checked nor looked up.
    if (!(ctx.faults.has('array-tail-unchecked') && i >= 3)) {
      const v = ctx.limits.checkBody(op.id, resource, { iswcs: [iswc] })[0];
      if (v) return bad('BAD_BODY', `${v.field} ${v.message}`);
      if (iswcNotFound(ctx, iswc as string, i)) return notFound();
      if (commit && ctx.choices.has('merge-child-refused') && ctx.state.hasParent(iswc as string)) return bad('BAD_BODY', 'an ISWC of the merge already has a parent (production refuses it)');
    }
    if (commit && effect && typeof iswc === 'string' && !ctx.faults.has('merge-iswcs-not-merged')) ctx.state.merge(preferred, [iswc], [], set);
  }
  // Fault `merge-iswcs-clears-works`, in a loop that commits each item: a merge of ISWCs alone drops the works merged before.
  const works = Array.isArray(body.agencyWorks) ? (body.agencyWorks as unknown[]) : [];
  if (commit && effect && ctx.faults.has('merge-iswcs-clears-works') && Array.isArray(body.iswcs) && body.iswcs.length > 0 && works.length === 0) ctx.state.demergeAll(preferred);
  for (const work of works) {
    const v = ctx.limits.checkBody(op.id, resource, { agencyWorks: [work] })[0];
    if (v) return bad('BAD_BODY', `${v.field} ${v.message}`);
    const w = work as AgencyWorkRef;
    if (!ctx.state.workKnown(w.agencyCode, w.agencyWorkCode)) return notFound();
    if (commit && effect && !ctx.faults.has('merge-ignores-agency-works')) ctx.state.merge(preferred, [], [w], set);
  }
  return commit ? 'merged' : null;
}

/** The agency works of a merge body, each one the server does not hold replaced by a work of its code it holds (fault `merge-works-ignore-agency`). */
function worksByCodeAlone(ctx: Context, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const body = value as Record<string, unknown>;
  if (!Array.isArray(body.agencyWorks)) return value;
  const found = (w: unknown): unknown => {
    if (w === null || typeof w !== 'object') return w;
    const { agencyCode, agencyWorkCode } = w as Record<string, unknown>;
    if (typeof agencyCode !== 'string' || !/^[0-9]{3}$/.test(agencyCode) || typeof agencyWorkCode !== 'string' || ctx.state.workKnown(agencyCode, agencyWorkCode)) return w;
    const holder = ctx.state.agencyWithWorkCode(agencyWorkCode);
    return holder === undefined ? w : { ...w, agencyCode: holder };
  };
  return { ...body, agencyWorks: (body.agencyWorks as unknown[]).map(found) };
}

/**
 * Choice `merge-items-lookup-400`: the items of the body are never validated, only looked up, before the
 * preferred ISWC: an ISWC the server does not have is 400 (production's 202), an agency work it does not
 * know is 400 (203). Values of another type than a string are left to the binder. Null when all are found.
 */
function itemsLookedUp400(ctx: Context, value: unknown, bad: (code: ErrorCode, message: string, business?: string) => Reply): Reply | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const body = value as Record<string, unknown>;
  // The faults that leave items unchecked or take unknown ISWCs act on this lookup too (iswcNotFound).
  for (const [i, iswc] of (Array.isArray(body.iswcs) ? (body.iswcs as unknown[]) : []).entries()) {
    if (typeof iswc === 'string' && iswcNotFound(ctx, iswc, i)) return bad('BAD_BODY', `ISWC ${iswc} matches nothing`, '202');
  }
  for (const work of Array.isArray(body.agencyWorks) ? (body.agencyWorks as unknown[]) : []) {
    if (work === null || typeof work !== 'object') continue;
    const { agencyCode, agencyWorkCode } = work as Record<string, unknown>;
    if (typeof agencyCode === 'string' && typeof agencyWorkCode === 'string' && !ctx.state.workKnown(agencyCode, agencyWorkCode)) return bad('BAD_BODY', `agency work ${agencyCode}/${agencyWorkCode} matches nothing`, '203');
  }
  return null;
}

/**
 * Choice `merge-items-looked-up-first`: each item of the body is looked up before it is validated, as a
 * server that finds each ISWC and agency work in its store and checks what it found would: an ISWC off the
 * pattern, or an agency work past its limits, is simply not found (404). Values of another type than a
 * string are left to validation (a binder refuses them before any lookup). Null when every item is known.
 */
function lookedUpFirst(ctx: Context, value: unknown, notFound: () => Reply): Reply | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const body = value as Record<string, unknown>;
  for (const [i, iswc] of (Array.isArray(body.iswcs) ? (body.iswcs as unknown[]) : []).entries()) {
    if (typeof iswc === 'string' && iswcNotFound(ctx, iswc, i)) return notFound();
  }
  for (const work of Array.isArray(body.agencyWorks) ? (body.agencyWorks as unknown[]) : []) {
    if (work === null || typeof work !== 'object') continue;
    const { agencyCode, agencyWorkCode } = work as Record<string, unknown>;
    if (typeof agencyCode === 'string' && typeof agencyWorkCode === 'string' && !ctx.state.workKnown(agencyCode, agencyWorkCode)) return notFound();
  }
  return null;
}

/**
 * 4.2 Merge. 400 for a body that does not decode or breaks MergeRequest, for a missing or invalid
 * `agency`, and for a missing or malformed `preferredIswc` (pattern and check digit: server's choice).
 * 404 when the preferred ISWC does not exist, and by the reference choices when an ISWC of `iswcs` does
 * not (400 by the choice `refuse-as-400`). On 204 the ISWCs and agency works become children of the
 * preferred ISWC, and the works can then be demerged.
 */
export async function handleMerge(ctx: Context, req: IncomingMessage, op: Operation, rawQuery: string): Promise<Reply | null> {
  const f = ctx.faults;
  const spec = op.body;
  if (!spec) throw new Error(`${op.id}: the contract lacks its request body`);
  const bad = (code: ErrorCode, message: string, business?: string): Reply => errorReply(ctx, 400, { code, message, where: 'handleMerge', ...(business !== undefined ? { business } : {}) });
  const badParam = (problem: Problem): Reply => errorReply(ctx, 400, { code: problemCode(problem), message: problem.message, where: 'handleMerge', param: problem.param });
  const notFound = (): Reply => (f.has('merge-404-as-400') ? errorReply(ctx, 400, { code: 'NOT_FOUND', message: ISWC_NOT_FOUND, where: 'handleMerge' }) : errorReply(ctx, 404, { code: 'NOT_FOUND', message: ISWC_NOT_FOUND, where: 'handleMerge' }));

  const body = await decodeRequestBody(ctx, req, spec);
  // The shape family (server/shape-faults.ts): a role left undone on one shape of body, read as it came.
  const skipped = (role: ShapeRole): boolean => f.shaped && body.ok && shapeRoleSkipped((id) => f.has(id), op.id, role, body.value);
  // The members a JSON body's object carries (undefined for XML, or a body that is no object).
  const jsonMembers = body.ok && body.format === 'json' && body.value !== null && typeof body.value === 'object' && !Array.isArray(body.value) ? Object.keys(body.value) : undefined;
  // Fault `merge-json-list-absent-noop`: a JSON body without its "iswcs" member merges nothing.
  const listAbsent = jsonMembers !== undefined && !jsonMembers.includes('iswcs');
  const effect = !f.has('merge-no-effect') && !skipped('outcome') && !(f.has('merge-json-list-absent-noop') && listAbsent);
  const query = new Query(ctx, op, rawQuery);
  // Choice `preferred-looked-up-first`: nothing else is read of a request whose preferred ISWC does not exist.
  if (lookedUpFirst404(ctx, query, body)) return notFound();
  // Choice `binding-problem-json`: a body that does not bind is ASP.NET Core's validation problem, before any rule of the query.
  const binding = ctx.choices.has('binding-problem-json');
  if (!body.ok) return mediaFailure(ctx, body, () => (binding ? validationProblem('', body.error) : bad('BAD_BODY', body.error)));
  // Choice `merge-json-lists-required`: both lists are [Required] on the JSON binder: a body without one is a validation problem.
  const listMissing = ctx.choices.has('merge-json-lists-required') ? ['iswcs', 'agencyWorks'].find((name) => jsonMembers !== undefined && !jsonMembers.includes(name)) : undefined;
  if (listMissing !== undefined) return validationProblem(listMissing, `The ${listMissing} field is required.`);
  const unbound = binding ? mergeBindingError(body.value) : undefined;
  if (unbound) return validationProblem(unbound.field, unbound.message);

  const repeated = query.repeated();
  if (repeated) return badParam(repeated);
  if (skipped('accept')) return bad('BAD_BODY', 'this server does not take a merge of this shape');
  // Choice `business-codes` keeps production's order: the agency (103) before the preferred ISWC (113, 141).
  const agencyFirst = ctx.choices.has('business-codes') ? query.string(Q.agency) : undefined;
  if (agencyFirst && !agencyFirst.ok) return badParam(agencyFirst.problem);
  const preferred = query.iswc(Q.preferredIswc);
  if (!preferred.ok) return badParam(preferred.problem);
  const agency = agencyFirst ?? query.string(Q.agency);
  if (!agency.ok) return badParam(agency.problem);
  // Choice `agency-registry`: an agency the registry does not hold (IV_08, 103).
  if (ctx.choices.has('agency-registry') && !ctx.knownAgencies.has(agency.value)) return bad('BAD_PARAMETER', `agency ${agency.value} is not in the registry`, '103');
  let value = f.has('drop-invalid-iswcs') ? dropInvalidIswcs(body.value) : body.value;
  if (f.has('merge-drops-invalid-works')) {
    const kept = dropInvalidWorks(ctx, op, spec.resource, value);
    // What the fault hides behind: a merge left with nothing to merge is refused as an empty one.
    if (itemCount(kept) === 0 && itemCount(value) > 0) return bad('BAD_BODY', 'the merge names nothing to merge');
    value = kept;
  }
  if (skipped('broken')) value = dropInvalidWorks(ctx, op, spec.resource, dropInvalidIswcs(value));
  // Well-formed ISWCs the server does not have, dropped before any lookup (the choices' included).
  if (skipped('unknown') && value !== null && typeof value === 'object' && Array.isArray((value as MergeBody).iswcs)) {
    const v = value as MergeBody;
    value = { ...v, iswcs: (v.iswcs as unknown[]).filter((i) => typeof i !== 'string' || validateNode(iswcSchema(), i).length > 0 || ctx.state.iswcExists(i)) };
  }
  // Faults `merge-iswcs-ignored-with-works` and `merge-works-ignored-with-iswcs`: one list dropped, unread (not even looked up), while the other is present.
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { iswcs, agencyWorks, ...rest } = value as Record<string, unknown>;
    const carries = (list: unknown): boolean => Array.isArray(list) && list.length > 0;
    if (f.has('merge-iswcs-ignored-with-works') && carries(agencyWorks)) value = { ...rest, agencyWorks };
    else if (f.has('merge-works-ignored-with-iswcs') && carries(iswcs)) value = { ...rest, iswcs };
  }
  // Fault `merge-works-ignore-agency`: each agency work it does not hold, found by its work code alone (a
  // lookup that forgets the agency), whatever the agency the body names; a value no agency code can be is
  // still refused first, as a binder would.
  if (f.has('merge-works-ignore-agency')) value = worksByCodeAlone(ctx, value);
  // After the faults that drop items: they act wherever their description applies, lookups included.
  if (ctx.choices.has('merge-items-lookup-400')) {
    const refused = itemsLookedUp400(ctx, value, bad);
    if (refused) return refused;
  }
  if (f.has('merge-xml-works-ignored') && body.format === 'xml' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { agencyWorks: _dropped, ...rest } = value as Record<string, unknown>;
    value = rest;
  }
  if (ctx.choices.has('foreign-agency-first')) {
    if (agency.value !== ctx.keyAgency) return errorReply(ctx, 403, { code: 'FORBIDDEN', message: 'another agency', where: 'handleMerge' });
    const works = (value as MergeBody | null)?.agencyWorks;
    if (Array.isArray(works) && works.some((w) => w !== null && typeof w === 'object' && (w as { agencyCode?: unknown }).agencyCode !== undefined && (w as { agencyCode?: unknown }).agencyCode !== ctx.keyAgency)) {
      return errorReply(ctx, 403, { code: 'FORBIDDEN', message: 'an agency work of another agency', where: 'handleMerge' });
    }
  }
  // Choice `merge-extra-fields-refused`: a field the document does not name is a bad request (Newtonsoft's MissingMemberHandling.Error).
  if (ctx.choices.has('merge-extra-fields-refused') && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const body = value as Record<string, unknown>;
    const works = Array.isArray(body.agencyWorks) ? (body.agencyWorks as unknown[]) : [];
    const odd = Object.keys(body).some((k) => k !== 'iswcs' && k !== 'agencyWorks') || works.some((w) => w !== null && typeof w === 'object' && Object.keys(w).some((k) => k !== 'agencyCode' && k !== 'agencyWorkCode'));
    if (odd) return bad('BAD_BODY', 'a field the document does not name');
  }
  if (ctx.choices.has('merge-items-in-order')) {
    const refused = itemsInOrder(ctx, op, spec.resource, value, preferred.value, effect, bad, notFound);
    // The loop with a commit per item merged every item as it went: nothing is left to do.
    if (refused === 'merged') return f.has('no-body-204-violated') ? { status: op.successStatus, bodyOn204: '{}' } : empty(op.successStatus);
    if (refused) return refused;
  }
  if (ctx.choices.has('merge-items-looked-up-first')) {
    const refused = lookedUpFirst(ctx, value, notFound);
    if (refused) return refused;
  }
  const violations = ctx.limits.checkBody(op.id, spec.resource, value);
  const first = violations[0];
  if (first) return bad('BAD_BODY', `${first.field} ${first.message}`);
  const merge = value as MergeBody;
  const rule = businessRefusal(ctx, preferred.value, merge);
  if (rule) return bad('BAD_BODY', rule);

  const foreign = refuseForeignAgency(ctx, op, agency.value);
  if (foreign) return foreign;
  if (ctx.choices.has('merge-own-works-only') && (merge.agencyWorks ?? []).some((w) => w.agencyCode !== agency.value)) return errorReply(ctx, 403, { code: 'FORBIDDEN', message: 'an agency work of another agency', where: 'handleMerge' });
  let iswcs = merge.iswcs ?? [];
  if (f.has('duplicate-items-500') && new Set(iswcs).size < iswcs.length) return text(500, 'Internal Server Error');
  const works = merge.agencyWorks ?? [];
  // Fault `merge-empty-unknown-preferred-204`: nothing to merge, nothing looked up.
  if (f.has('merge-empty-unknown-preferred-204') && iswcs.length === 0 && works.length === 0) return empty(op.successStatus);
  // Fault `merge-several-unknown-preferred-400`: a merge of several items needs an existing preferred ISWC, or it is a bad request.
  if (f.has('merge-several-unknown-preferred-400') && !ctx.state.iswcExists(preferred.value) && iswcs.length + works.length > 1) return bad('BAD_BODY', 'a merge of several items needs an existing preferred ISWC');
  if (!ctx.state.iswcExists(preferred.value) && !(f.has('merge-works-only-unknown-preferred') && iswcs.length === 0 && works.length > 0)) return notFound();
  // Choice `merge-eligibility`: the query agency must hold a submission on what is merged (PV_10, 150).
  if (ctx.choices.has('merge-eligibility') && !ctx.state.holdsAny(agency.value, [preferred.value, ...iswcs], works)) return bad('BAD_PARAMETER', `agency ${agency.value} holds no submission on the works to merge`, '150');
  if ((ctx.choices.has('merge-unknown-works-404') || f.has('merge-drops-invalid-works')) && works.some((w) => !ctx.state.workKnown(w.agencyCode, w.agencyWorkCode))) return notFound();
  if (f.has('merge-drops-unknown-iswcs')) {
    const known = iswcs.filter((iswc) => ctx.state.iswcExists(iswc));
    if (known.length < iswcs.length && known.length + works.length === 0) return bad('BAD_BODY', 'the merge names nothing to merge');
    iswcs = known;
  }
  // Faults `merge-iswc-pattern-loose` and `array-tail-unchecked`: the items they do not check are not looked up either.
  const unchecked = (iswc: string, i: number): boolean => (f.has('merge-iswc-pattern-loose') && validateNode(iswcSchema(), iswc).length > 0) || (f.has('array-tail-unchecked') && i >= 3);
  const missing = (iswc: string, i: number): boolean => !f.has('merge-unknown-body-iswc-accepted') && !unchecked(iswc, i) && !ctx.state.iswcExists(iswc);
  const refuseMissing = (): Reply => (ctx.choices.has('refuse-as-400') ? errorReply(ctx, 400, { code: 'NOT_FOUND', message: 'an ISWC to merge does not exist', where: 'handleMerge' }) : notFound());
  const merged = f.has('merge-ignores-agency-works') ? [] : works;
  // Fault `merge-iswcs-clears-works`: a merge of ISWCs alone rebuilds the preferred ISWC's group, and the agency
  // works merged into it before are dropped.
  if (effect && f.has('merge-iswcs-clears-works') && iswcs.length > 0 && works.length === 0 && !iswcs.some((iswc, i) => missing(iswc, i))) ctx.state.demergeAll(preferred.value);
  if (ctx.choices.has('merge-commits-per-item')) {
    // Choice `merge-commits-per-item`: once the body is bound and validated whole, each item is looked up
    // and merged at once, ISWCs then agency works, without a transaction: an ISWC the server does not have
    // is refused with the items before it already merged, in the set of metadata the request started. The
    // faults above act on it as on the atomic merge.
    const set = ctx.state.newMergeSet();
    for (const [i, iswc] of iswcs.entries()) {
      if (missing(iswc, i)) return refuseMissing();
      if (effect && !f.has('merge-iswcs-not-merged')) ctx.state.merge(preferred.value, [iswc], [], set);
    }
    // The agency works, then: none of them can be refused at this point (an empty merge is merged too).
    if (effect) ctx.state.merge(preferred.value, [], merged, set);
  } else {
    if (iswcs.some(missing)) {
      // Choice `merge-partial-404`: what it has is merged all the same (set-based, or a loop that goes on).
      if (ctx.choices.has('merge-partial-404') && effect) ctx.state.merge(preferred.value, iswcs.filter((iswc) => ctx.state.iswcExists(iswc)), merged.filter((w) => ctx.state.workKnown(w.agencyCode, w.agencyWorkCode)));
      return refuseMissing();
    }
    // Fault `merge-iswcs-not-merged`: the ISWCs passed every check; nothing of them is merged.
    if (effect) ctx.state.merge(preferred.value, f.has('merge-iswcs-not-merged') ? [] : iswcs, merged);
  }
  if (f.has('no-body-204-violated')) return { status: op.successStatus, bodyOn204: '{}' };
  return empty(op.successStatus);
}

/**
 * Choice `preferred-looked-up-first`: is the preferred ISWC of this request one that does not exist? A body
 * over the size cap, or one whose client went away, is still answered as such (the connection closes).
 */
export function lookedUpFirst404(ctx: Context, query: Query, body?: BodyOutcome): boolean {
  if (!ctx.choices.has('preferred-looked-up-first')) return false;
  if (body && !body.ok && (body.kind === 'too-large' || body.kind === 'aborted')) return false;
  return !ctx.state.iswcExists(query.raw(Q.preferredIswc) ?? '');
}

/**
 * 4.4 Demerge. 400 for a missing or invalid `agency`/`workcode` and a missing or malformed
 * `preferredIswc`; 404 when the preferred ISWC does not exist, and by the reference choices when the work
 * (agency, workcode) is not merged into it (400 by the choice `refuse-as-400`). On 204 the work is
 * detached, so a repeat is refused.
 */
export function handleDemerge(ctx: Context, op: Operation, rawQuery: string): Reply {
  const reply = demergeReply(ctx, op, rawQuery);
  // Fault `demerge-lapses`: a demerge refused, whatever the reason, merges again the work it names, once
  // answered, if a demerge removed it (a repeat right after the 204 is refused; a later one finds it).
  if (ctx.faults.has('demerge-lapses') && reply.status >= 400) {
    const q = new URLSearchParams(rawQuery);
    ctx.state.lapseOn('demerge', [q.get(Q.preferredIswc) ?? '', q.get(Q.agency) ?? '', q.get(Q.workcode) ?? '']);
  }
  return reply;
}

function demergeReply(ctx: Context, op: Operation, rawQuery: string): Reply {
  const f = ctx.faults;
  const c = ctx.choices;
  const bad = (code: ErrorCode, message: string, business?: string): Reply => errorReply(ctx, 400, { code, message, where: 'handleDemerge', ...(business !== undefined ? { business } : {}) });
  const badParam = (problem: Problem): Reply => errorReply(ctx, 400, { code: problemCode(problem), message: problem.message, where: 'handleDemerge', param: problem.param });
  const notFound = (): Reply => errorReply(ctx, f.has('demerge-404-as-410') ? 410 : 404, { code: 'NOT_FOUND', message: ISWC_NOT_FOUND, where: 'handleDemerge' });

  const query = new Query(ctx, op, rawQuery);
  if (lookedUpFirst404(ctx, query)) return notFound();
  const repeated = query.repeated();
  if (repeated) return badParam(repeated);
  const preferred = query.iswc(Q.preferredIswc);
  if (!preferred.ok) return badParam(preferred.problem);
  const agency = query.string(Q.agency);
  if (!agency.ok) return badParam(agency.problem);
  const workcode = query.string(Q.workcode);
  if (!workcode.ok) return badParam(workcode.problem);
  const odd = c.has('business-odd-values') ? oddValue({ agency: agency.value, workcode: workcode.value }) : undefined;
  if (odd) return bad('BAD_PARAMETER', odd);
  if (c.has('work-code-charset') && !WORK_CODE_CHARS.test(workcode.value)) return bad('BAD_PARAMETER', 'workcode holds a character work codes do not');

  const foreign = refuseForeignAgency(ctx, op, agency.value);
  if (foreign) return foreign;
  // Fault `demerge-ignores-agency`: the agency the work is merged under stands in for the one asked, in
  // every lookup the server makes.
  const effectiveAgency = f.has('demerge-ignores-agency') ? (ctx.state.mergedAgencyOf(preferred.value, workcode.value) ?? agency.value) : agency.value;
  if (c.has('demerge-by-work-400') && ctx.state.isMergedAnywhere(effectiveAgency, workcode.value) && !ctx.state.isMerged(preferred.value, effectiveAgency, workcode.value)) {
    return bad('NOT_FOUND', 'this metadata is merged into another preferred ISWC');
  }
  // Choice `demerge-unmerged-400`: the work is looked up first; metadata merged nowhere is a business error.
  if (c.has('demerge-unmerged-400') && !ctx.state.isMergedAnywhere(effectiveAgency, workcode.value)) return bad('NOT_FOUND', 'this metadata is merged into no preferred ISWC');
  // Choice `unknown-preferred-400`: an unknown preferred ISWC is a business error (production's 153).
  if (!ctx.state.iswcExists(preferred.value)) return c.has('unknown-preferred-400') && !f.has('demerge-404-as-410') ? bad('NOT_FOUND', 'the preferred ISWC does not exist', '153') : notFound();
  // Choice `merge-eligibility`: the query agency must hold a submission on the preferred ISWC or the work (PV_10, 150);
  // a lookup too, so the fault's agency stands in for the one asked here as well.
  if (c.has('merge-eligibility') && !ctx.state.holdsAny(effectiveAgency, [preferred.value], [{ agencyCode: effectiveAgency, agencyWorkCode: workcode.value }].filter((w) => ctx.state.workKnown(w.agencyCode, w.agencyWorkCode)))) {
    return bad('BAD_PARAMETER', `agency ${agency.value} holds no submission on the preferred ISWC or the work`, '150');
  }
  if (f.has('demerge-ignores-preferred')) {
    const own = ctx.state.mergedIswcOf(agency.value, workcode.value);
    if (own !== undefined) {
      ctx.state.demerge(own, agency.value, workcode.value);
      return empty(op.successStatus);
    }
  }
  if (!ctx.state.isMerged(preferred.value, effectiveAgency, workcode.value)) {
    if (f.has('after-merge-demerge-any') && ctx.state.wasMergedInto(preferred.value)) return empty(op.successStatus);
    return c.has('refuse-as-400') && !f.has('demerge-404-as-410') ? bad('NOT_FOUND', 'this metadata is not merged into the preferred ISWC') : notFound();
  }
  if (f.has('demerge-removes-all')) ctx.state.demergeAll(preferred.value);
  else if (!f.has('demerge-no-effect')) {
    if (c.has('demerge-merged-iswc')) ctx.state.demergeIswc(preferred.value, effectiveAgency, workcode.value);
    else if (c.has('demerge-merge-set')) ctx.state.demergeSet(preferred.value, effectiveAgency, workcode.value);
    else ctx.state.demerge(preferred.value, effectiveAgency, workcode.value);
    const [p, a, w] = [preferred.value, effectiveAgency, workcode.value];
    if (f.has('demerge-lapses')) ctx.state.lapsesLater('demerge', [p, a, w], () => ctx.state.merge(p, [], [{ agencyCode: a, agencyWorkCode: w }]));
  }
  return empty(op.successStatus);
}
