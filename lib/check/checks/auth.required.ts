import type { Because } from '../../generate/expectations.ts';
import { keyRefusal, otherPathJudge, shapeKeyRefusal, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

interface KeyRequiredParams extends Because {
  /** The key header is sent without a value: on the run notification 400 refuses it as well as 401. */
  emptyKey?: boolean;
  /** The body names no agency (no agencyCode): a server may validate it before the key, so 400 refuses it as well as 401. */
  noAgency?: boolean;
  /** The request's shape, in words ("a body without Content-Type"): 400, 406 or 415 refuse it as well (shapeKeyRefusal). */
  shape?: string;
  /** The shape is another spelling of the path (a trailing slash, capitals): only the operation's success fails (otherPathJudge). */
  otherPath?: boolean;
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
  description: 'A request without the key or with a wrong key (on the run notification also with an empty one) is refused: 401 on the run notification (an empty key, or a body without agencyCode, 401 or 400: a missing key or a bad request); on the others any documented error status, 401 or 403 (the answer is not shown for them). Sent in another shape (no Content-Type, an XML body labelled text/xml or a JSON body labelled text/json, an Accept of the other format or of */*, a query parameter the document does not name), 400, 406 or 415 refuse it as well, and on its path with a trailing slash or in capitals any answer but the operation\'s success (a path not routed is no key skipped). An empty key on merge, delete and demerge is proven where it shows, on disposable entries (auth.key-checked).',
  scope: 'targeted',
  params: { type: 'object', properties: { emptyKey: { type: 'boolean' }, noAgency: { type: 'boolean' }, shape: { type: 'string' }, otherPath: { type: 'boolean' } }, required: [] },
  judge: (input) =>
    input.params.otherPath === true
      ? otherPathJudge(input, input.params.shape ?? 'another spelling of the path')
      : statusJudge<KeyRequiredParams>(({ operation: opId, params }) => params.shape !== undefined ? shapeKeyRefusal(opId, params.shape) : keyRefusal(opId, params.emptyKey === true ? 'an empty key' : params.noAgency === true ? 'a body without agencyCode' : undefined))(input),
});
