import { keyRefusal, statusJudge } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/**
 * Section 5: every operation requires the key. Sent without it, empty, or with a wrong one, to data that does not
 * exist, a request may get 404 whatever the server does with the key (it may look the data up first, 5.3),
 * so the proof is made on a disposable entry: the request that succeeds with the key is sent first without
 * the key, with an empty one and with a wrong one, and each must be refused. The same request then succeeds with the key
 * (`status.success`), which shows both that the refusal came from the key and that it had no effect.
 */
export default defineCheck({
  id: 'auth.key-checked',
  level: 'spec',
  sections: ['5', '4.2', '4.3', '4.4'],
  reading: 'Authentication',
  description: 'A merge, delete or demerge of a disposable entry sent without the key, with an empty one or with a wrong one, just before the same request succeeds with the key, is refused: a documented error status, 401 or 403 (the answer is not shown for these operations), never a success.',
  scope: 'targeted',
  judge: statusJudge(({ operation: opId }) => keyRefusal(opId)),
});
