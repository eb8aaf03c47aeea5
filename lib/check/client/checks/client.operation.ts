import { documentedPaths, methodsOnPath, operations } from '../../../contract/operations.ts';
import { defineClientCheck, fail, PASSED } from '../types.ts';

const EXPECTED = `one of ${operations().map((op) => `${op.method} ${op.path}`).join(', ')} (section 4)`;

/** Section 4: the four operations, each a method on a path of {base_url}. */
export default defineClientCheck({
  id: 'client.operation',
  level: 'spec',
  sections: ['4'],
  reading: 'Operations',
  description: 'The method and path of one of the four operations of section 4, exactly as the document writes them.',
  judge({ request }) {
    const expected = EXPECTED;
    if (request.operation) return PASSED;
    const path = request.path;
    const near = documentedPaths().find((p) => p.toLowerCase() === path.toLowerCase().replace(/\/+$/, ''));
    const hint = documentedPaths().includes(path)
      ? ` (the document defines only ${methodsOnPath(path).join(', ')} on ${path})`
      : near
        ? ` (the document writes the path ${near})`
        : '';
    return fail(expected, `${request.method} ${path}${hint}`);
  },
});
