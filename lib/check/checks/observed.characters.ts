import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** What a value at or past a length limit gets when the readings of "characters" (code points, UTF-16 units, grapheme clusters, bytes) count it differently: astral, combining, right-to-left, full-width characters. */
export default defineCheck({
  id: 'observed.characters',
  level: 'observed',
  sections: ['2.1', '2.4', '8'],
  reading: 'Characters',
  description: 'What a value at or past a length limit gets when the readings of "characters" (code points, UTF-16 units, grapheme clusters, bytes) count it differently: astral, combining, right-to-left, full-width characters.',
  scope: 'targeted',
  judge: observe,
});
