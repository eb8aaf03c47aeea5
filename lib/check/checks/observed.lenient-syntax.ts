import { observe } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** What a body gets that a strict JSON parser refuses and a lenient one accepts (single quotes, comments, trailing content). */
export default defineCheck({
  id: 'observed.lenient-syntax',
  level: 'observed',
  sections: ['2.1', '2.3', '7'],
  reading: 'Syntax',
  description: 'What a body gets that a strict parser refuses and a lenient one accepts (single quotes, comments, trailing content; XML under another root element).',
  scope: 'targeted',
  judge: observe,
});
