import fc from 'fast-check';
import { lengthsOf, runIdOf } from '../../contract/answer.ts';
import type { Format } from '../../contract/codec/index.ts';
import { xmlRepresentable } from '../../contract/codec/xml.ts';
import type { FieldConstraint } from '../../contract/constraints.ts';
import { constraintsOf, isLimited } from '../../contract/constraints.ts';
import type { OperationId } from '../../contract/operations.ts';
import { operation } from '../../contract/operations.ts';
import type { GenOptions, InvalidValue } from '../generators/values.ts';
import { edgeMergeBodyArb, exoticForConstraint, invalidForConstraint, validAgentRunArb, validForConstraint, validMergeBodyArb } from '../generators/values.ts';
import type { Exchange } from '../../contract/exchange.ts';
import type { MergeEntry, TargetProfile } from '../../contract/profile/types.ts';
import type { CaseContext, CaseDef, Expectation, Probe, Step } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, queryRequest, rawBodyRequest } from '../requests.ts';
import { baseQuery, bodyWith, emptyMerge, existingIswc, queryFor, sampleWorkCode, unknownIswc, validAgentRun, validExample, validWork } from '../templates.ts';
import { mergeItem, readAsText, xmlTwinKeeps } from './limits.ts';

/**
 * Properties: fast-check generates inputs from the schemas, each is sent and judged by every check;
 * a failure shrinks to a minimal input, which is recorded with the seed and path that replay it
 * (ISWC_SEED); a passing property records its last input, with its path too. ISWC_RUNS sets the runs
 * per property. When one failure is replayed (ctx.replay), only the input at its path is sent.
 */
export async function property<T>(ctx: CaseContext, label: string, arb: fc.Arbitrary<T>, build: (value: T) => Step | Promise<Step>): Promise<void> {
  if (ctx.replay) {
    await replayInput(ctx, label, arb, build);
    return;
  }
  let last: Probe | undefined;
  let lastFailing: Probe | undefined;
  const result = await fc.check(
    fc.asyncProperty(arb, async (value) => {
      const probe = await ctx.probe(await build(value));
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
    // The label feeds the failure's id: counts and values that change with the seed go to `generated`.
    const step = { ...lastFailing.step, label: `${label}: minimal failing input` };
    ctx.record(step, lastFailing.exchange, { seed: result.seed, ...(result.counterexamplePath ? { path: result.counterexamplePath } : {}), generated: `minimal failing input after ${result.numRuns} runs and ${result.numShrinks} shrinks` });
  } else if (last) {
    // The last of numRuns inputs: its path is its index.
    ctx.record({ ...last.step, label: `${label}: runs passed (last input shown)` }, last.exchange, { seed: result.seed, path: String(result.numRuns - 1), generated: `${result.numRuns} runs passed` });
  }
  if (result.failed && !lastFailing) throw new Error(`property ${label} failed without a failing answer: ${fc.stringify(result.errorInstance)}`);
}

/**
 * Sends the one input of a property at the replayed path (fast-check walks seed and path to it, shrinks
 * included) and records it; nothing for a replay of the case's fixed steps. Later inputs fast-check
 * offers, when the replayed one passes now, are not sent.
 */
async function replayInput<T>(ctx: CaseContext, label: string, arb: fc.Arbitrary<T>, build: (value: T) => Step | Promise<Step>): Promise<void> {
  const replay = ctx.replay;
  if (replay?.kind !== 'generated') return;
  let sent: Probe | undefined;
  await fc.check(
    fc.asyncProperty(arb, async (value) => {
      if (sent) return true;
      sent = await ctx.probe(await build(value));
      return sent.failures.length === 0;
    }),
    { seed: replay.seed, path: replay.path, numRuns: 1, endOnFailure: true },
  );
  if (!sent) throw new Error(`property ${label}: fast-check offered no input at path ${replay.path} (seed ${replay.seed})`);
  ctx.record({ ...sent.step, label: `${label}: input replayed` }, sent.exchange, { seed: replay.seed, path: replay.path, generated: `input replayed (seed ${replay.seed}, path ${replay.path})` });
}

/** The status a nominal request got, for differential acceptance (null when it got no answer). */
function statusOfNominal(exchange: Exchange): number | null {
  return exchange.error && exchange.error.code !== 'THROTTLED' ? null : (exchange.response?.status ?? null);
}

const asFormat = (f: string): Format => (f === 'xml' ? 'xml' : 'json');
const options = (format: Format): GenOptions => ({ xml: format === 'xml', maxFree: 12 });
const exotic = (format: Format): GenOptions => ({ ...options(format), exotic: true });

interface Broken {
  c: FieldConstraint;
  invalid: InvalidValue;
}

/** One field of the operation broken, with an invalid value of that field's own generator. */
function brokenField(opId: OperationId, profile: TargetProfile, location: 'body' | 'query'): fc.Arbitrary<Broken> | null {
  const arbs = constraintsOf(opId)
    .filter((c) => c.location === location && (isLimited(c) || c.location === 'body' || c.type === 'integer'))
    .map((c) => invalidForConstraint(c, validExample(c, profile))?.map((invalid) => ({ c, invalid })))
    .filter((a): a is fc.Arbitrary<Broken> => a !== undefined);
  return arbs.length > 0 ? fc.oneof(...arbs) : null;
}

/** Merge entries property.merge.invalid names the valid ISWCs of, at most: each brings its preferred ISWC and its own. */
export const INVALID_MERGE_CLAIMS = 4;

/** In XML an array or object for a scalar is an element where text is expected: a shape question, only observed. */
function elementShaped(b: Broken): boolean {
  return b.invalid.label === 'array' || b.invalid.label === 'object';
}

/**
 * A body value every reading refuses: 400 (a limit, or a type); a query value: refused (400 or 404).
 * `namesUnknownData`: the body also names agency works the target does not have, so 404 fits too. An item
 * of a merge body past its limits names nothing that exists either: a server that looks items up before it
 * validates them answers 404, and so does one that reads a wrong type as text first (`readAsText`).
 */
function rejectExpectation(b: Broken, namesUnknownData = false, format: Format = 'json'): Expectation {
  const because = `${b.c.field} ${JSON.stringify(b.invalid.value)} (${b.invalid.label}) breaks its constraint (section ${b.c.sections.join(', ')})${namesUnknownData ? ', among agency works the target does not have' : ''}`;
  if (b.c.location === 'query') return expectCheck('query.refused', { because, sections: b.c.sections });
  const limit = b.invalid.label.startsWith('too') || b.invalid.label.includes('int32') || b.invalid.label.startsWith('pattern');
  const extra = namesUnknownData || (limit ? mergeItem(b.c) : readAsText(b.c, b.invalid.value, format)) ? { notFoundFits: true } : {};
  return limit ? expectCheck('limit.rejected', { because, sections: b.c.sections, ...extra }) : expectCheck('type.rejected', { because, sections: [...b.c.sections, '7'], ...extra });
}

/** What an exotic value is, recorded with the answer: the value and its length under each reading. */
function exoticFacts(field: string, value: unknown): Record<string, unknown> {
  return { field, value, ...(typeof value === 'string' ? { lengths: lengthsOf(value) } : {}) };
}

export function propertyCases(profile: TargetProfile): CaseDef[] {
  const RUN = 'notifyAgentRun';
  const MERGE = 'mergeIswcMetadata';
  const BOTH: readonly Format[] = ['json', 'xml'];
  const nominalMerge = { ...emptyMerge(), iswcs: [unknownIswc(profile, 1)], agencyWorks: [{ agencyCode: profile.agency, agencyWorkCode: sampleWorkCode(profile) }] };
  const out: CaseDef[] = [
    {
      id: 'property.run.valid',
      title: 'Property: every realistic valid agent run is answered like a nominal one (200 and a CsnNotification)',
      operation: RUN,
      formats: BOTH,
      tags: ['@property'],
      async run(ctx) {
        const format = asFormat(ctx.format);
        // Counters are sent where they count: each run, and the nominal one, ends a run started for it (a
        // server may refuse counts on a run that starts, or a second end of one run: no rule is stated, 2.1, 3).
        const freshRun = async (): Promise<string> => {
          const start = await ctx.probe({ label: 'start a run to end', operation: RUN, request: bodyRequest(RUN, format, validAgentRun(profile)), expect: [] });
          return runIdOf(start.exchange) ?? `iswc-conformance-unstarted-${ctx.seed}`;
        };
        const nominal = await ctx.send({ label: 'nominal agent run', operation: RUN, request: bodyRequest(RUN, format, { ...validAgentRun(profile, 1), runId: await freshRun() }), expect: [] });
        const nominalStatus = statusOfNominal(nominal);
        await property(ctx, 'valid agent run', validAgentRunArb(options(format), profile.agency), async (body) => ({
          label: 'valid agent run, ending a run',
          operation: RUN,
          request: bodyRequest(RUN, format, { ...body, runId: await freshRun() }),
          expect: [expectCheck('limit.accepted', { because: `every value is within its limits (generated, section 2.1); the nominal agent run got ${nominalStatus ?? 'no answer'}`, nominalStatus, success: 200 })],
        }));
      },
    },
    {
      id: 'property.run.invalid',
      title: 'Property: an agent run breaking one constraint, as every reading counts it, gets 400',
      operation: RUN,
      formats: BOTH,
      tags: ['@property'],
      async run(ctx) {
        const format = asFormat(ctx.format);
        const broken = brokenField(RUN, profile, 'body');
        if (!broken) return;
        const arb = broken
          .map((b) => ({ b, body: bodyWith(validAgentRun(profile), b.c.field, b.invalid.value, profile) }))
          .filter(({ b, body }) => format === 'json' || (!elementShaped(b) && xmlTwinKeeps('AgentRun', body, false)));
        await property(ctx, 'agent run with one broken field', arb, ({ b, body }) => ({
          label: `agent run with ${b.c.field} broken`,
          operation: RUN,
          request: bodyRequest(RUN, format, body),
          expect: [rejectExpectation(b)],
        }));
      },
    },
    {
      id: 'property.run.exotic',
      title: 'Property: agent runs with exotic text and extreme counters (observed; never 5xx)',
      operation: RUN,
      formats: BOTH,
      tags: ['@property', '@observed'],
      async run(ctx) {
        const format = asFormat(ctx.format);
        const fields = constraintsOf(RUN).filter((c) => c.location === 'body');
        const arb = fc.oneof(...fields.map((c) => exoticForConstraint(c, exotic(format)).map((v) => ({ c, v }))));
        await property(ctx, 'agent run with an exotic value', arb, ({ c, v }) => ({
          label: `agent run with ${v.label} in ${c.field}`,
          operation: RUN,
          probe: 'open-point',
          request: bodyRequest(RUN, format, bodyWith(validAgentRun(profile), c.field, v.value, profile)),
          expect: [
            typeof v.value === 'string'
              ? expectCheck('observed.characters', { because: `${c.field} ${v.label}: the readings of "characters" may count it differently`, facts: exoticFacts(c.field, v.value) })
              : expectCheck('observed.edge-values', { because: `${c.field} ${v.label}: no realistic counter`, facts: exoticFacts(c.field, v.value) }),
          ],
        }));
      },
    },
    {
      id: 'property.merge.valid-unknown',
      title: 'Property: a realistic valid merge request naming an unknown preferred ISWC is answered like a nominal one',
      operation: MERGE,
      formats: BOTH,
      tags: ['@property'],
      async run(ctx) {
        const format = asFormat(ctx.format);
        const query = queryFor(MERGE, { preferredIswc: unknownIswc(profile), agency: profile.agency });
        const nominal = await ctx.send({ label: 'nominal merge into an unknown preferred ISWC', operation: MERGE, request: bodyRequest(MERGE, format, nominalMerge, { query }), expect: [] });
        const nominalStatus = statusOfNominal(nominal);
        // ISWCs that do not exist (the profile's), agency works that do not exist: the same data as the nominal.
        // With one unknown ISWC only, the body names the preferred one itself, as the nominal merge does.
        const arb = validMergeBodyArb(options(format), { iswcs: profile.unknownIswcs.length > 1 ? profile.unknownIswcs.slice(1) : profile.unknownIswcs, agency: profile.agency });
        await property(ctx, 'valid merge body, unknown preferred ISWC', arb, (body) => ({
          label: 'valid merge body',
          operation: MERGE,
          request: bodyRequest(MERGE, format, body, { query }),
          expect: [expectCheck('limit.accepted', { because: `every value is within its limits (generated); the same merge with nominal values got ${nominalStatus ?? 'no answer'}`, nominalStatus })],
        }));
      },
    },
    {
      id: 'property.merge.invalid',
      title: 'Property: a merge request breaking one constraint of its body gets 400, wherever the bad item sits among valid ones; first an unknown ISWC among disposable ones merged nowhere is refused, last one of them twice is recorded',
      operation: MERGE,
      formats: BOTH,
      tags: ['@property', '@destructive'],
      // The valid ISWCs next to the broken item are disposable entries' (their preferred ISWCs and theirs): a
      // server that merges item by item keeps those before the item it cannot take (section 1 shows no effect
      // of a refused request), and a faulty one that ignores the item merges them all. Nothing demands their
      // state afterwards; the profile's iswcs are never named, since later cases need them as they are.
      claims: [{ kind: 'merges', count: INVALID_MERGE_CLAIMS, atLeast: 0 }],
      // The two fixed steps name the ISWCs of a claimed entry.
      needs: [{ entry: 'merges', index: 0, list: 'iswcs', atLeast: 1, checks: ['status.item-refused', 'observed.edge-values'] }],
      async run(ctx) {
        const format = asFormat(ctx.format);
        const entries = (ctx.entries.merges ?? []) as MergeEntry[];
        const [first, ...rest] = entries;
        const preferred = first?.preferredIswc ?? existingIswc(profile);
        const disposable = [...(first?.iswcs ?? []), ...rest.flatMap((e) => [e.preferredIswc, ...(e.iswcs ?? [])])];
        const query = { query: queryFor(MERGE, { preferredIswc: preferred, agency: profile.agency }) };
        // First, an ISWC that does not exist beside the disposable ISWCs, merged nowhere yet: a server that
        // refuses to merge an ISWC with a parent, or again, lets this request reach the unknown one.
        const unknown = unknownIswc(profile, 1);
        // Three of them at most: a server may cap the items of a merge (choice merge-max-items, 10), and a body
        // it refuses for its size would hide what becomes of the unknown ISWC.
        const beside = disposable.slice(0, 3);
        if (first && beside.length > 0) {
          await ctx.send({
            label: 'an unknown ISWC beside disposable ISWCs merged nowhere',
            operation: MERGE,
            request: bodyRequest(MERGE, format, { ...emptyMerge(), iswcs: [unknown, ...beside] }, query),
            expect: [expectCheck('status.item-refused', { because: `${unknown} does not exist in the target (profile unknownIswcs); ${beside.join(', ')} are disposable entries' ISWCs merged nowhere (section 4.2)`, sections: ['4.2'] })],
          });
        }
        // Their agency works (the profile's agency's), merged nowhere yet: a broken work among works the
        // target has reaches a server that refuses works it does not have, or works merged already.
        const knownWorks = [...(first?.agencyWorks ?? []), ...rest.flatMap((e) => e.agencyWorks ?? [])].filter((w) => w.agencyCode === profile.agency);
        const body = brokenField(MERGE, profile, 'body');
        if (!body) return;
        const arb = fc
          // The broken item among 3 to 6 valid ones (as many as there are), often last: faults that check only a prefix show there.
          .tuple(body, fc.subarray(disposable, { minLength: Math.min(3, disposable.length), maxLength: Math.min(6, disposable.length) }), fc.oneof(fc.constant(-1), fc.nat()))
          .map(([b, valid, at]) => {
            let payload = bodyWith(emptyMerge(), b.c.field, b.invalid.value, profile);
            const place = <T,>(items: T[], item: T): T[] => {
              const out = [...items];
              out.splice(at < 0 ? out.length : at % (out.length + 1), 0, item);
              return out;
            };
            if (b.c.field === 'iswcs[]') payload = { ...payload, iswcs: place([...valid], b.invalid.value) };
            // A broken agency work among valid ones too: faults that check only the first show there.
            if (b.c.field.startsWith('agencyWorks[]')) {
              const broken = (payload.agencyWorks as unknown[])[0];
              const neighbours = knownWorks.length > 0 ? knownWorks.slice(0, Math.max(1, valid.length)) : valid.map((_iswc, i) => ({ ...validWork(profile), agencyWorkCode: `${sampleWorkCode(profile).slice(0, 18)}${i}` }));
              payload = { ...payload, agencyWorks: place<unknown>(neighbours, broken) };
            }
            const unknownWorks = b.c.field.startsWith('agencyWorks[]') && knownWorks.length === 0 && valid.length > 0;
            return { b, payload, unknownWorks };
          })
          .filter(({ b, payload }) => format === 'json' || (!elementShaped(b) && xmlRepresentable(payload) && xmlTwinKeeps('MergeRequest', payload, false)));
        await property(ctx, 'merge with one broken field', arb, ({ b, payload, unknownWorks }) => ({
          label: `merge with ${b.c.field} broken`,
          operation: MERGE,
          request: bodyRequest(MERGE, format, payload, query),
          expect: [rejectExpectation(b, unknownWorks, format)],
        }));
        // Last, one of them twice, into a preferred ISWC that exists: whether a merge may repeat an ISWC is not
        // said, so the answer is recorded; a 5xx is still a failure.
        const [item] = disposable;
        if (first && item !== undefined) {
          await ctx.send({
            label: 'one disposable ISWC twice',
            operation: MERGE,
            probe: 'open-point',
            request: bodyRequest(MERGE, format, { ...emptyMerge(), iswcs: [item, item] }, query),
            expect: [expectCheck('observed.edge-values', { because: `${item}, a disposable entry's ISWC, twice into ${preferred}, which exists`, facts: { body: { iswcs: [item, item] } } })],
          });
        }
      },
    },
    {
      id: 'property.merge.edge',
      title: 'Property: merge requests with duplicates, empty arrays and exotic text (observed; never 5xx)',
      operation: MERGE,
      formats: BOTH,
      tags: ['@property', '@observed'],
      async run(ctx) {
        const format = asFormat(ctx.format);
        const query = queryFor(MERGE, { preferredIswc: unknownIswc(profile), agency: profile.agency });
        // Duplicates of ISWCs that exist too: a server that looks each item up before anything else finds
        // them, and only then meets the duplicate (generated ISWCs are simply not found). Into an ISWC that
        // does not exist, nothing is merged.
        const edge = edgeMergeBodyArb(options(format));
        const others = profile.iswcs.slice(1);
        const arb = others.length > 0 ? fc.oneof(edge, fc.subarray(others, { minLength: 1, maxLength: Math.min(3, others.length) }).map((items) => ({ ...emptyMerge(), iswcs: [...items, items[0]] }))) : edge;
        await property(ctx, 'merge body with edge values', arb, (body) => ({
          label: 'merge body with edge values',
          operation: MERGE,
          probe: 'open-point',
          request: bodyRequest(MERGE, format, body, { query }),
          expect: [expectCheck('observed.edge-values', { because: 'duplicates (of generated ISWCs or of ISWCs that exist), empty arrays or exotic text, into an ISWC that does not exist', facts: { body } })],
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
        title: `Property: ${op.summary.toLowerCase()} with one broken parameter is refused`,
        operation: opId,
        formats: ['none'],
        tags: ['@property'],
        // Everything but the broken parameter names existing data: a reserved entry, never consumed.
        claims: [{ kind: opId === 'deleteSubmission' ? 'submissions' : 'demerges', count: 1, readOnly: true }],
        async run(ctx) {
          const broken = brokenField(opId, profile, 'query');
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
        title: `Property: ${op.summary.toLowerCase()} with a realistic work code, naming nothing, is answered like a nominal one`,
        operation: opId,
        formats: ['none'],
        tags: ['@property'],
        async run(ctx) {
          const base = baseQuery(opId, profile, unknownIswc(profile));
          const nominal = await ctx.send({ label: `nominal ${short} naming nothing`, operation: opId, request: queryRequest(opId, queryFor(opId, base)), expect: [] });
          const nominalStatus = statusOfNominal(nominal);
          // The work code is what varies: the agency is the profile's and the source database the nominal one,
          // which a server may check against the ones it knows.
          const workcode = constraintsOf(opId).find((c) => c.location === 'query' && c.field === 'workcode');
          if (!workcode) return;
          await property(ctx, `${short} with a generated work code`, validForConstraint(workcode, options('json')), (value) => ({
            label: `${short} with a valid work code`,
            operation: opId,
            request: queryRequest(opId, queryFor(opId, { ...base, workcode: value })),
            expect: [expectCheck('limit.accepted', { because: `the work code is within its limit (generated); the same ${short} with the nominal one got ${nominalStatus ?? 'no answer'}`, nominalStatus })],
          }));
        },
      },
    );
  }
  out.push(
    {
      id: 'property.any-body',
      title: 'Property: any JSON body gets an answer, never 5xx (observed)',
      operation: RUN,
      formats: ['json'],
      tags: ['@property', '@robustness'],
      async run(ctx) {
        const arb = fc.tuple(fc.constantFrom(RUN, MERGE), fc.jsonValue({ maxDepth: 3 }));
        await property(ctx, 'arbitrary JSON body', arb, ([opId, value]) => ({
          label: `arbitrary JSON to ${opId}`,
          operation: opId,
          // A random body probes points the document leaves open (nulls, extra fields, unknown runIds).
          probe: 'open-point',
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
            probe: 'open-point',
            request: bodyRequest(RUN, format, body),
            expect: [expectCheck('observed.requiredness', { because: `missing ${missing.join(',') || '-'}, null ${nulls.join(',') || '-'}, extra ${extra}` })],
          };
        });
      },
    },
  );
  return out;
}
