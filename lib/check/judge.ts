import type { ValidateFunction } from 'ajv';
import { actsForAnotherAgency, actsForAnotherSource } from '../contract/agency.ts';
import type { Format } from '../contract/codec/index.ts';
import type { Exchange } from '../contract/exchange.ts';
import { operation } from '../contract/operations.ts';
import { sharedAjv } from '../contract/validators.ts';
import type { Step } from '../generate/case.ts';
import type { Judge, Judged } from '../run/execution.ts';
import { gating } from './gating.ts';
import { checkById, everyExchangeChecks } from './registry.ts';
import { executionSections } from './sections.ts';
import type { Check, Judgement } from './types.ts';

export interface JudgeOptions {
  /** ISWC_STRICT: http-level failures gate too. */
  strict: boolean;
  /** The agency the key acts for (the profile's): another one may be refused with 401 or 403 (5.3). */
  agency: string;
  /** The source databases the key is known to act for (keySourceDbs of the profile): another may be refused with 401 or 403 (5.3). */
  sourceDbs?: readonly number[];
}

const paramValidators = new Map<string, ValidateFunction>();

/** Every-answer spec checks an open point leaves nothing to judge by: which status answers is the point. */
const OPEN_STATUS_CHECKS: ReadonlySet<string> = new Set(['status.documented']);

/** Validates a targeted check's parameters against its own declaration: a case that gets them wrong fails loudly. */
function checkParams(check: Check<never>, params: unknown): void {
  let validate = paramValidators.get(check.id);
  if (!validate) {
    const own = check.params;
    // The process's one Ajv: an instance of its own per check cost a second of CPU per run.
    validate = sharedAjv().compile({
      type: 'object',
      properties: { because: { type: 'string' }, sections: { type: 'array', items: { type: 'string' } }, facts: { type: 'object' }, ...(own?.properties ?? {}) },
      required: ['because', ...(own?.required ?? [])],
      additionalProperties: false,
    });
    paramValidators.set(check.id, validate);
  }
  if (!validate(params)) {
    throw new Error(`check ${check.id} was given bad parameters ${JSON.stringify(params)}: ${(validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ')}`);
  }
}

/**
 * The judge of a run: every every-answer check (on a probe of an open point all but status.documented; on a
 * request outside the document only http and observed ones), then the checks the step asks for, each with
 * its parameters.
 */
/** Checks of a text the document states for every answer of a status of an operation: they judge requests outside the document too. */
const STATED_FOR_EVERY_ANSWER: ReadonlySet<string> = new Set(['text.bad-request', 'text.not-authorized']);

export function createJudge(options: JudgeOptions): Judge {
  return (step: Step, exchange: Exchange, format: Format): Judged[] => {
    const authProbe = step.request.auth !== undefined && step.request.auth !== 'key';
    const foreignAgency = actsForAnotherAgency(step.operation, step.request, options.agency) || actsForAnotherSource(step.operation, step.request, options.sourceDbs);
    // Where the key is concerned (a probe without it, another agency than the key's), the answers the
    // contract lists as not shown (5.3) are documented too.
    const op = step.operation ? operation(step.operation) : null;
    const keyStatuses = op ? [...op.statuses.filter((s) => s === 401), ...op.notShownStatuses] : [401, 403];
    const extraStatuses = [...(authProbe || foreignAgency ? keyStatuses : []), ...(step.extraStatuses ?? [])];
    const input = { operation: step.operation, format, exchange, authProbe, extraStatuses, foreignAgency };
    const judged: Judged[] = [];
    const add = (check: Check<never>, judgement: Judgement | null, sections?: readonly string[]) => {
      if (!judgement) return;
      judged.push({
        checkId: check.id,
        level: check.level,
        // The sections of this request's operation only: a merge failure never cites 4.3 or 4.4.
        sections: executionSections(sections ?? check.sections, step.operation),
        verdict: judgement.verdict,
        expected: judgement.expected,
        received: judgement.received,
        ...(judgement.observation ? { observation: judgement.observation } : {}),
        gating: judgement.verdict === 'fail' && gating(check.level, options.strict),
      });
    };
    for (const check of everyExchangeChecks()) {
      // A request outside the document is judged by http and observed checks only, but for the texts the
      // document states for every 400 and 401 of an operation (4.1: a run notification the document does not
      // describe, in another media type or over any size cap, still says "Bad Request" when it gets 400). A probe of an open point
      // leaves open which status answers it, so status.documented does not judge it; what the document
      // states of a status still holds whatever the status (a 200 carries a runId, a 400 of the run
      // notification says "Bad Request", a 204 has no body).
      if (step.probe === 'outside-document' && check.level === 'spec' && !STATED_FOR_EVERY_ANSWER.has(check.id)) continue;
      if (step.probe === 'open-point' && OPEN_STATUS_CHECKS.has(check.id)) continue;
      add(check, check.judge({ ...input, params: undefined as never, connectionMayClose: step.connectionMayClose ?? false }));
    }
    for (const { checkId, params } of step.expect) {
      const check = checkById(checkId);
      checkParams(check, params);
      add(check, check.judge({ ...input, params: params as never }), params.sections);
    }
    return judged;
  };
}
