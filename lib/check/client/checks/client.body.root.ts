import { resourceSchema, sectionsOf } from '../../../contract/constraints.ts';
import { defineClientCheck, fail, PASSED } from '../types.ts';

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
    if (view.format === 'xml') {
      if (parsed.root === spec.xmlRoot) return PASSED;
      return fail(`the root element <${spec.xmlRoot}> (section ${sectionsOf(resourceSchema(spec.resource)).join(', ')})`, `<${parsed.root ?? '?'}>`);
    }
    const v = parsed.value;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return PASSED;
    return fail(`a JSON object, the ${spec.resource} (section ${sectionsOf(resourceSchema(spec.resource)).join(', ')})`, Array.isArray(v) ? 'an array' : v === null ? 'null' : `a ${typeof v}`);
  },
});
