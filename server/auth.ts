import type { IncomingMessage } from 'node:http';
import type { Operation, OperationId } from '../lib/contract/operations.ts';
import type { Context } from './context.ts';
import { errorReply } from './errors.ts';
import type { FaultId } from './faults.ts';
import { keyPassesLoosely } from './lenient.ts';
import { keyHeaderMissed } from './spelling-faults.ts';
import type { Reply } from './wire.ts';
import { header, json, text } from './wire.ts';

/**
 * Section 5: every operation requires the subscription-key header. The run notification answers its
 * documented 401 text; for the other operations the document does not show the answer, and the server
 * answers like the production gateway (401 with a JSON `{statusCode, message}`): choice, not contract.
 */

const SKIP_CHECK: Record<OperationId, FaultId> = {
  notifyAgentRun: 'auth-missing-run',
  mergeIswcMetadata: 'auth-missing-merge',
  deleteSubmission: 'auth-missing-delete',
  demergeIswcMetadata: 'auth-missing-demerge',
};

/** Faults that take any non-empty key on one operation. */
const WRONG_KEY_ACCEPTED: Partial<Record<OperationId, FaultId>> = {
  mergeIswcMetadata: 'merge-wrong-key-accepted',
  deleteSubmission: 'delete-wrong-key-accepted',
  demergeIswcMetadata: 'demerge-wrong-key-accepted',
};

const GATEWAY_MESSAGE = {
  missing: 'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.',
  wrong: 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
} as const;

/** `empty`: the header is there without a value, a missing key to every reader but choice `empty-key-400`. */
export type AuthResult = 'ok' | 'missing' | 'empty' | 'wrong';

export function authenticate(ctx: Context, req: IncomingMessage, op: Operation): AuthResult {
  if (ctx.faults.has(SKIP_CHECK[op.id])) return 'ok';
  // Fault `auth-xml-unchecked`: a request with an XML body goes a way that skips the key.
  if (ctx.faults.has('auth-xml-unchecked') && /xml/i.test(header(req, 'content-type') ?? '')) return 'ok';
  // Fault `spelling.key-header-lower`: the header looked up by its exact name (server/spelling-faults.ts).
  const given = keyHeaderMissed((id) => ctx.faults.has(id), req) ? undefined : header(req, ctx.keyHeader);
  // Review fault `empty-key-accepted`: a truthiness test lets an empty header through.
  if (given === '' && ctx.faults.has('empty-key-accepted')) return 'ok';
  if (given === '' && op.id !== 'notifyAgentRun' && ctx.faults.has('data-empty-key-accepted')) return 'ok';
  if (given === undefined) return 'missing';
  if (given === '') return 'empty';
  if (given === ctx.key) return 'ok';
  // Lenient family faults on the key (server/lenient.ts): a longer one cut, a prefix, all but the last character, separators stripped.
  if (keyPassesLoosely(ctx.faults.families, given, ctx.key)) return 'ok';
  // Fault `key-case-insensitive`: the key compared without regard to case.
  if (ctx.faults.has('key-case-insensitive') && given.toLowerCase() === ctx.key.toLowerCase()) return 'ok';
  const own = WRONG_KEY_ACCEPTED[op.id];
  return ctx.faults.has('auth-wrong-key-accepted') || (own !== undefined && ctx.faults.has(own)) ? 'ok' : 'wrong';
}

/** The answer to a request that failed authentication. */
export function unauthorized(ctx: Context, op: Operation, result: Exclude<AuthResult, 'ok'>): Reply {
  const f = ctx.faults;
  const c = ctx.choices;
  const documented = op.texts[401];
  // Choice `empty-key-400`: a key header without a value is a malformed request ([FromHeader, Required]).
  if (result === 'empty' && c.has('empty-key-400')) return errorReply(ctx, 400, { code: 'BAD_REQUEST', message: 'the subscription key header has no value', where: 'authenticate', ...(op.texts[400] !== undefined ? { stated: op.texts[400] } : {}) });
  const status = documented !== undefined && f.has('run-401-as-403') ? 403 : 401;
  const stated = documented !== undefined && f.has('run-not-authorized-text') ? 'Unauthorized' : documented;
  // Fault `gateway-401-json`: the gateway's own words, on every operation; "Not Authorized" nowhere.
  // A header without a value is a missing key to the gateway.
  const gateway = GATEWAY_MESSAGE[result === 'empty' ? 'missing' : result];
  if (f.has('gateway-401-json')) return json(status, { statusCode: status, message: gateway });
  if (c.has('auth-apim-json')) {
    // The gateway answers before the service; its message carries the stated text.
    return json(status, { statusCode: status, message: stated ?? 'Not Authorized' }, { 'WWW-Authenticate': 'AzureApiManagementKey realm="iswc",name="Ocp-Apim-Subscription-Key",type="header"' });
  }
  if (stated !== undefined) return text(status, stated);
  if (c.has('auth-missing-key-400') && result !== 'wrong') return errorReply(ctx, 400, { code: 'BAD_REQUEST', message: 'the subscription key header is required', where: 'authenticate' });
  if (c.has('auth-403-no-body')) return { status: 403 };
  return json(401, { statusCode: 401, message: gateway });
}

/**
 * Which agency a key may act for is not shown (5.3). By the reference choices the key acts for any; by
 * `foreign-agency-refused` or `foreign-agency-403` only for the profile's. Checked after validation, so
 * a broken value still gets its 400 first.
 */
export function refuseForeignAgency(ctx: Context, op: Operation, agency: unknown): Reply | null {
  const c = ctx.choices;
  if (agency === ctx.keyAgency || !(c.has('foreign-agency-refused') || c.has('foreign-agency-403'))) return null;
  if (c.has('foreign-agency-403')) return errorReply(ctx, 403, { code: 'FORBIDDEN', message: `the subscription key does not act for agency ${String(agency)}`, where: 'refuseForeignAgency' });
  const documented = op.texts[401];
  return documented !== undefined ? text(401, documented) : { status: 403 };
}
