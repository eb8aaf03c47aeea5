import { describe, judgeLength, matchesPattern } from '../fields.ts';
import { queryLeaves } from '../query.ts';
import { defineClientCheck, fail, PASSED } from '../types.ts';

const INT_TEXT = /^\s*[+-]?[0-9]+\s*$/;

/** Sections 4.2 to 4.4 and 8: agency (an agency code, exactly 3), workcode (at most 20), sourceDb (int32). */
export default defineClientCheck({
  id: 'client.query.limits',
  level: 'spec',
  sections: ['4.2', '4.3', '4.4', '2.4', '8'],
  reading: 'Limits',
  description: 'Every query parameter of the operation within the limits the contract gives it: agency exactly 3 characters, workcode at most 20 (under every reading of "characters"), sourceDb a 32-bit integer. What the document leaves open (reasonCode values, a pattern for preferredIswc) is recorded elsewhere.',
  judge(input) {
    const leaves = queryLeaves(input);
    const broken: string[] = [];
    let judged = 0;
    for (const leaf of leaves) {
      if (leaf.value.trim() === '') continue;
      if (leaf.schema.type === 'integer') {
        judged += 1;
        if (!INT_TEXT.test(leaf.value)) {
          broken.push(`${leaf.path} ${describe(leaf.value)} is not an integer`);
          continue;
        }
        const n = Number(leaf.value.trim());
        const { minimum: min, maximum: max } = leaf.schema;
        if ((min !== undefined && n < min) || (max !== undefined && n > max)) broken.push(`${leaf.path} ${describe(leaf.value)} is outside ${String(min)}..${String(max)} (int32)`);
        continue;
      }
      const length = judgeLength(leaf.value, leaf.schema);
      const pattern = matchesPattern(leaf.value, leaf.schema);
      if (length || pattern !== undefined) judged += 1;
      if (length?.outside) broken.push(`${leaf.path} ${describe(leaf.value)} is ${length.lengths.codePoints} characters, the limit is ${length.limit}`);
      if (pattern === false) broken.push(`${leaf.path} ${describe(leaf.value)} does not match ${String(leaf.schema.pattern)}`);
    }
    if (judged === 0) return null;
    return broken.length === 0 ? PASSED : fail(`query parameters within their limits (section ${input.request.operation?.section ?? '4'}, 8)`, broken.join('; '));
  },
});
