import { bodyWalk, describe, integerOf, judgeLength, matchesPattern, typeFit } from '../fields.ts';
import { defineClientCheck, fail, PASSED } from '../types.ts';

/** Sections 2.1, 2.3, 2.4, 8: agencyCode exactly 3, agencyWorkCode at most 20, ISWCs `T[0-9]{10}`, counters int32. */
export default defineClientCheck({
  id: 'client.body.limits',
  level: 'spec',
  sections: ['2.1', '2.3', '2.4', '8'],
  reading: 'Limits',
  description: 'Every value of the body within its stated limit (schemas/openapi.yaml): lengths outside the limit under every reading of "characters", an ISWC off the pattern T and 10 digits, an integer outside 32 bits.',
  judge(input) {
    const walk = bodyWalk(input);
    const format = input.view.format;
    if (!walk || !format) return null;
    const broken: string[] = [];
    let judged = 0;
    for (const leaf of walk.leaves) {
      const fit = typeFit(leaf, format);
      if (fit !== 'fits' && fit !== 'lossless') continue;
      const v = leaf.value;
      if (leaf.schema.type === 'string' && typeof v === 'string') {
        const length = judgeLength(v, leaf.schema);
        const pattern = matchesPattern(v, leaf.schema);
        if (length || pattern !== undefined) judged += 1;
        if (length?.outside) broken.push(`${leaf.path} ${describe(v)} is ${length.lengths.codePoints} characters, the limit is ${length.limit}`);
        if (pattern === false) broken.push(`${leaf.path} ${describe(v)} does not match ${String(leaf.schema.pattern)}`);
      }
      if (leaf.schema.type === 'integer') {
        const n = integerOf(v);
        if (n === undefined) continue;
        judged += 1;
        const { minimum: min, maximum: max } = leaf.schema;
        if ((min !== undefined && n < min) || (max !== undefined && n > max)) broken.push(`${leaf.path} ${describe(v)} is outside ${String(min)}..${String(max)} (int32)`);
      }
    }
    if (judged === 0) return null;
    return broken.length === 0 ? PASSED : fail('every value within the limits of sections 2 and 8', broken.join('; '));
  },
});
