import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** What the submission delete does with a missing or blank reasonCode (allowed values are not shown). */
export default defineCheck({
  id: 'observed.reason-code',
  level: 'observed',
  sections: ['4.3'],
  reading: 'Open points',
  description: 'What the submission delete does with a missing or blank reasonCode (allowed values are not shown).',
  scope: 'targeted',
  judge: observe,
});
