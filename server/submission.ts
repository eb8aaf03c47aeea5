import type { Operation } from '../lib/contract/operations.ts';
import type { Context } from './context.ts';
import { errorReply, notFoundReply } from './errors.ts';
import { refuseForeignAgency } from './auth.ts';
import type { Problem } from './query.ts';
import { problemCode, Q, Query } from './query.ts';
import type { Reply } from './wire.ts';
import { empty, text } from './wire.ts';

/** 404 text of the submission delete (not shown by the document: choice). */
export const SUBMISSION_NOT_FOUND = 'Submission not found';

/**
 * 4.3 Submission delete. 400 for a missing or invalid `agency`/`workcode` (the document's stated
 * meaning of this 400), and, as the server's choices, for a missing or malformed `preferredIswc`, a
 * missing or non-int32 `sourceDb` and a missing or blank `reasonCode`. A submission is identified by
 * (preferredIswc, agency, workcode, sourceDb) (2.5): 404 when none matches all four. 204 removes it.
 */
export function handleDelete(ctx: Context, op: Operation, rawQuery: string): Reply {
  const f = ctx.faults;
  const bad = (problem: Problem): Reply => errorReply(ctx, 400, problemCode(problem), problem.message, 'handleDelete');
  // Fault `delete-400-as-404`: the documented 400 for agency and work code becomes a 404.
  const badCode = (problem: Problem): Reply => (f.has('delete-400-as-404') ? text(404, SUBMISSION_NOT_FOUND) : bad(problem));

  const query = new Query(ctx, op, rawQuery);
  const repeated = query.repeated();
  if (repeated) return bad(repeated);
  const agency = query.string(Q.agency);
  if (!agency.ok) return badCode(agency.problem);
  const workcode = query.string(Q.workcode);
  if (!workcode.ok) return badCode(workcode.problem);
  const preferred = query.iswc(Q.preferredIswc);
  if (!preferred.ok) return bad(preferred.problem);
  const sourceDb = query.integer(Q.sourceDb);
  if (!sourceDb.ok) return bad(sourceDb.problem);
  // Alternative choice: reasonCode is free text, blank or missing alike.
  const reasonCode = ctx.alternative ? { ok: true as const } : query.nonBlank(Q.reasonCode);
  if (!reasonCode.ok) return bad(reasonCode.problem);

  const foreign = refuseForeignAgency(ctx, op, agency.value);
  if (foreign) return foreign;
  // Fault `delete-ignores-source-db`: the stored submission's own sourceDb stands in for the one asked.
  const effectiveSourceDb = f.has('delete-ignores-source-db') ? (ctx.state.sourceDbOf(preferred.value, agency.value, workcode.value) ?? sourceDb.value) : sourceDb.value;
  // Fault `delete-ignores-agency`: the stored submission's own agency stands in for the one asked.
  const effectiveAgency = f.has('delete-ignores-agency') ? (ctx.state.submissionAgencyOf(preferred.value, workcode.value, effectiveSourceDb) ?? agency.value) : agency.value;
  if (!ctx.state.hasSubmission(preferred.value, effectiveAgency, workcode.value, effectiveSourceDb)) {
    return f.has('delete-404-as-400') ? errorReply(ctx, 400, 'NOT_FOUND', SUBMISSION_NOT_FOUND, 'handleDelete') : notFoundReply(ctx, 404, SUBMISSION_NOT_FOUND);
  }
  if (!f.has('delete-no-effect')) ctx.state.deleteSubmission(preferred.value, effectiveAgency, workcode.value, effectiveSourceDb);
  return empty(op.successStatus);
}
