import { bodyWalk, typeFit } from '../fields.ts';
import { defineClientCheck, noted, PASSED } from '../types.ts';

/** Section 4: which body fields are required is not shown; section 2 names the fields and no others. */
export default defineClientCheck({
  id: 'client.body.fields',
  level: 'observed',
  sections: ['2.1', '2.3', '2.4', '4'],
  reading: 'Bodies',
  description: 'Fields the document does not name, documented fields left out or null (required-ness is not shown), a merge naming neither ISWCs nor agency works, and a body larger than the sandbox reads (the document states no size limit: not judged). A run start leaves out runId by design (the server issues it, 2.2).',
  judge(input) {
    const walk = bodyWalk(input);
    const format = input.view.format;
    // A body left unread (larger than the sandbox reads) is recorded here; an XML one by client.xml.
    if (!walk) return input.view.unread !== undefined && format !== 'xml' && input.request.operation?.body ? noted('a body the sandbox reads and judges', input.view.unread) : null;
    const found = [
      ...walk.unknown.filter((u) => u.meant === undefined).map((u) => `${u.path}: a field the document does not name`),
      ...walk.missing.map((m) => `${m}: left out`),
      ...walk.leaves.filter((l) => format !== undefined && typeFit(l, format) === 'null').map((l) => `${l.path}: ${l.value === null ? 'null' : 'empty'}`),
      ...(walk.emptyMerge ? ['neither ISWCs nor agency works'] : []),
    ];
    const expected = 'the fields section 2 names, each with a value (which are required is not shown, section 4)';
    return found.length === 0 ? PASSED : noted(expected, found.join('; '));
  },
});
