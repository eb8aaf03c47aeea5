import { defineClientCheck, fail, PASSED } from '../types.ts';

/** Sections 2.1, 2.3: the resource is represented as JSON or as XML; a body neither parser reads is neither. */
export default defineClientCheck({
  id: 'client.body.syntax',
  level: 'spec',
  sections: ['2.1', '2.3'],
  reading: 'Bodies',
  description: 'A body parses in its format: JSON as RFC 8259 writes it (UTF-8, no comments, no single quotes, no trailing commas), XML well-formed.',
  judge({ request, view }) {
    if (!request.operation?.body || view.bodyBytes === 0 || view.format === undefined) return null;
    // Left unread (larger than the sandbox reads, an encoding it does not decode): not judged.
    if (view.text === undefined && view.textError === undefined) return null;
    const error = view.textError ?? (view.parsed && !view.parsed.ok ? view.parsed.error : undefined);
    if (error === undefined) return PASSED;
    return fail(`a ${request.operation.body.resource} in ${view.format === 'json' ? 'JSON (RFC 8259)' : 'well-formed XML'} (sections 2.1, 2.3)`, error);
  },
});
