import type { Because } from '../../generate/expectations.ts';
import { keyRefusal, otherPathJudge, refusal, shapeKeyRefusal, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

interface KeyCheckedParams extends Because {
  /**
   * The step is the proof that the requests just refused for their key changed nothing: a request with the
   * key that would succeed had they been carried out (the demerge of what a refused merge names), refused.
   */
  noEffect?: boolean;
  /** The key header is sent without a value: on the run notification 400 refuses it as well as 401. */
  emptyKey?: boolean;
  /** The request's shape, in words ("a query parameter given twice"): 400, 406 or 415 refuse it as well (shapeKeyRefusal). */
  shape?: string;
  /** The shape is another spelling of the path (a trailing slash, capitals): only the operation's success fails (otherPathJudge). */
  otherPath?: boolean;
}

/**
 * Section 5: every operation requires the key. Sent without it, empty, or with a wrong one, to data that does not
 * exist, a request may get 404 whatever the server does with the key (it may look the data up first, 5.3),
 * so the proof is made on a disposable entry: the request that succeeds with the key is sent first without
 * the key, with an empty one, with a wrong one and with the key in another letter case, and each must be
 * refused. The wrong one is a near miss of the key (lib/generate/cases/key-proofs.ts): wrong to any server,
 * and taken by one that compares the key loosely. A refusal may still have changed data (section 1 shows no effect of a refused request), so a
 * request then shows it did not: the same delete or demerge succeeding afterwards (`status.success`) shows
 * it for those; for a merge, a demerge of what it names is refused (`noEffect`) before the merge succeeds.
 */
export default defineCheck<KeyCheckedParams>({
  id: 'auth.key-checked',
  level: 'spec',
  sections: ['5', '4.1', '4.2', '4.3', '4.4'],
  reading: 'Authentication',
  description:
    'A request on a disposable entry sent without the key, with an empty one, with a wrong one (a near miss of the key, a different one on each operation that changes data) or with the key in another letter case (that one spelled every other way every reader takes alike at once: a charset parameter to its Content-Type, an Accept of its format, every query value percent-encoded), just before the same request succeeds with the key, is refused: 401 on the run notification (an empty key 401 or 400); elsewhere a documented error status, 401 or 403 (the answer is not shown for these operations), never a success; sent without the key in another shape (no Content-Type, an XML body labelled text/xml or a JSON body labelled text/json, a query parameter given twice or one the document does not name, an Accept of the other format or of */*), 400, 406 or 415 refuse it as well, and on its path with a trailing slash or in capitals any answer but the operation\'s success (a path not routed is no key skipped). After a merge refused for its key, a demerge of what it names is refused: the refused merge merged nothing.',
  scope: 'targeted',
  params: { type: 'object', properties: { noEffect: { type: 'boolean' }, emptyKey: { type: 'boolean' }, shape: { type: 'string' }, otherPath: { type: 'boolean' } }, required: [] },
  // The work a no-effect demerge names may be another agency's: 401 or 403 may refuse it (5.3).
  judge: (input) =>
    input.params.otherPath === true
      ? otherPathJudge(input, input.params.shape ?? 'another spelling of the path')
      : statusJudge<KeyCheckedParams>(({ operation: opId, params }) => (params.noEffect === true ? refusal(opId) : params.shape !== undefined ? shapeKeyRefusal(opId, params.shape) : keyRefusal(opId, params.emptyKey === true ? 'an empty key' : undefined)), true)(input),
});
