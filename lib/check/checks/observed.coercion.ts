import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** What a value of another type gets when a lenient deserializer converts it without loss ("5" for an integer, a number or boolean for a string, a boolean for an integer) or, in XML, an element where text is expected. */
export default defineCheck({
  id: 'observed.coercion',
  level: 'observed',
  sections: ['2.1', '2.3', '2.4'],
  reading: 'Types',
  description: 'What a value of another type gets when a lenient deserializer converts it without loss ("5" for an integer, a number or boolean for a string, a boolean for an integer) or, in XML, an element where text is expected.',
  scope: 'targeted',
  judge: observe,
});
