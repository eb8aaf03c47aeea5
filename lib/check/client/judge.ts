import type { OperationId } from '../../contract/operations.ts';
import type { Level } from '../../generate/expectations.ts';
import { gating } from '../gating.ts';
import { executionSections } from '../sections.ts';
import { allClientChecks } from './registry.ts';
import type { ClientCheck, ClientJudgeInput, ProductionComparison, SessionRecord } from './types.ts';
import { PASSED } from './types.ts';

/** One client check's verdict on one request (or, from the session's end, on the request it names). */
export interface ClientVerdict {
  check: string;
  level: Level;
  /** The check's sections narrowed to the request's operation (lib/check/sections.ts). */
  sections: string[];
  verdict: 'pass' | 'fail' | 'observed';
  expected: string;
  received: string;
  /** A failure that fails the session: spec always, http with --strict. */
  gating: boolean;
}

const perRequest: readonly ClientCheck[] = allClientChecks().filter((c) => c.judge);
const perSession: readonly ClientCheck[] = allClientChecks().filter((c) => c.conclude);
const perComparison: readonly ClientCheck[] = allClientChecks().filter((c) => c.compare);

/** Each check's sections narrowed to each operation, once (they are the same for every request). */
const sectionsFor = new Map<ClientCheck, Map<OperationId | null, string[]>>();

function sectionsOf(check: ClientCheck, opId: OperationId | null): string[] {
  let byOp = sectionsFor.get(check);
  if (!byOp) sectionsFor.set(check, (byOp = new Map<OperationId | null, string[]>()));
  let sections = byOp.get(opId);
  if (!sections) byOp.set(opId, (sections = executionSections(check.sections, opId)));
  return sections;
}

/** Every client check that applies to one request. A check that throws is a defect of the harness: it is raised. */
export function judgeRequest(input: ClientJudgeInput, strict: boolean): ClientVerdict[] {
  const out: ClientVerdict[] = [];
  const opId = input.request.operation?.id ?? null;
  for (const check of perRequest) {
    const j = check.judge?.(input);
    if (!j) continue;
    if (j === PASSED) out.push(passOf(check, opId));
    else out.push({ check: check.id, level: check.level, sections: sectionsOf(check, opId), verdict: j.verdict, expected: j.expected, received: j.received, gating: j.verdict === 'fail' && gating(check.level, strict) });
  }
  return out;
}

/** A pass of each check on each operation: one shared value (passes are only counted). */
const passes = new Map<ClientCheck, Map<OperationId | null, ClientVerdict>>();

function passOf(check: ClientCheck, opId: OperationId | null): ClientVerdict {
  let byOp = passes.get(check);
  if (!byOp) passes.set(check, (byOp = new Map<OperationId | null, ClientVerdict>()));
  let verdict = byOp.get(opId);
  if (!verdict) byOp.set(opId, (verdict = Object.freeze({ check: check.id, level: check.level, sections: sectionsOf(check, opId), verdict: 'pass' as const, expected: '', received: '', gating: false })));
  return verdict;
}

/** The checks of the whole session, each verdict with the request it is about. */
export function judgeSession(record: SessionRecord, strict: boolean): Array<ClientVerdict & { request: number | undefined }> {
  const out: Array<ClientVerdict & { request: number | undefined }> = [];
  for (const check of perSession) {
    for (const j of check.conclude?.(record) ?? []) {
      out.push({ check: check.id, level: check.level, sections: [...check.sections], verdict: j.verdict, expected: j.expected, received: j.received, gating: j.verdict === 'fail' && gating(check.level, strict), request: j.request });
    }
  }
  return out;
}

/** The checks that compare a request's answer with production as built's (observed: never gating). */
export function judgeComparison(input: ProductionComparison): ClientVerdict[] {
  const out: ClientVerdict[] = [];
  const opId = input.request.operation?.id ?? null;
  for (const check of perComparison) {
    const j = check.compare?.(input);
    if (!j) continue;
    if (j === PASSED) out.push(passOf(check, opId));
    else out.push({ check: check.id, level: check.level, sections: sectionsOf(check, opId), verdict: j.verdict, expected: j.expected, received: j.received, gating: false });
  }
  return out;
}
