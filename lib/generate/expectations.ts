import type { CheckParamsById, TargetedCheckId } from './checks.generated.ts';

/**
 * `spec`: what the interface document forces, on which every reasonable reading agrees. `http`: RFC 9110
 * and safe-handling conventions the document does not state. `observed`: where careful servers may
 * differ; what the server does is recorded, never failed.
 */
export type Level = 'spec' | 'http' | 'observed';
export const LEVELS: readonly Level[] = ['spec', 'http', 'observed'];

/** Parameters every expectation carries: why this answer is expected, shown in every report. */
export interface Because {
  /** One line: why this answer is expected (e.g. 'agencyCode "1234" is 4 characters, the limit is exactly 3'). */
  because: string;
  /** Sections to report instead of the check's own (e.g. the field's sections for a limit). */
  sections?: readonly string[];
  /** Facts about the request recorded with an observation (e.g. a value's length under each reading). */
  facts?: Record<string, unknown>;
}

/** A targeted check a step asks for, by id, with the parameters the step gives it. */
export interface Expectation {
  checkId: TargetedCheckId;
  params: Because & Record<string, unknown>;
}

/**
 * Typed constructor of an expectation: the check is named by its id (the check stage comes later in the
 * pipeline), and its parameters are typed from the check's own parameter schema (lib/check/checks/).
 */
export function expectCheck<Id extends TargetedCheckId>(checkId: Id, params: Because & CheckParamsById[Id]): Expectation {
  return { checkId, params: params as Expectation['params'] };
}
