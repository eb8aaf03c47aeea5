import { operation, operations } from '../../contract/operations.ts';
import type { TargetProfile } from '../../contract/profile/types.ts';
import type { CaseDef } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, queryRequest } from '../requests.ts';
import { baseQuery, emptyMerge, otherIswc, queryFor, unknownIswc } from '../templates.ts';

/**
 * Which query parameters are required is not shown for any operation (section 4), so what a request
 * without one, or with one present but empty, gets is only recorded; a 5xx is still an `http` failure
 * (`http.no-5xx`, an every-answer check). Every request names a preferred ISWC that does not exist and a
 * work code never submitted, so nothing can change whatever the server makes of the missing value.
 */
export function queryParamCases(profile: TargetProfile): CaseDef[] {
  return operations()
    .filter((op) => op.params.length > 0)
    .map((op): CaseDef => {
      const short = op.id === 'mergeIswcMetadata' ? 'merge' : op.id === 'deleteSubmission' ? 'delete' : 'demerge';
      const shapes = operation(op.id).params.flatMap((param) => [
        { param: param.name, id: `${param.name}.absent`, label: `no ${param.name}`, value: undefined },
        { param: param.name, id: `${param.name}.empty`, label: `empty ${param.name}`, value: '' },
      ]);
      return {
        id: `${short}.query-parameters`,
        title: `${op.method} ${op.path} with each query parameter left out, then present but empty (observed; never 5xx)`,
        operation: op.id,
        formats: op.body ? ['json'] : ['none'],
        tags: ['@observed', '@requiredness'],
        // Each request a part: a budget takes the one parameter whose absence shows a fault, not all ten (issue 37).
        parts: shapes.map((shape) => ({ id: shape.id, title: `${shape.label}: recorded, never 5xx` })),
        async run(ctx) {
          const base = baseQuery(op.id, profile, unknownIswc(profile));
          // A merge that names an existing ISWC in its body: an empty merge may itself be a bad request (4.2 "and/or").
          const body = { ...emptyMerge(), iswcs: [otherIswc(profile)] };
          for (const { param, id, label, value } of shapes) {
            const query = queryFor(op.id, { ...base, [param]: value });
            await ctx.part(id, async () => {
              await ctx.send({
                label,
                operation: op.id,
                probe: 'open-point',
                request: op.body ? bodyRequest(op.id, 'json', body, { query }) : queryRequest(op.id, query),
                expect: [expectCheck('observed.requiredness', { because: `${op.summary}: ${label} (which query parameters are required is not shown, section 4)`, facts: { parameter: param, sent: value === undefined ? 'absent' : 'empty' } })],
              });
            });
          }
        },
      };
    });
}
