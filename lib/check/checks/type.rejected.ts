import { statusJudge } from '../helpers.ts';
import type { Because } from '../../generate/expectations.ts';
import { defineCheck } from '../types.ts';

/** Section 2: a value no reading can take as its field's type is a bad request. Values a lenient
 * deserializer converts without loss ("5" for an integer, a number for a string) are only observed. */
interface RejectParams extends Because {
  /**
   * The body also names data the target does not have (agency works of no submission, an item of a merge
   * read as text: any value in XML, a number a lenient binder turns into "42"): a server that looks each item
   * up as it reads it may answer 404 "not found" first, a documented refusal of the operation.
   */
  notFoundFits?: boolean;
}

export default defineCheck<RejectParams>({
  id: 'type.rejected',
  level: 'spec',
  sections: ['2.1', '2.3', '2.4', '7'],
  reading: 'Types',
  description: "A body value no reading can take as its field's type (a non-numeric string or a fraction for an int32, an object or array for a scalar, a body that is not an object) is refused with 400.",
  scope: 'targeted',
  params: { type: 'object', properties: { notFoundFits: { type: 'boolean' } }, required: [] },
  // A broken agency code is another agency than the key's: 401 or 403 may refuse it first (5.3).
  judge: statusJudge(({ params }) => (params.notFoundFits === true ? { statuses: [400, 404], label: '400 (sections 2, 7) or 404 (the body names data the target does not have)' } : { statuses: [400], label: '400 (sections 2, 7)' }), true),
});
