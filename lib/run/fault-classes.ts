import type { OperationId } from '../contract/operations.ts';

/**
 * Classes of fault (issue 37). A class is what a gate exists for: a key left unchecked on an operation, XML
 * refused, a 5xx to malformed input, an outcome not carried out. The reference server's catalogue has many
 * members of some classes (95 of its 171 spec faults are lenient readings of one field each) and one of
 * others; a ranking that counts members spends a budget on the big classes. So the first phase of every
 * budget (lib/run/plan-rank.ts, breadth) covers classes, each once, and the figures of docs/performance.md
 * weigh each class once (`npm run plan:classes`).
 *
 * A member of the catalogue names its class here. A fault not listed (one added since) is a class of its
 * own, so nothing is ever lost by a new fault: it only weighs as much as a class until it is listed.
 */

/** The roles a budget's breadth proves, in the order it proves them (the key first). */
export const ROLES = ['key', 'acceptance', 'success', 'outcome', 'lookup', 'item', 'limit', 'text', 'answer', 'status', 'http', 'spelling', 'shape', 'lenient'] as const;
export type Role = (typeof ROLES)[number];

/** `*` in a class: the operation of the case that shows the fault (a fault of every operation, shown on one). */
const CLASS_OF: Readonly<Record<string, string>> = {
  // The key, per operation: missing, wrong, compared loosely, checked after acting.
  'auth-missing-run': 'key/missing/notifyAgentRun',
  'auth-missing-run-end': 'key/missing/notifyAgentRun',
  'auth-missing-merge': 'key/missing/mergeIswcMetadata',
  'auth-missing-delete': 'key/missing/deleteSubmission',
  'auth-missing-demerge': 'key/missing/demergeIswcMetadata',
  'auth-wrong-key-accepted': 'key/wrong/*',
  'merge-wrong-key-accepted': 'key/wrong/mergeIswcMetadata',
  'delete-wrong-key-accepted': 'key/wrong/deleteSubmission',
  'demerge-wrong-key-accepted': 'key/wrong/demergeIswcMetadata',
  'empty-key-accepted': 'key/loose/*',
  'data-empty-key-accepted': 'key/loose/*',
  'key-case-insensitive': 'key/loose/*',
  'lenient.key.truncate': 'key/loose/notifyAgentRun',
  'lenient.key.prefix': 'key/loose/notifyAgentRun',
  'lenient.key.last-char': 'key/loose/notifyAgentRun',
  'lenient.key.strip-separators': 'key/loose/notifyAgentRun',
  'lenient.key.suffix': 'key/loose/notifyAgentRun',
  'auth-after-action': 'key/after-action/*',
  'merge-auth-after-action': 'key/after-action/mergeIswcMetadata',
  // The key on one shape of a body only (issue 38): a merge of ISWCs alone served without it.
  'merge-key-works-only': 'key/missing/mergeIswcMetadata',
  // A shape of the run's body (no agency named) that skips the key: the key role on one shape (issue 38), as the merge's.
  'run-key-agency-only': 'shape/key',
  'key-skipped-without-content-type': 'shape/key',
  'key-skipped-param-twice': 'shape/key',
  'key-skipped-extra-param': 'shape/key',
  'key-skipped-trailing-slash': 'shape/key',
  'key-skipped-path-case': 'shape/key',
  'key-skipped-text-xml': 'shape/key',
  'key-skipped-text-json': 'shape/key',
  'key-skipped-accept-any': 'shape/key',
  // The key skipped on a spelling every reader takes alike (a charset parameter, an Accept of the format sent,
  // a value percent-encoded): the key missing on an operation, proven by the key proofs every budget sends
  // (the key in another letter case goes spelled so, lib/generate/cases/key-proofs.ts), not a shape of its own.
  'key-skipped-accept-xml': 'key/spelling/*',
  'key-skipped-accept-json': 'key/spelling/*',
  'key-skipped-content-type-params': 'key/spelling/*',
  'key-skipped-percent-encoded': 'key/spelling/*',
  'auth-xml-unchecked': 'key/xml',
  // A valid body of each format accepted.
  'xml-request-unsupported': 'acceptance/xml',
  'xml-bodies-415': 'acceptance/xml',
  'xml-request-namespace': 'acceptance/xml',
  'xml-whitespace-refused': 'acceptance/xml',
  'content-type-params-refused': 'acceptance/json',
  // Each operation's success.
  'run-success-201': 'success/notifyAgentRun',
  // A valid run refused for an Accept every server must take.
  'accept-any-406': 'success/notifyAgentRun',
  'merge-success-200': 'success/mergeIswcMetadata',
  'no-body-204-violated': 'success/mergeIswcMetadata',
  'run-end-refused': 'success/run-end',
  // Each operation's outcome: what it changed, and that it changed what was named.
  'merge-no-effect': 'outcome/mergeIswcMetadata',
  'merge-json-list-absent-noop': 'outcome/mergeIswcMetadata',
  'merge-ignores-agency-works': 'outcome/mergeIswcMetadata',
  // XML's own path: a format is a shape of request, and a fault of one format a class of its own.
  'merge-xml-works-ignored': 'outcome/mergeIswcMetadata/xml',
  'merge-works-ignore-agency': 'outcome/mergeIswcMetadata/match',
  // A merge of ISWCs that drops the works merged before: what a merge adds, kept (a fresh reading of 2026-12-01).
  'merge-iswcs-clears-works': 'outcome/mergeIswcMetadata',
  'delete-no-effect': 'outcome/deleteSubmission',
  'delete-ignores-preferred': 'outcome/deleteSubmission/match',
  'delete-ignores-workcode': 'outcome/deleteSubmission/match',
  'delete-ignores-source-db': 'outcome/deleteSubmission/match',
  'delete-source-db-zero-any': 'outcome/deleteSubmission/match',
  'delete-ignores-agency': 'outcome/deleteSubmission/match',
  'delete-unknown-preferred-by-work': 'outcome/deleteSubmission/match',
  'demerge-no-effect': 'outcome/demergeIswcMetadata',
  'demerge-removes-all': 'outcome/demergeIswcMetadata/match',
  'demerge-ignores-preferred': 'outcome/demergeIswcMetadata/match',
  'demerge-ignores-agency': 'outcome/demergeIswcMetadata/match',
  'after-merge-demerge-any': 'outcome/demergeIswcMetadata/match',
  'run-ids-repeat': 'outcome/notifyAgentRun',
  // Two starts of one run, in different formats, answered one runId: seen by the run-wide ledger of runIds (lib/run/run-id-ledger.ts).
  'run-ids-per-format': 'outcome/notifyAgentRun',
  // The end of a run answered another run's runId: a class of its own beside two runs given one runId.
  'run-end-new-run-id': 'outcome/notifyAgentRun/end',
  'run-reend-new-run-id': 'outcome/notifyAgentRun/end',
  'run-end-other-agency-new-id': 'outcome/notifyAgentRun/end',
  // An effect that lapses after its 204 (issue 38): read back among the run's last requests.
  'delete-lapses': 'outcome/lapse',
  'demerge-lapses': 'outcome/lapse',
  // What does not exist is not found.
  'merge-works-only-unknown-preferred': 'lookup/mergeIswcMetadata',
  'merge-unknown-body-iswc-accepted': 'lookup/mergeIswcMetadata',
  'merge-drops-unknown-iswcs': 'lookup/mergeIswcMetadata',
  'merge-404-as-400': 'lookup/mergeIswcMetadata',
  'merge-several-unknown-preferred-400': 'lookup/mergeIswcMetadata',
  'merge-empty-unknown-preferred-204': 'lookup/mergeIswcMetadata',
  'demerge-404-as-410': 'lookup/demergeIswcMetadata',
  'unknown-run-200-empty': 'lookup/notifyAgentRun',
  // An item of a list refused, the whole list read.
  'drop-invalid-iswcs': 'item/refused',
  'merge-iswc-pattern-loose': 'item/refused',
  'merge-drops-invalid-works': 'item/refused',
  'array-tail-unchecked': 'item/every',
  // Items of one list ignored while the other list is present (issue 38).
  'merge-iswcs-ignored-with-works': 'item/every',
  'merge-works-ignored-with-iswcs': 'item/every',
  'partial.merge.iswcs.first-only': 'item/every',
  'partial.merge.iswcs.last-only': 'item/every',
  'partial.merge.iswcs.first-2': 'item/every',
  'partial.merge.agencyWorks.first-only': 'item/every',
  'partial.merge.agencyWorks.last-only': 'item/every',
  'partial.merge.agencyWorks.first-2': 'item/every',
  // A limit: a value past it refused (text, number), a value at it accepted.
  'run-agency-code-loose': 'limit/refused/text',
  'merge-agency-code-loose': 'limit/refused/text',
  'merge-work-code-loose': 'limit/refused/text',
  'length-in-bytes': 'limit/accepted/text',
  'run-int32-loose': 'limit/refused/int32',
  'int32-off-by-one': 'limit/refused/int32',
  'int32-min-loose': 'limit/refused/int32',
  'query-int32-wraparound': 'limit/refused/int32',
  'fraction-truncated': 'limit/refused/int32',
  'run-end-unvalidated': 'limit/refused/run-end',
  'run-string-counters-unranged': 'limit/refused/int32',
  'work-code-tight': 'limit/accepted/text',
  'work-code-long-refused': 'limit/accepted/text',
  'int32-tight': 'limit/accepted/int32',
  'double-percent-decoding': 'limit/refused/query-decoding',
  // The stated texts.
  'run-bad-request-text': 'text/bad-request',
  'run-400-validation-problem': 'text/bad-request',
  'accept-json-400-text': 'text/bad-request',
  'accept-xml-400-text': 'text/bad-request',
  'run-unread-400-text': 'text/bad-request',
  'unknown-run-400-text': 'text/bad-request',
  'run-empty-body-400-no-text': 'text/bad-request',
  'run-not-authorized-text': 'text/not-authorized',
  'gateway-401-json': 'text/not-authorized',
  // The answers' shapes.
  'run-id-pascal-case': 'answer/json',
  'run-response-schema': 'answer/json',
  'run-response-no-run-id': 'answer/json',
  'run-end-empty-run-id': 'answer/json',
  // A query ISWC cut to its pattern's length (issue 38): the truncation reading, outside the families' names.
  'preferred-iswc-cut': 'lenient/truncate',
  'merge-preferred-iswc-cut': 'lenient/truncate',
  'preferred-check-digit-ignored': 'lenient/check-digit',
  'merge-preferred-check-digit-ignored': 'lenient/check-digit',
  'xml-wrong-root-response': 'answer/xml',
  'xml-answer-utf16-declared': 'answer/xml',
  // The documented statuses.
  'run-400-as-422': 'status/bad-request',
  'merge-400-as-422': 'status/bad-request',
  'run-401-as-403': 'status/not-authorized',
  // HTTP and safe handling.
  'crash-on-malformed': 'http/5xx-malformed',
  // A crash on one format's malformed bodies is the same class: a class of its own per format displaced
  // other classes from a gate of 60 (docs/performance.md, "Every format in the gate"); the faults phase and
  // rotation prove the other format.
  'crash-on-malformed-json': 'http/5xx-malformed',
  'crash-on-malformed-xml': 'http/5xx-malformed',
  'delete-no-workcode-500': 'http/5xx-missing-parameter',
  'duplicate-items-500': 'http/5xx-duplicates',
  'oversized-body-500': 'http/oversized',
  'hang-on-unsupported-media': 'http/unsupported-media',
  'unsupported-media-500': 'http/unsupported-media',
  'json-content-type-mislabelled': 'http/content-type',
  'missing-content-type': 'http/content-type',
  '405-without-allow': 'http/405',
  'stack-trace-in-error': 'http/stack-trace',
  'xml-entities-expanded': 'http/xml-entities',
  'unknown-path-200': 'http/unknown-path',
};

/** A spelling family member (server/spelling-faults.ts): `spelling.<xml|json|query|key>-<how>`. */
const SPELLING = /^spelling\.(xml|json|query|key)-/;

/** A shape family member (server/shape-faults.ts): `shape.<operation>.<role>.<shape>`. */
const SHAPE = /^shape\.(run|merge|delete|demerge)\.([a-z]+)\./;

/** A lenient family member: `lenient.<operation>.<field…>.<reading>`. */
const LENIENT = /^lenient\.(run|merge|delete|demerge)\..+\.([a-z-]+)$/;

/**
 * The class of a fault, as shown by a case of `operation` (a fault of every operation is one class per
 * operation it is shown on); each lenient reading is one class across fields (truncation is one class,
 * whichever field it cuts). A fault not listed is a class of its own.
 */
export function faultClass(fault: string, operation?: OperationId | null): string {
  const listed = CLASS_OF[fault];
  if (listed !== undefined) return listed.replace('*', operation ?? 'any');
  const lenient = LENIENT.exec(fault);
  if (lenient) return `lenient/${lenient[2] ?? ''}`;
  // The spelling family (issue 38): a valid spelling refused, one class per part of a request spelled.
  const spelt = SPELLING.exec(fault);
  if (spelt) return `spelling/${spelt[1] ?? ''}`;
  // The shape family (issue 38): a role left undone on one shape of request, one class per role across shapes.
  const shaped = SHAPE.exec(fault);
  if (shaped) return `shape/${shaped[2] ?? ''}`;
  return `fault/${fault}`;
}

/**
 * The classes a case of `operation` shows by catching `faults`. A fault of every operation (`*`) counts on
 * each operation the case shows the key on: the merge that is demerged after, with its key proofs on both,
 * shows an empty key accepted on both. `keyJudgedOn`, where known, names the operations whose key the
 * selection's own steps judge (keyOperations of its cells): a part that proves the key on the demerge of a
 * merge case then shows a wrong key accepted on the demerge, not on the merge whose case it belongs to.
 */
export function classesShown(faults: readonly string[], operation?: OperationId | null, keyJudgedOn?: readonly string[]): string[] {
  const ops = new Set<string>();
  if (keyJudgedOn !== undefined && keyJudgedOn.length > 0) for (const op of keyJudgedOn) ops.add(op);
  else {
    ops.add(operation ?? 'any');
    for (const f of faults) {
      const op = keyClassOperation(CLASS_OF[f] ?? '');
      if (op !== undefined && op !== '*') ops.add(op);
    }
  }
  const out = new Set<string>();
  for (const f of faults) {
    const listed = CLASS_OF[f];
    if (listed?.includes('*')) for (const op of ops) out.add(listed.replace('*', op));
    else out.add(faultClass(f, operation));
  }
  return [...out];
}

/** The checks that judge the key: a step judged by one proves the key of its operation. */
const KEY_CHECKS: ReadonlySet<string> = new Set(['auth.key-checked', 'auth.required']);

/** The operations whose key a selection's steps judge, from its cells (`operation/check/format`). */
export function keyOperations(cells: readonly string[]): string[] {
  return [...new Set(cells.filter((c) => KEY_CHECKS.has(c.split('/')[1] ?? '')).map((c) => c.split('/')[0] ?? ''))].sort();
}

/** The role of a class (its first segment; a fault of its own class: its role is unknown, 'status'). */
export function roleOf(cls: string): Role {
  const head = cls.split('/')[0] ?? '';
  return (ROLES as readonly string[]).includes(head) ? (head as Role) : 'status';
}

/** The operation a key class names, or undefined. */
export function keyClassOperation(cls: string): string | undefined {
  const m = /^key\/[a-z-]+\/(\w+|\*)$/.exec(cls);
  return m?.[1];
}
