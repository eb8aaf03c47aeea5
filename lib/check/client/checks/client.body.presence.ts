import { defineClientCheck, fail, PASSED } from '../types.ts';

/** Sections 4.1 to 4.4: the run notification and the merge carry a body; delete and demerge carry none. */
export default defineClientCheck({
  id: 'client.body.presence',
  level: 'spec',
  sections: ['4.1', '4.2', '4.3', '4.4'],
  reading: 'Operations',
  description: 'A body where the operation has one (run notification, merge: section 2 resources) and none where the document says "Request body: none" (delete, demerge).',
  judge({ request, view }) {
    const op = request.operation;
    if (!op) return null;
    if (op.body) return view.bodyBytes > 0 ? PASSED : fail(`a ${op.body.resource} body, JSON or XML (section ${op.section})`, 'no body');
    return view.bodyBytes === 0 ? PASSED : fail(`no body (section ${op.section}: "Request body: none")`, `a body of ${view.bodyBytes === Number.POSITIVE_INFINITY ? 'more than the size cap' : `${view.bodyBytes} bytes`}`);
  },
});
