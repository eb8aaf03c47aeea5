import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** What the server does with missing fields, null values and extra fields (required-ness is not shown). */
export default defineCheck({
  id: 'observed.requiredness',
  level: 'observed',
  sections: ['4'],
  reading: 'Open points',
  description: 'What the server does with missing fields, null values and extra fields (required-ness is not shown).',
  scope: 'targeted',
  judge: observe,
});
