import { runIdOfRequest } from '../run-ids.ts';
import { defineClientCheck, noted, PASSED } from '../types.ts';

/** Sections 2.2, 4.1: the run notification answers the agent run identifier; what ending another run does is not shown. */
export default defineClientCheck({
  id: 'client.run-id.issued',
  level: 'observed',
  sections: ['2.2', '4.1'],
  reading: 'Open points',
  description: 'A run notification that ends a run names a runId the server issued in this session (the document leaves open what a runId the server never issued gets; production answers 404).',
  judge({ request, view, session }) {
    const runId = runIdOfRequest(request, view);
    if (runId === undefined) return null;
    const expected = 'the runId the server answered when the run started (section 2.2)';
    return session.issuedRunIds.has(runId) ? PASSED : noted(expected, `runId ${JSON.stringify(runId)}, which the server never issued in this session`);
  },
});
