import { bodyShape, contentTypeOf, statusOf } from '../../contract/answer.ts';
import { defineCheck } from '../types.ts';

/** Every error answer's shape, where the document states no text: error body format is not shown (7). */
export default defineCheck({
  id: 'observed.error-body',
  level: 'observed',
  sections: ['7'],
  reading: 'Stated texts',
  description: 'The content type and shape of error answers for which the document states no text (error body format is not shown).',
  scope: 'every-exchange',
  judge({ exchange }) {
    const status = statusOf(exchange);
    if (status === null || status < 400) return null;
    const observation = { status, contentType: contentTypeOf(exchange) ?? null, body: bodyShape(exchange) };
    return {
      verdict: 'observed',
      expected: 'not shown by the document (section 7: error body format)',
      received: `${status} ${observation.contentType ?? ''} ${observation.body}`.replace(/\s+/g, ' '),
      observation,
    };
  },
});
