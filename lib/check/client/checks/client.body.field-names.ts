import { bodyWalk } from '../fields.ts';
import { defineClientCheck, fail, PASSED } from '../types.ts';

/** Section 2.1: "All fields are named exactly as below"; 2.3 and 2.4 name the merge request's fields. */
export default defineClientCheck({
  id: 'client.body.field-names',
  level: 'spec',
  sections: ['2.1', '2.3', '2.4'],
  reading: 'Bodies',
  description: 'Fields are named exactly as section 2 names them: a documented field spelt another way (AgencyCode, agency_code) is not that field.',
  judge(input) {
    const walk = bodyWalk(input);
    if (!walk) return null;
    const expected = 'field names exactly as section 2 writes them (2.1: "named exactly as below")';
    const misnamed = walk.unknown.filter((u) => u.meant !== undefined);
    if (misnamed.length === 0) return PASSED;
    return fail(expected, misnamed.map((u) => `${u.path} for ${u.meant}`).join(', '));
  },
});
