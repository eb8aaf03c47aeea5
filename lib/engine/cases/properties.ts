import fc from 'fast-check';
import * as observed from '../../checks/observed.ts';
import * as targeted from '../../checks/targeted.ts';
import type { Format } from '../../codec/index.ts';
import { xmlRepresentable } from '../../codec/xml.ts';
import type { FieldConstraint } from '../../contract/constraints.ts';
import { constraintsOf, isLimited } from '../../contract/constraints.ts';
import type { OperationId } from '../../contract/operations.ts';
import { operation } from '../../contract/operations.ts';
import type { InvalidValue } from '../../generators/values.ts';
import { invalidForConstraint, validAgentRunArb, validForConstraint, validMergeBodyArb } from '../../generators/values.ts';
import type { TargetProfile } from '../../profile/types.ts';
import type { CaseContext, CaseDef, Expectation, Probe, Step } from '../case.ts';
import { expectCheck } from '../case.ts';
import { bodyRequest, queryRequest, rawBodyRequest } from '../requests.ts';
import { baseQuery, bodyWith, emptyMerge, existingIswc, queryFor, unknownIswc, validAgentRun, validExample } from '../templates.ts';
import { xmlTwinKeeps } from './limits.ts';

/**
 * Properties: fast-check generates inputs from the schemas, each is sent and judged by every check;
 * a failure shrinks to a minimal input, which is recorded with the seed and path that replay it
 * (ISWC_SEED); a passing property records its last input. ISWC_RUNS sets the runs per property.
 */
export async function property<T>(ctx: CaseContext, label: string, arb: fc.Arbitrary<T>, build: (value: T) => Step): Promise<void> {
  let last: Probe | undefined;
  let lastFailing: Probe | undefined;
  const result = await fc.check(
    fc.asyncProperty(arb, async (value) => {
      const probe = await ctx.probe(build(value));
      last = probe;
      if (probe.failures.length > 0) {
        lastFailing = probe;
        return false;
      }
      return true;
    }),
    { seed: ctx.seed, numRuns: ctx.runs, endOnFailure: ctx.noShrink ?? false },
  );
  if (result.failed && lastFailing) {
    const step = { ...lastFailing.step, label: `${label}: minimal failing input after ${result.numRuns} runs and ${result.numShrinks} shrinks` };
    ctx.record(step, lastFailing.exchange, { seed: result.seed, ...(result.counterexamplePath ? { path: result.counterexamplePath } : {}) });
  } else if (last) {
    ctx.record({ ...last.step, label: `${label}: ${result.numRuns} runs passed (last input shown)` }, last.exchange, { seed: result.seed });
  }
  if (result.failed && !lastFailing) throw new Error(`property ${label} failed without a failing answer: ${fc.stringify(result.errorInstance)}`);
}

const asFormat = (f: string): Format => (f === 'xml' ? 'xml' : 'json');
const options = (format: Format) => ({ xml: format === 'xml', maxFree: 12 });

interface Broken {
  c: FieldConstraint;
  invalid: InvalidValue;
}

/** One field of the operation broken, with an invalid value of that field's own generator. */
function brokenField(opId: OperationId, profile: TargetProfile, format: Format, location: 'body' | 'query'): fc.Arbitrary<Broken> | null {
  const arbs = constraintsOf(opId)
    .filter((c) => c.location === location && (isLimited(c) || c.location === 'body' || c.type === 'integer'))
    .map((c) => invalidForConstraint(c, validExample(c, profile), options(format))?.map((invalid) => ({ c, invalid })))
    .filter((a): a is fc.Arbitrary<Broken> => a !== undefined);
  return arbs.length > 0 ? fc.oneof(...arbs) : null;
}

function rejectExpectation(b: Broken): Expectation {
  const because = `${b.c.field} ${JSON.stringify(b.invalid.value)} (${b.invalid.label}) breaks its constraint (section ${b.c.sections.join(', ')})`;
  return b.invalid.label.startsWith('too') || b.invalid.label.includes('int32') || b.invalid.label.startsWith('pattern')
    ? expectCheck(targeted.limitRejected, { because, sections: b.c.sections })
    : expectCheck(targeted.typeRejected, { because, sections: [...b.c.sections, '7'] });
}

export function propertyCases(profile: TargetProfile): CaseDef[] {
  const RUN = 'notifyAgentRun';
  const MERGE = 'mergeIswcMetadata';
  const BOTH: readonly Format[] = ['json', 'xml'];
  const others = profile.iswcs.slice(1);
  const out: CaseDef[] = [
    {
      id: 'property.run.valid',
      title: 'Property: every valid agent run gets 200 and a CsnNotification',
      operation: RUN,
      formats: BOTH,
      tags: ['@property'],
      checks: [targeted.success.id],
      requests: 100,
      async run(ctx) {
        const format = asFormat(ctx.format);
        await property(ctx, 'valid agent run', validAgentRunArb(options(format)), (body) => ({
          label: 'valid agent run',
          operation: RUN,
          request: bodyRequest(RUN, format, body),
          expect: [expectCheck(targeted.success, { because: 'the agent run is valid against section 2.1 (generated)' })],
        }));
      },
    },
    {
      id: 'property.run.invalid',
      title: 'Property: an agent run breaking one constraint gets 400',
      operation: RUN,
      formats: BOTH,
      tags: ['@property'],
      checks: [targeted.limitRejected.id, targeted.typeRejected.id],
      requests: 100,
      async run(ctx) {
        const format = asFormat(ctx.format);
        const broken = brokenField(RUN, profile, format, 'body');
        if (!broken) return;
        const arb = broken
          .map((b) => ({ b, body: bodyWith(validAgentRun(profile), b.c.field, b.invalid.value, profile) }))
          .filter(({ body }) => format === 'json' || xmlTwinKeeps('AgentRun', body, false));
        await property(ctx, 'agent run with one broken field', arb, ({ b, body }) => ({
          label: `agent run with ${b.c.field} broken`,
          operation: RUN,
          request: bodyRequest(RUN, format, body),
          expect: [rejectExpectation(b)],
        }));
      },
    },
    {
      id: 'property.merge.valid-unknown',
      title: 'Property: a valid merge request naming an unknown preferred ISWC is never refused with 400',
      operation: MERGE,
      formats: BOTH,
      tags: ['@property'],
      checks: [targeted.limitAccepted.id],
      requests: 100,
      async run(ctx) {
        const format = asFormat(ctx.format);
        await property(ctx, 'valid merge body, unknown preferred ISWC', validMergeBodyArb(options(format)), (body) => ({
          label: 'valid merge body',
          operation: MERGE,
          request: bodyRequest(MERGE, format, body, { query: queryFor(MERGE, { preferredIswc: unknownIswc(profile), agency: profile.agency }) }),
          expect: [expectCheck(targeted.limitAccepted, { because: 'every value is within its limits (generated); the preferred ISWC does not exist, so 404 is fine', mayNotExist: true })],
        }));
      },
    },
    {
      id: 'property.merge.invalid',
      title: 'Property: a merge request breaking one constraint gets 400, wherever the bad item sits',
      operation: MERGE,
      formats: BOTH,
      tags: ['@property'],
      checks: [targeted.limitRejected.id, targeted.typeRejected.id],
      // A faulty server that ignored the broken item could merge the profile's existing ISWCs.
      changesData: true,
      requests: 100,
      async run(ctx) {
        const format = asFormat(ctx.format);
        const body = brokenField(MERGE, profile, format, 'body');
        const query = brokenField(MERGE, profile, 'json', 'query');
        const arbs: Array<fc.Arbitrary<{ b: Broken; payload: Record<string, unknown>; agency: string }>> = [];
        if (body) {
          arbs.push(
            // The broken item among up to 6 existing ISWCs, often last: faults that check only a prefix show there.
            fc.tuple(body, fc.subarray(others, { maxLength: 6 }), fc.oneof(fc.constant(-1), fc.nat())).map(([b, valid, at]) => {
              let payload = bodyWith(emptyMerge(), b.c.field, b.invalid.value, profile);
              if (b.c.field === 'iswcs[]') {
                const items: unknown[] = [...valid];
                items.splice(at < 0 ? items.length : at % (items.length + 1), 0, b.invalid.value);
                payload = { ...payload, iswcs: items };
              }
              return { b, payload, agency: profile.agency };
            }),
          );
        }
        if (query) arbs.push(query.map((b) => ({ b, payload: emptyMerge(), agency: String(b.invalid.value) })));
        const arb = fc.oneof(...arbs).filter(({ payload }) => format === 'json' || (xmlRepresentable(payload) && xmlTwinKeeps('MergeRequest', payload, false)) || false);
        await property(ctx, 'merge with one broken field', arb, ({ b, payload, agency }) => ({
          label: `merge with ${b.c.field} broken`,
          operation: MERGE,
          request: bodyRequest(MERGE, format, payload, { query: queryFor(MERGE, { preferredIswc: existingIswc(profile), agency }) }),
          expect: [rejectExpectation(b)],
        }));
      },
    },
  ];
  for (const opId of ['deleteSubmission', 'demergeIswcMetadata'] as const) {
    const short = opId === 'deleteSubmission' ? 'delete' : 'demerge';
    const op = operation(opId);
    out.push(
      {
        id: `property.${short}.invalid`,
        title: `Property: ${op.summary.toLowerCase()} with one broken parameter gets 400`,
        operation: opId,
        formats: ['none'],
        tags: ['@property'],
        checks: [targeted.limitRejected.id, targeted.typeRejected.id],
        // Everything but the broken parameter names existing data: a reserved entry, never consumed.
        claims: [{ kind: opId === 'deleteSubmission' ? 'submissions' : 'demerges', count: 1, readOnly: true }],
        requests: 100,
        async run(ctx) {
          const broken = brokenField(opId, profile, 'json', 'query');
          if (!broken) return;
          const entry = (ctx.entries[opId === 'deleteSubmission' ? 'submissions' : 'demerges']?.[0] ?? {}) as Record<string, string | number>;
          await property(ctx, `${short} with one broken parameter`, broken, (b) => ({
            label: `${short} with ${b.c.field} broken`,
            operation: opId,
            request: queryRequest(opId, queryFor(opId, { ...baseQuery(opId, profile), ...entry, [b.c.field]: String(b.invalid.value) })),
            expect: [rejectExpectation(b)],
          }));
        },
      },
      {
        id: `property.${short}.valid-unknown`,
        title: `Property: ${op.summary.toLowerCase()} with valid parameters naming nothing is never refused with 400`,
        operation: opId,
        formats: ['none'],
        tags: ['@property'],
        checks: [targeted.limitAccepted.id],
        requests: 100,
        async run(ctx) {
          const limited = constraintsOf(opId).filter((c) => c.location === 'query' && isLimited(c));
          const arb = fc.record(Object.fromEntries(limited.map((c) => [c.field, validForConstraint(c, options('json'))])));
          await property(ctx, `${short} with valid generated parameters`, arb, (values) => ({
            label: `${short} with valid parameters`,
            operation: opId,
            request: queryRequest(opId, queryFor(opId, { ...baseQuery(opId, profile, unknownIswc(profile)), ...values })),
            expect: [expectCheck(targeted.limitAccepted, { because: 'every parameter is within its limits (generated); the preferred ISWC does not exist, so 404 is fine', mayNotExist: true })],
          }));
        },
      },
    );
  }
  out.push(
    {
      id: 'property.any-body',
      title: 'Property: any JSON body gets a documented status, never 5xx',
      operation: RUN,
      formats: ['json'],
      tags: ['@property', '@robustness'],
      checks: [],
      requests: 100,
      async run(ctx) {
        const arb = fc.tuple(fc.constantFrom(RUN, MERGE), fc.jsonValue({ maxDepth: 3 }));
        await property(ctx, 'arbitrary JSON body', arb, ([opId, value]) => ({
          label: `arbitrary JSON to ${opId}`,
          operation: opId,
          request: rawBodyRequest(opId, 'json', JSON.stringify(value) ?? 'null', opId === MERGE ? { query: queryFor(MERGE, { preferredIswc: unknownIswc(profile), agency: profile.agency }) } : {}),
          expect: [],
        }));
      },
    },
    {
      id: 'property.run.requiredness',
      title: 'Property: agent runs with fields missing, null or extra (observed; never 5xx)',
      operation: RUN,
      formats: BOTH,
      tags: ['@property', '@observed'],
      checks: [observed.observedRequiredness.id],
      requests: 100,
      async run(ctx) {
        const format = asFormat(ctx.format);
        const fields = Object.keys(validAgentRun(profile));
        const arb = fc.tuple(fc.subarray(fields), fc.subarray(fields), fc.boolean());
        await property(ctx, 'agent run with fields missing, null or extra', arb, ([missing, nulls, extra]) => {
          const body: Record<string, unknown> = { ...validAgentRun(profile) };
          for (const f of missing) delete body[f];
          for (const f of nulls) if (f in body) body[f] = null;
          if (extra) body.iswcConformanceExtra = 'x';
          return {
            label: 'agent run with fields missing, null or extra',
            operation: RUN,
            request: bodyRequest(RUN, format, body),
            expect: [expectCheck(observed.observedRequiredness, { because: `missing ${missing.join(',') || '-'}, null ${nulls.join(',') || '-'}, extra ${extra}` })],
          };
        });
      },
    },
  );
  return out;
}
