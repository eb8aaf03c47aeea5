import type { OperationId } from '../contract/operations.ts';
import { operation } from '../contract/operations.ts';

/**
 * Sections of the interface document that a request of each operation can touch beyond its endpoint
 * section (4.1–4.4): the resources of section 2 its body or query carries, and section 3 for the
 * operations with a stated outcome. 2.5 identifies a submission "in delete requests".
 */
const RESOURCE_SECTIONS: Record<OperationId, readonly string[]> = {
  notifyAgentRun: ['2.1', '2.2'],
  mergeIswcMetadata: ['2.3', '2.4', '3'],
  deleteSubmission: ['2.5', '3'],
  demergeIswcMetadata: ['3'],
};

/** Sections every operation shares: authentication (5), errors (7), limits (8). */
const SHARED_SECTIONS: ReadonlySet<string> = new Set(['5', '7', '8']);

function isDocumentSection(ref: string): boolean {
  return /^\d+(\.\d+)*$/.test(ref);
}

/**
 * The sections one execution of a check cites: the check's list (or the case's, when a step names its
 * own), narrowed to the operation the request went to. Endpoint sections (`4`, `4.x`) become the
 * operation's own, resource sections of other operations are dropped, shared sections (5, 7, 8) and
 * references outside the document (RFC 9110 …) stay. So a failing merge cites 4.2, never 4.3 or 4.4,
 * and a report or certificate credits each failure to the section of the request that failed.
 * A request outside the documented operations keeps the list as given. Idempotent.
 */
export function executionSections(sections: readonly string[], operationId: OperationId | null): string[] {
  if (operationId === null) return [...new Set(sections)];
  const own = operation(operationId).section;
  const resources = RESOURCE_SECTIONS[operationId];
  const out: string[] = [];
  for (const ref of sections) {
    let kept: string | undefined;
    if (!isDocumentSection(ref) || SHARED_SECTIONS.has(ref)) kept = ref;
    else if (ref === '4' || ref.startsWith('4.')) kept = own;
    else if (ref === '2' || resources.includes(ref)) kept = ref;
    if (kept !== undefined && !out.includes(kept)) out.push(kept);
  }
  return out.length > 0 ? out : [own];
}
