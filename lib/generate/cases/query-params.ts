import { operation, operations } from '../../contract/operations.ts';
import type { TargetProfile } from '../../contract/profile/types.ts';
import type { CaseDef } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, queryRequest } from '../requests.ts';
import { baseQuery, emptyMerge, otherIswc, queryFor, unknownIswc } from '../templates.ts';

/** The query with the pair of `param` given again right after it (the same value twice). */
function twice(query: ReadonlyArray<readonly [string, string]>, param: string): Array<readonly [string, string]> {
  return query.flatMap((pair) => (pair[0] === param ? [pair, pair] : [pair]));
}

/**
 * Which query parameters are required is not shown for any operation (section 4), so what a request
 * without one, or with one present but empty, gets is only recorded; so is a parameter given twice with
 * the same value (readers take the first, the last, both joined with a comma, or refuse it; issue 38); a 5xx is still an `http` failure
 * (`http.no-5xx`, an every-answer check). Every request names a preferred ISWC that does not exist and a
 * work code never submitted, so nothing can change whatever the server makes of the missing value.
 */
export function queryParamCases(profile: TargetProfile): CaseDef[] {
  return operations()
    .filter((op) => op.params.length > 0)
    .map((op): CaseDef => {
      const short = op.id === 'mergeIswcMetadata' ? 'merge' : op.id === 'deleteSubmission' ? 'delete' : 'demerge';
      const shapes = operation(op.id).params.flatMap((param) => [
        { param: param.name, id: `${param.name}.absent`, label: `no ${param.name}`, sent: 'absent' as const },
        { param: param.name, id: `${param.name}.empty`, label: `empty ${param.name}`, sent: 'empty' as const },
        { param: param.name, id: `${param.name}.twice`, label: `${param.name} given twice, with the same value`, sent: 'twice' as const },
      ]);
      return {
        id: `${short}.query-parameters`,
        title: `${op.method} ${op.path} with each query parameter left out, present but empty, then given twice (observed; never 5xx)`,
        operation: op.id,
        formats: op.body ? ['json'] : ['none'],
        tags: ['@observed', '@requiredness'],
        // Each request a part: a budget takes the one parameter whose absence shows a fault, not all ten (issue 37).
        parts: shapes.map((shape) => ({ id: shape.id, title: `${shape.label}: recorded, never 5xx` })),
        async run(ctx) {
          const base = baseQuery(op.id, profile, unknownIswc(profile));
          // A merge that names an existing ISWC in its body: an empty merge may itself be a bad request (4.2 "and/or").
          const body = { ...emptyMerge(), iswcs: [otherIswc(profile)] };
          for (const { param, id, label, sent } of shapes) {
            const query = sent === 'twice' ? twice(queryFor(op.id, base), param) : queryFor(op.id, { ...base, [param]: sent === 'empty' ? '' : undefined });
            await ctx.part(id, async () => {
              await ctx.send({
                label,
                operation: op.id,
                probe: 'open-point',
                request: op.body ? bodyRequest(op.id, 'json', body, { query }) : queryRequest(op.id, query),
                expect: [expectCheck('observed.requiredness', { because: `${op.summary}: ${label} (${sent === 'twice' ? 'what a parameter given twice names is not shown, section 4: the first, the last, both joined, or a refusal' : 'which query parameters are required is not shown, section 4'})`, facts: { parameter: param, sent } })],
              });
            });
          }
        },
      };
    });
}
