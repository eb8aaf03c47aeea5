import type { Because } from '../../generate/expectations.ts';
import { keyRefusal, shapeKeyRefusal, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

interface KeyRequiredParams extends Because {
  /** The key header is sent without a value: on the run notification 400 refuses it as well as 401. */
  emptyKey?: boolean;
  /** The body names no agency (no agencyCode): a server may validate it before the key, so 400 refuses it as well as 401. */
  noAgency?: boolean;
  /** The request's shape, in words ("a body without Content-Type"): 400, 406 or 415 refuse it as well (shapeKeyRefusal). */
  shape?: string;
}

/**
 * Section 5: every operation requires the subscription key. The run notification documents 401 (4.1,
 * 5.2); for the others the answer is not shown (5.3): any of the operation's documented error statuses
 * (400, 404: a server may look the data up first, since which agency a key may act for depends on it)
 * or 401, 403 refuse it. Only a success shows the request was served without the key. On data that does
 * not exist a 404 can hide a key the server ignores: `auth.key-checked` proves the key on data that exists.
 */
export default defineCheck<KeyRequiredParams>({
  id: 'auth.required',
  level: 'spec',
  sections: ['5', '4.1'],
  reading: 'Authentication',
  description: 'A request without the key or with a wrong key (on the run notification also with an empty one) is refused: 401 on the run notification (an empty key, or a body without agencyCode, 401 or 400: a missing key or a bad request); on the others any documented error status, 401 or 403 (the answer is not shown for them). Sent in another shape (no Content-Type, an Accept of the other format), 400, 406 or 415 refuse it as well. An empty key on merge, delete and demerge is proven where it shows, on disposable entries (auth.key-checked).',
  scope: 'targeted',
  params: { type: 'object', properties: { emptyKey: { type: 'boolean' }, noAgency: { type: 'boolean' }, shape: { type: 'string' } }, required: [] },
  judge: statusJudge(({ operation: opId, params }) => params.shape !== undefined ? shapeKeyRefusal(opId, params.shape) : keyRefusal(opId, params.emptyKey === true ? 'an empty key' : params.noAgency === true ? 'a body without agencyCode' : undefined)),
});
