import { statedText } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Section 4.1: 400 Bad Request, text "Bad Request". */
export default defineCheck({
  id: 'text.bad-request',
  level: 'spec',
  sections: ['4.1', '7'],
  reading: 'Stated texts',
  description: 'A 400 of an operation for which the document states a text carries that text as a whole string: the body itself, a JSON string value (a problem+json title, a message) or an XML text node; the format is free (section 7).',
  scope: 'every-exchange',
  judge: statedText(400),
});
