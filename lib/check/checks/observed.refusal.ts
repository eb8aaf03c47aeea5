import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Which documented error status (400 or 404) refuses a request where the document lets either answer it. */
export default defineCheck({
  id: 'observed.refusal',
  level: 'observed',
  sections: ['4.2', '4.3', '4.4', '7'],
  reading: 'Refusal',
  description: 'Which documented error status (400 or 404) refuses a request where the document lets either answer it.',
  scope: 'targeted',
  judge: observe,
});
