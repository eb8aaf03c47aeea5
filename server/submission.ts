import type { Operation } from '../lib/contract/operations.ts';
import type { Context } from './context.ts';
import { errorReply } from './errors.ts';
import { refuseForeignAgency } from './auth.ts';
import type { Problem } from './query.ts';
import { problemCode, Q, Query } from './query.ts';
import { oddValue } from './readings.ts';
import type { Reply } from './wire.ts';
import { empty, text } from './wire.ts';
import { lookedUpFirst404, WORK_CODE_CHARS } from './merge.ts';
import { validationProblem } from './production.ts';

/** 404 text of the submission delete (not shown by the document: choice). */
export const SUBMISSION_NOT_FOUND = 'Submission not found';

/**
 * 4.3 Submission delete. 400 for a missing or invalid `agency`/`workcode` (the document's stated meaning
 * of this 400), and, as the server's choices, for a missing or malformed `preferredIswc`, a missing or
 * non-int32 `sourceDb` and a missing or blank `reasonCode`. A submission is identified by
 * (preferredIswc, agency, workcode, sourceDb) (2.5): 404 when none matches all four (by the choice
 * `refuse-as-400`, 404 only when the preferred ISWC itself does not exist, 400 otherwise). 204 removes it.
 */
export function handleDelete(ctx: Context, op: Operation, rawQuery: string): Reply {
  const reply = deleteReply(ctx, op, rawQuery);
  // Fault `delete-lapses`: a delete refused, whatever the reason, brings back the submission it names, once
  // answered, if a delete removed it (a repeat right after the 204 is refused; a later one finds it).
  if (ctx.faults.has('delete-lapses') && reply.status >= 400) {
    const q = new URLSearchParams(rawQuery);
    ctx.state.lapseOn('delete', [q.get(Q.preferredIswc) ?? '', q.get(Q.agency) ?? '', q.get(Q.workcode) ?? '', Number(q.get(Q.sourceDb))]);
  }
  return reply;
}

function deleteReply(ctx: Context, op: Operation, rawQuery: string): Reply {
  const f = ctx.faults;
  const c = ctx.choices;
  const bad = (problem: Problem): Reply => errorReply(ctx, 400, { code: problemCode(problem), message: problem.message, where: 'handleDelete', param: problem.param });

  const query = new Query(ctx, op, rawQuery);
  // Choice `preferred-looked-up-first`: nothing else is read of a request whose preferred ISWC does not exist.
  if (lookedUpFirst404(ctx, query)) return errorReply(ctx, 404, { code: 'NOT_FOUND', message: SUBMISSION_NOT_FOUND, where: 'handleDelete' });
  const repeated = query.repeated();
  if (repeated) return bad(repeated);
  // Fault `delete-no-workcode-500`: the handler reads a workcode that is not there.
  if (f.has('delete-no-workcode-500') && query.raw(Q.workcode) === undefined) return text(500, 'Internal Server Error');
  // Choice `binding-problem-json`: a sourceDb that does not bind to an Int32 is ASP.NET Core's validation problem, before any rule.
  const givenSourceDb = query.raw(Q.sourceDb);
  if (c.has('binding-problem-json') && givenSourceDb !== undefined && givenSourceDb !== '' && !query.integer(Q.sourceDb).ok) return validationProblem('sourceDb', `The value '${givenSourceDb}' is not valid.`);
  const agency = query.string(Q.agency);
  if (!agency.ok) return bad(agency.problem);
  // Choice `agency-registry`: an agency the registry does not hold (IV_08, IV_10: 103).
  if (c.has('agency-registry') && !ctx.knownAgencies.has(agency.value)) return errorReply(ctx, 400, { code: 'BAD_PARAMETER', message: `agency ${agency.value} is not in the registry`, where: 'handleDelete', business: '103' });
  const workcode = query.string(Q.workcode);
  if (!workcode.ok) return bad(workcode.problem);
  const preferred = query.iswc(Q.preferredIswc);
  if (!preferred.ok) return bad(preferred.problem);
  const sourceDb = query.integer(Q.sourceDb);
  if (!sourceDb.ok) return bad(sourceDb.problem);
  const reasonCode = c.has('reason-code-free') ? { ok: true as const } : query.nonBlank(Q.reasonCode);
  // Choice `business-codes`: production looks the work up (PV_01, 130) before it reads the reason (PV_13, 133).
  if (!reasonCode.ok && c.has('business-codes') && !ctx.state.findSubmission({ agency: agency.value, workcode: workcode.value })) {
    return errorReply(ctx, 400, { code: 'NOT_FOUND', message: 'no such work', where: 'handleDelete', business: '130' });
  }
  if (!reasonCode.ok) return bad(reasonCode.problem);
  if (c.has('reason-code-list') && !['01', '02', '03', '04', '05'].includes(query.raw(Q.reasonCode) ?? '')) return bad({ param: Q.reasonCode, kind: 'invalid', message: 'reasonCode is not an allowed value' });
  if (c.has('source-db-known') && !ctx.knownSourceDbs.has(sourceDb.value)) return bad({ param: Q.sourceDb, kind: 'invalid', message: `sourceDb ${sourceDb.value} is not a known source database` });
  const odd = c.has('business-odd-values') ? oddValue({ agency: agency.value, workcode: workcode.value }) : undefined;
  if (odd) return bad({ param: Q.workcode, kind: 'invalid', message: odd });
  if (c.has('work-code-charset') && !WORK_CODE_CHARS.test(workcode.value)) return bad({ param: Q.workcode, kind: 'invalid', message: 'workcode holds a character work codes do not' });
  if (c.has('delete-with-merges-400') && ctx.state.hasMergedWorks(preferred.value)) return bad({ param: Q.preferredIswc, kind: 'invalid', message: 'agency works are merged into this ISWC' });
  if (c.has('delete-merged-child-400') && ctx.state.hasParent(preferred.value)) return bad({ param: Q.preferredIswc, kind: 'invalid', message: 'the ISWC is merged into another preferred ISWC' });

  const foreign = refuseForeignAgency(ctx, op, agency.value);
  if (foreign) return foreign;
  // Choice `key-source-db-scope`: the key acts for the profile's source databases only.
  if (c.has('key-source-db-scope') && !ctx.keySourceDbs.has(sourceDb.value)) return errorReply(ctx, 403, { code: 'FORBIDDEN', message: `the subscription key does not act for source database ${sourceDb.value}`, where: 'handleDelete' });
  // Faults that find the submission without one of its values, then delete it (in this order).
  const exists = ctx.state.iswcExists(preferred.value);
  const ignoring = [
    f.has('delete-unknown-preferred-by-work') && !exists ? { agency: agency.value, workcode: workcode.value, sourceDb: sourceDb.value } : undefined,
    f.has('delete-ignores-workcode') ? { preferredIswc: preferred.value, agency: agency.value, sourceDb: sourceDb.value } : undefined,
    f.has('delete-ignores-preferred') && exists ? { agency: agency.value, workcode: workcode.value, sourceDb: sourceDb.value } : undefined,
  ];
  for (const known of ignoring) {
    const own = known ? ctx.state.findSubmission(known) : undefined;
    if (own) {
      ctx.state.deleteSubmission(own.preferredIswc, own.agency, own.workcode, own.sourceDb);
      return empty(op.successStatus);
    }
  }
  // Fault `delete-ignores-source-db`: the stored submission's own sourceDb stands in for the one asked.
  // Fault `delete-source-db-zero-any`: sourceDb 0 read as a wildcard, any source database.
  const anySource = f.has('delete-ignores-source-db') || (f.has('delete-source-db-zero-any') && sourceDb.value === 0);
  const effectiveSourceDb = anySource ? (ctx.state.findSubmission({ preferredIswc: preferred.value, agency: agency.value, workcode: workcode.value })?.sourceDb ?? sourceDb.value) : sourceDb.value;
  // Fault `delete-ignores-agency`: the stored submission's own agency stands in for the one asked.
  const effectiveAgency = f.has('delete-ignores-agency') ? (ctx.state.findSubmission({ preferredIswc: preferred.value, workcode: workcode.value, sourceDb: effectiveSourceDb })?.agency ?? agency.value) : agency.value;
  if (!ctx.state.hasSubmission(preferred.value, effectiveAgency, workcode.value, effectiveSourceDb)) {
    const notFound = { code: 'NOT_FOUND' as const, message: SUBMISSION_NOT_FOUND, where: 'handleDelete' };
    // Production's codes: the work exists with another preferred ISWC, 117 (PV_22; its test DeleteExistingWorkFailureTests_01); no such work, 130 (PV_01).
    const workExists = ctx.state.findSubmission({ agency: effectiveAgency, workcode: workcode.value }) !== undefined;
    if (c.has('delete-by-work-400') && ctx.state.findSubmission({ agency: effectiveAgency, workcode: workcode.value, sourceDb: effectiveSourceDb }) !== undefined) return errorReply(ctx, 400, { ...notFound, message: 'invalid agency and work code provided', business: '117' });
    if (c.has('refuse-as-400') && ctx.state.iswcExists(preferred.value)) return errorReply(ctx, 400, { ...notFound, message: 'invalid agency and work code provided', business: workExists ? '117' : '130' });
    // Choice `unknown-preferred-400`: a delete naming a preferred ISWC that does not exist is a business error too (production's 130 and 117).
    if (c.has('unknown-preferred-400')) return errorReply(ctx, 400, { ...notFound, message: 'invalid agency and work code provided', business: ctx.state.findSubmission({ agency: effectiveAgency, workcode: workcode.value }) ? '117' : '130' });
    return errorReply(ctx, 404, notFound);
  }
  if (!f.has('delete-no-effect')) ctx.state.deleteSubmission(preferred.value, effectiveAgency, workcode.value, effectiveSourceDb);
  const [p, a, w, d] = [preferred.value, effectiveAgency, workcode.value, effectiveSourceDb];
  if (f.has('delete-lapses')) ctx.state.lapsesLater('delete', [p, a, w, d], () => ctx.state.restoreSubmission(p, a, w, d));
  return empty(op.successStatus);
}
