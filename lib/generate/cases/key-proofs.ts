import type { OperationId } from '../../contract/operations.ts';
import { KEY_NEAR_MISSES } from '../../contract/exchange.ts';
import type { KeyNearMiss, RequestSpec } from '../../contract/exchange.ts';
import type { CaseContext, CaseDef, CasePart } from '../case.ts';
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

/** What each near miss of the key is, in words. */
export const NEAR_MISS_TEXT: Record<KeyNearMiss, string> = {
  'key-longer': 'one character more',
  'key-shorter': 'its last character left out',
  'key-last-char': 'its last character changed',
  'key-separator': 'a hyphen inserted in the middle',
};

/**
 * The near misses of the key as parts of a wrong-key case (issue 31), each a part: a budget takes one loose
 * comparison at a time, the wrong key in every selection. Each shows the key compared one loose way.
 */
export function nearMissParts(): CasePart[] {
  return KEY_NEAR_MISSES.map((miss) => ({ id: miss, title: `the key with ${NEAR_MISS_TEXT[miss]}, refused`, shows: `key/${miss}` }));
}

/**
 * Near misses of the key (issue 28), each in its part (nearMissParts): `request`, one only the key refuses
 * (valid, naming data that exists: a 404 could hide the key otherwise), sent with one character more, its
 * last left out, its last changed, a hyphen inside; a server that compares the key loosely (cut to its
 * length, as a prefix, all but its last character, without separators) takes one of them for the key.
 */
export async function sendNearMisses(ctx: CaseContext, opId: OperationId, request: RequestSpec): Promise<void> {
  for (const miss of KEY_NEAR_MISSES) {
    await ctx.part(miss, async () => {
      await ctx.send({
        label: `a near miss of the key: ${NEAR_MISS_TEXT[miss]}`,
        operation: opId,
        request: { ...request, auth: miss },
        expect: [expectCheck('auth.required', { because: `the subscription key with ${NEAR_MISS_TEXT[miss]} is a wrong key (section 5.1): only the key itself grants access` })],
      });
    });
  }
}
