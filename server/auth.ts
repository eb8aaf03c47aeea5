import type { IncomingMessage } from 'node:http';
import type { Operation, OperationId } from '../lib/contract/operations.ts';
import type { Context } from './context.ts';
import type { FaultId } from './faults.ts';
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

const GATEWAY_MESSAGE = {
  missing: 'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.',
  wrong: 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
} as const;

export type AuthResult = 'ok' | 'missing' | 'wrong';

export function authenticate(ctx: Context, req: IncomingMessage, op: Operation): AuthResult {
  if (ctx.faults.has(SKIP_CHECK[op.id])) return 'ok';
  const given = header(req, ctx.keyHeader);
  if (given === undefined || given === '') return 'missing';
  if (given === ctx.key) return 'ok';
  return ctx.faults.has('auth-wrong-key-accepted') ? 'ok' : 'wrong';
}

/** The answer to a request that failed authentication. */
export function unauthorized(ctx: Context, op: Operation, result: Exclude<AuthResult, 'ok'>): Reply {
  const documented = op.texts[401];
  if (documented !== undefined) {
    const body = ctx.faults.has('run-not-authorized-text') ? 'Unauthorized' : documented;
    return text(ctx.faults.has('run-401-as-403') ? 403 : 401, body);
  }
  return ctx.alternative ? { status: 403 } : json(401, { statusCode: 401, message: GATEWAY_MESSAGE[result] });
}

/**
 * Alternative choice (5.3 leaves open which agency a key may act for): the key acts only for the
 * profile's agency. Checked after validation, so a broken value still gets its 400 first.
 */
export function refuseForeignAgency(ctx: Context, op: Operation, agency: unknown): Reply | null {
  if (!ctx.alternative || agency === ctx.keyAgency) return null;
  const documented = op.texts[401];
  return documented !== undefined ? text(401, documented) : { status: 403 };
}
