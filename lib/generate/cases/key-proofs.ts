import type { RequestSpec } from '../../contract/exchange.ts';
import type { CaseContext, CaseDef } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { KEY_PROOF_LABEL, KEY_PROOF_STATE, KEY_PROOFS } from '../templates.ts';

/**
 * The request that is about to succeed, sent first without the key, with an empty one and with a wrong
 * one: each is refused (a 404 for data that does not exist cannot hide the key here, since the data
 * exists; section 5). `succeeds` says what the same request does with the key.
 */
export async function keyProofs(ctx: CaseContext, opId: CaseDef['operation'], request: RequestSpec, label: string, succeeds: string): Promise<void> {
  for (const auth of KEY_PROOFS) {
    await ctx.send({
      label: `${label} ${KEY_PROOF_LABEL[auth]}`,
      operation: opId,
      request: { ...request, auth },
      expect: [expectCheck('auth.key-checked', { because: `the subscription key is ${KEY_PROOF_STATE[auth]}; with it ${succeeds}` })],
    });
  }
}
