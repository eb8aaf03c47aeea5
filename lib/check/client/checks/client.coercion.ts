import { bodyWalk, describe, typeFit } from '../fields.ts';
import { queryLeaves } from '../query.ts';
import { defineClientCheck, noted, PASSED } from '../types.ts';

/** Sections 2.1, 2.3, 2.4, 4.3: a value of another type a lenient reader converts without loss. */
export default defineClientCheck({
  id: 'client.coercion',
  level: 'observed',
  sections: ['2.1', '2.3', '2.4', '4.3'],
  reading: 'Bodies',
  description: 'Values a lenient reader converts without loss and a strict one refuses: "5" for an integer, a number or boolean for a string, a boolean for an integer, one value (or one agency work) where a list is expected, XML elements where text is expected, a sourceDb written " 5" or "+5".',
  judge(input) {
    const walk = bodyWalk(input);
    const format = input.view.format;
    const found: string[] = [];
    let judged = 0;
    if (walk && format) {
      judged += walk.leaves.length;
      for (const shape of walk.shapes.filter((s) => s.lossless)) found.push(`${shape.path}: ${shape.received}`);
      for (const leaf of walk.leaves) if (typeFit(leaf, format) === 'lossless') found.push(`${leaf.path}: ${describe(leaf.value)} for ${leaf.schema.type === 'integer' ? 'an integer' : 'a string'}`);
      const parsed = input.view.parsed;
      if (parsed?.ok) for (const note of parsed.xmlNotes.filter((n) => n.includes('where text is expected'))) found.push(note);
    }
    for (const leaf of queryLeaves(input)) {
      if (leaf.schema.type !== 'integer' || leaf.value.trim() === '') continue;
      judged += 1;
      if (!/^-?[0-9]+$/.test(leaf.value) && /^\s*[+-]?[0-9]+\s*$/.test(leaf.value)) found.push(`${leaf.path} ${describe(leaf.value)}`);
    }
    if (judged === 0) return null;
    const expected = 'values of their stated type, written plainly (readers differ on converting others)';
    return found.length === 0 ? PASSED : noted(expected, found.join('; '));
  },
});
