import { bodyWalk, describe, typeFit } from '../fields.ts';
import { defineClientCheck, fail, PASSED } from '../types.ts';

/** Sections 2.1, 2.3, 2.4, 8: the types of the fields (string, int32, array of string, array of object). */
export default defineClientCheck({
  id: 'client.body.types',
  level: 'spec',
  sections: ['2.1', '2.3', '2.4', '8'],
  reading: 'Bodies',
  description: 'Every field holds a value of its stated type, or one a lenient reader converts without loss (recorded by client.coercion): never a word or a fraction for an int32, an object or an array for a string, an object for a list of strings, a non-object for an agency work.',
  judge(input) {
    const walk = bodyWalk(input);
    const format = input.view.format;
    if (!walk || !format) return null;
    const expected = 'values of the types section 2 states (string, 32-bit integer, array of string, array of agency work)';
    const wrong = [
      ...walk.shapes.filter((s) => !s.lossless).map((s) => `${s.path}: ${s.received}, not ${s.expected}`),
      ...walk.leaves.filter((l) => typeFit(l, format) === 'never').map((l) => `${l.path}: ${describe(l.value)}, not ${l.schema.type === 'integer' ? 'an integer' : `a ${String(l.schema.type)}`}`),
    ];
    return wrong.length === 0 ? PASSED : fail(expected, wrong.join('; '));
  },
});
