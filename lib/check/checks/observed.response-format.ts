import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Which representation (JSON or XML) answers, for each request format and Accept header (not shown). */
export default defineCheck({
  id: 'observed.response-format',
  level: 'observed',
  sections: ['4.1'],
  reading: 'Statuses and bodies',
  description: 'Which representation (JSON or XML) answers, for each request format and Accept header (not shown).',
  scope: 'targeted',
  judge: observe,
});
