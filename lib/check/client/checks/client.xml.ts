import { defineClientCheck, noted, PASSED } from '../types.ts';

/** Sections 2.1, 2.3, 4.1, 4.2: the XML mapping names root elements and fields only; the rest is open. */
export default defineClientCheck({
  id: 'client.xml',
  level: 'observed',
  sections: ['2.1', '2.3', '4.1', '4.2'],
  reading: 'Bodies',
  description: 'XML habits the document leaves open: a namespace on the root (production uses none), arrays wrapped where the target reads them unwrapped (or the reverse), a DOCTYPE, repeated elements, an empty list element (<iswcs/>: an empty list or one empty item), an encoding the sandbox does not decode or a body larger than it reads (the body is then not judged), an XML body without Content-Type (a server may read it as JSON), and elements nested deeper than the sandbox reads (64 levels; the body is then not judged).',
  judge({ request, view, session }) {
    if (view.format !== 'xml' || !request.operation?.body) return null;
    const parsed = view.parsed;
    const notes = parsed?.ok ? parsed.xmlNotes.filter((n) => !n.includes('where text is expected')) : [];
    const found: string[] = [];
    if (view.unread !== undefined) found.push(view.unread);
    for (const note of notes) {
      if (note === 'wrapped arrays') {
        if (session.xmlArrays !== 'wrapped') found.push('wrapped arrays (the target profile reads them unwrapped)');
      } else found.push(note);
    }
    const unwrappedItems = parsed?.ok && request.operation.body.resource === 'MergeRequest' && session.xmlArrays === 'wrapped' && !notes.includes('wrapped arrays') && hasItems(parsed.value);
    if (unwrappedItems) found.push('unwrapped arrays (the target profile reads them wrapped)');
    if (request.headers['content-type'] === undefined) found.push('no Content-Type on an XML body');
    const expected = 'XML as the document maps it: no namespace, arrays as the target reads them, a Content-Type naming XML';
    return found.length === 0 ? PASSED : noted(expected, found.join('; '));
  },
});

function hasItems(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some((v) => Array.isArray(v) && v.length > 0);
}
