import * as observed from './observed.ts';
import * as targeted from './targeted.ts';
import type { Check } from './types.ts';
import * as universal from './universal.ts';

/** Every check of the harness, in report order. Adding a check: one file entry and one line here. */
const ALL: readonly Check<never>[] = [
  universal.answered,
  universal.statusDocumented,
  universal.no5xx,
  universal.contentTypeMatches,
  universal.noInternals,
  universal.noBodyOn204,
  universal.runResponseBody,
  universal.textBadRequest,
  universal.textNotAuthorized,
  targeted.success,
  targeted.notFound,
  targeted.refused,
  targeted.queryRefused,
  targeted.authRequired,
  targeted.limitRejected,
  targeted.limitAccepted,
  targeted.typeRejected,
  targeted.malformedRejected,
  targeted.contentTypeOptional,
  targeted.outcomeMerge,
  targeted.outcomeDemerge,
  targeted.outcomeDemergeOne,
  targeted.outcomeDelete,
  targeted.outcomeIdentity,
  targeted.methodNotAllowed,
  targeted.unknownPath,
  targeted.unsupportedMediaType,
  targeted.payloadTooLarge,
  targeted.xmlEntities,
  targeted.outcomeSequence,
  observed.observedRequiredness,
  observed.observedResponseFormat,
  observed.observedAuthAnswer,
  observed.observedIswcHandling,
  observed.observedReasonCode,
  observed.observedRunId,
  observed.observedRefusal,
  observed.observedCharacters,
  observed.observedCoercion,
  observed.observedLenientSyntax,
  observed.observedEdgeValues,
  observed.observedErrorBody,
] as readonly Check<never>[];

function indexById(checks: readonly Check<never>[]): Map<string, Check<never>> {
  const byId = new Map<string, Check<never>>();
  for (const check of checks) {
    if (byId.has(check.id)) throw new Error(`Duplicate check id ${check.id}`);
    if (check.sections.length === 0) throw new Error(`Check ${check.id} names no section`);
    byId.set(check.id, check);
  }
  return byId;
}

const BY_ID = indexById(ALL);

export function allChecks(): readonly Check<never>[] {
  return ALL;
}

export function checkById(id: string): Check<never> {
  const check = BY_ID.get(id);
  if (!check) throw new Error(`Unknown check ${id}`);
  return check;
}

export function everyExchangeChecks(): readonly Check<never>[] {
  return ALL.filter((c) => c.scope === 'every-exchange');
}
