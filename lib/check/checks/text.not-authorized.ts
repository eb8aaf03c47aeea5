import { statedText } from '../helpers.ts';
import { defineCheck } from '../types.ts';

/** Sections 4.1 and 5.2: 401 Unauthorized, text "Not Authorized". */
export default defineCheck({
  id: 'text.not-authorized',
  level: 'spec',
  sections: ['4.1', '5'],
  reading: 'Stated texts',
  description: 'A 401 of an operation for which the document states a text carries that text as a whole string: the body itself, a JSON string value (a problem+json title, a message) or an XML text node; the format is free (section 7).',
  scope: 'every-exchange',
  judge: statedText(401),
});
