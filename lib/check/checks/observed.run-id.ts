import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Which runId answers a run notification that ends a run, and what a runId the server never issued gets (not shown). */
export default defineCheck({
  id: 'observed.run-id',
  level: 'observed',
  sections: ['2.2', '4.1'],
  reading: 'Open points',
  description: 'Which runId answers a run notification that ends a run, and what a runId the server never issued gets (not shown).',
  scope: 'targeted',
  judge: observe,
});
