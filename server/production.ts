import { randomBytes } from 'node:crypto';
import type { Reply } from './wire.ts';
import { json } from './wire.ts';

/**
 * What production as built answers, read from its public source (docs/production.md; the audit repository
 * elbabass/audit_cisac, paths under docs/resources/source-code/ISWC-2/): the messages of its business
 * codes, ASP.NET Core's validation problem for binding errors, its registry of agencies, and the answers
 * of its infrastructure the model plays only as trouble (server --inject). Used by the choices of the set
 * production-as-built and by the server command's trouble; the reference server's own answers are elsewhere.
 */

/**
 * The messages of production's business codes (src/Business/Resources/ApiErrorCodes.en.resx), for the
 * codes the four operations of the document can answer (docs/production.md "Business codes").
 */
export const PRODUCTION_MESSAGES: Readonly<Record<string, string>> = {
  '100': 'Internal Server Error.',
  '103': 'Source Society Code is invalid',
  '113': 'ISWC format error [T][0-9]{10}',
  '115': 'Specified source db is not allowed to make a submission for the specified society',
  '117': 'Requested ISWC preferred does not exist on ISWC System',
  '130': 'The Agency Work Number provided does not exist in the ISWC Database',
  '132': 'The Preferred ISWCs specified in the merge do not exist in the ISWC database',
  '133': 'Delete reason has not been provided',
  '136': 'Society Work Code is required',
  '138': 'Source Society Database Code is invalid',
  '141': 'ISWC format error – Invalid Check Digit',
  '150': 'Submitter must be eligible and have a submission on any of the works to be merged',
  '153': 'The Preferred ISWC specified in the demerge does not exist in the ISWC database',
  '156': 'An ISWC can not be merged because it would result in a self-referential link.',
  '157': 'An ISWC can not be merged because it already has a parent ISWC.',
  '172': 'The specified Iswc cannot be demerged because it previously has not been merged.',
  '202': 'Merge ISWCs do not match exactly one matching preferred ISWC',
  '203': 'Merge Agency Work Numbers do not match exactly one matching Agency Work Number',
};

/**
 * Agencies production's registry is known to hold (the public list of CISAC societies; docs/production.md
 * "Agencies and source databases"). The model's registry is these, the profile's agency and every agency
 * its entries name (choice `agency-registry`).
 */
export const KNOWN_AGENCIES: readonly string[] = ['003', '008', '010', '021', '023', '035', '038', '052', '055', '058', '072', '074', '079', '080', '101', '118', '122', '128', '300', '308', '319'];

function traceId(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`;
}

/**
 * ASP.NET Core's automatic answer to a request that does not bind ([ApiController] on
 * src/Api.Agency/Configuration/Swagger/BaseController.cs): application/problem+json, no business code.
 */
export function validationProblem(field: string, message: string): Reply {
  const body = { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'One or more validation errors occurred.', status: 400, errors: { [field]: [message] }, traceId: traceId() };
  return { status: 400, body: { kind: 'problem', text: JSON.stringify(body) } };
}

/** ASP.NET Core's 415 for a body no input formatter reads (only JSON ones are registered, src/Api.Agency/Startup.cs). */
export function unsupportedMediaProblem(): Reply {
  const body = { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.16', title: 'Unsupported Media Type', status: 415, traceId: traceId() };
  return { status: 415, body: { kind: 'problem', text: JSON.stringify(body) } };
}

/**
 * Why a merge body does not bind to production's MergeRequest (Newtonsoft.Json: iswcs a list of strings,
 * agencyWorks a list of objects of strings; numbers and booleans are read as text), or undefined. A missing
 * or null list is an empty one (MergeController.cs).
 */
export function mergeBindingError(value: unknown): { field: string; message: string } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { field: '', message: 'A non-empty request body is required.' };
  const body = value as Record<string, unknown>;
  const scalar = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  if (body.iswcs !== undefined && body.iswcs !== null) {
    if (!Array.isArray(body.iswcs)) return { field: 'iswcs', message: 'Cannot deserialize the current value into a list of strings.' };
    const at = body.iswcs.findIndex((v) => v !== null && !scalar(v));
    if (at >= 0) return { field: `iswcs[${at}]`, message: 'Unexpected value when reading a string.' };
  }
  if (body.agencyWorks !== undefined && body.agencyWorks !== null) {
    if (!Array.isArray(body.agencyWorks)) return { field: 'agencyWorks', message: 'Cannot deserialize the current value into a list of AgencyWork.' };
    for (const [i, work] of (body.agencyWorks as unknown[]).entries()) {
      if (work === null) continue;
      if (typeof work !== 'object' || Array.isArray(work)) return { field: `agencyWorks[${i}]`, message: 'Cannot deserialize the current value into an AgencyWork.' };
      for (const [name, v] of Object.entries(work as Record<string, unknown>)) {
        if (v !== null && !scalar(v)) return { field: `agencyWorks[${i}].${name}`, message: 'Unexpected value when reading a string.' };
      }
    }
  }
  return undefined;
}

/**
 * The application's maintenance mode (src/Framework/Maintenance/Middleware/MaintenanceMode.cs): 503 with a
 * JSON `{"code": "503", …}` and no Retry-After. Trouble to inject (`server --inject maintenance@N`), never a
 * choice or a fault: it answers every request alike while it lasts.
 */
export function maintenanceReply(): Reply {
  return json(503, { code: '503', message: 'The system is currently undergoing scheduled maintenance.' });
}

/**
 * An infrastructure failure (the matching engine's timeout after its retry, src/Api.Agency/Extensions/
 * ServiceCollectionExtensions.cs; the database): what the validation or matching pipeline throws is
 * rethrown (src/Api.Agency/Managers/PipelineManager.cs) and answered 500 with an empty body. Trouble to
 * inject (`server --inject 500@N`): no input causes it.
 */
export function infrastructureReply(): Reply {
  return { status: 500 };
}

/**
 * A processing exception: what a processing step throws is caught per submission
 * (src/PipelineComponents/ProcessingComponent/ProcessingComponent.cs; src/Api.Agency/Managers/PipelineManager.cs)
 * and the submission rejected with code 100, answered as any rejection: 400 `{"code": "100", …}`. Trouble to
 * inject (`server --inject 100@N`): it comes from the database or a service under the processing, not from
 * the request, and production may have committed part of a merge before it (one transaction per ISWC,
 * src/Business/Managers/WorkManager.cs); the model answers it in place of processing the request.
 */
export function processingExceptionReply(): Reply {
  return json(400, { code: '100', message: PRODUCTION_MESSAGES['100'] });
}
