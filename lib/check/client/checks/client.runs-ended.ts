import { defineClientCheck, noted, PASSED } from '../types.ts';

/** Sections 3, 4.1: a run notification starts or ends a run; states of a run are not shown. */
export default defineClientCheck({
  id: 'client.runs-ended',
  level: 'observed',
  sections: ['3', '4.1'],
  reading: 'Open points',
  description: 'Every run the client started in the session is ended by a notification carrying its runId before the session ends (section 3 shows no states of a run, so a run left open is recorded, not failed).',
  conclude(session) {
    const expected = 'a notification ending each run the client started (section 4.1)';
    return session.runsStarted.map(({ runId, request }) =>
      session.runsEnded.has(runId) ? { ...PASSED, request } : { ...noted(expected, `run ${runId} started and never ended`), request },
    );
  },
});
