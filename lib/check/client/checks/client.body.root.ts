import { resourceSchema, sectionsOf } from '../../../contract/constraints.ts';
import { defineClientCheck, fail, pass } from '../types.ts';

/** Sections 2.1, 2.3: "as XML with root element AgentRun" / "MergeRequest"; in JSON the resource is an object. */
export default defineClientCheck({
  id: 'client.body.root',
  level: 'spec',
  sections: ['2.1', '2.3'],
  reading: 'Bodies',
  description: 'The body is the resource of the operation: a JSON object, or XML under the root element the document names (AgentRun, MergeRequest).',
  judge({ request, view }) {
    const spec = request.operation?.body;
    const parsed = view.parsed;
    if (!spec || !parsed?.ok) return null;
    const section = sectionsOf(resourceSchema(spec.resource)).join(', ');
    if (view.format === 'xml') {
      const expected = `the root element <${spec.xmlRoot}> (section ${section})`;
      return parsed.root === spec.xmlRoot ? pass(expected, `<${parsed.root}>`) : fail(expected, `<${parsed.root ?? '?'}>`);
    }
    const expected = `a JSON object, the ${spec.resource} (section ${section})`;
    const v = parsed.value;
    const isObject = v !== null && typeof v === 'object' && !Array.isArray(v);
    return isObject ? pass(expected, 'an object') : fail(expected, Array.isArray(v) ? 'an array' : v === null ? 'null' : `a ${typeof v}`);
  },
});
