import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** How the runId answering the end of a run is written (that it names the run is outcome.run-end-same-id's), and what a runId the server never issued gets (not shown). */
export default defineCheck({
  id: 'observed.run-id',
  level: 'observed',
  sections: ['2.2', '4.1'],
  reading: 'Open points',
  description: 'How the runId answering the end of a run is written (that it is the run\'s is outcome.run-end-same-id\'s), and what a runId the server never issued gets (not shown).',
  scope: 'targeted',
  judge: observe,
});
