import { defineClientCheck, fail, PASSED } from '../types.ts';

/** Sections 4.1, 4.2: Content-Type is optional and, when sent, is the media type of the body (JSON or XML). */
export default defineClientCheck({
  id: 'client.content-type',
  level: 'spec',
  sections: ['4.1', '4.2'],
  reading: 'Operations',
  description: 'A Content-Type, when sent with a body, names JSON or XML (application/json, application/xml, text/xml, +json, +xml) and the body is in that format (4.1, 4.2: "media type of the body").',
  judge({ request, view }) {
    const sent = request.headers['content-type'];
    if (sent === undefined || view.bodyBytes === 0 || !request.operation?.body) return null;
    const expected = 'the media type of the body: JSON or XML, as the body is (sections 4.1, 4.2)';
    if (view.declared !== 'json' && view.declared !== 'xml') return fail(expected, `Content-Type ${sent}`);
    if (view.sniffed !== undefined && view.sniffed !== view.declared) return fail(expected, `Content-Type ${sent} on a body that is ${view.sniffed === 'xml' ? 'XML' : 'not XML'}`);
    return PASSED;
  },
});
