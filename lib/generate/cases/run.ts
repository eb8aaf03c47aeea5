import type { Format } from '../../contract/codec/index.ts';
import { MEDIA_TYPE } from '../../contract/codec/index.ts';
import { runIdOf } from '../../contract/answer.ts';
import { constraintsOf } from '../../contract/constraints.ts';
import { operation } from '../../contract/operations.ts';
import type { TargetProfile } from '../../contract/profile/types.ts';
import { servesFormat } from '../../contract/profile/types.ts';
import type { CaseDef, CasePart } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, rawBodyRequest } from '../requests.ts';
import { otherAgency, validAgentRun } from '../templates.ts';
import { FORMAT_SHAPES, KEY_REQUEST_SHAPES_PART, KEY_TEXT_JSON_PART, KEY_TEXT_XML_PART, keyOnShapes, keyProofs, nearMissParts, NEAR_MISS_TEXT, RUN_WRONG_KEY, sendNearMisses, SPELLED_AT_ONCE_SHORT, spelledAtOnce, TEXT_JSON_SHAPE, TEXT_XML_SHAPE, wrongKeyCaseText } from './key-proofs.ts';

const OP = 'notifyAgentRun';
const op = () => operation(OP);
const BOTH: readonly Format[] = ['json', 'xml'];

function asFormat(format: string): Format {
  return format === 'xml' ? 'xml' : 'json';
}

/** The part of the keyless case that sends a body naming no agency (issue 38, a shape of the run notification's body). */
const NO_AGENCY_PART = { id: 'without-agency', title: 'without the key, a body naming no agency: refused as well (a server checking the key against the agency a body names serves it)' } as const;

/** The parts of run.accept, in the order it sends them; its core is empty. */
const ACCEPT_PARTS = [
  { id: 'accept-formats', title: 'a valid run with no Accept, with Accept JSON and with Accept XML: which representation answers (observed)' },
  { id: 'accept-any', title: 'a valid run with Accept */*: the run opened' },
  { id: 'bad-request-own-format', title: 'a counter past its range asking for the format it is sent in: 400 "Bad Request"' },
] as const satisfies readonly CasePart[];

/** XML as an indenting writer produces it: whitespace between elements, never inside a text value. */
function indentXml(xml: string): string {
  return `${xml.replace(/></g, '>\n  <')}\n`;
}

export function runCases(profile: TargetProfile): CaseDef[] {
  const section = op().section;
  return [
    {
      id: 'run.start-and-end',
      title: `POST ${op().path}: a run starts (200 + runId) and ends with that runId (200; refused first without the key, with an empty, a wrong and a case-changed one); another run then starts with another runId and ends; a runId never issued (observed) @smoke`,
      operation: OP,
      formats: BOTH,
      tags: ['@smoke'],
      // The core starts a run and ends it, refused first without the key (spelled every other valid way at once):
      // three requests prove the key on the end of a run and on the spellings of a request, so a budget proves
      // them on every slice (issue 37); the rest are parts.
      parts: [
        { id: 'key', title: 'the end of the run refused also with an empty key, a wrong one (a near miss) and the key in another letter case' },
        { id: 'another-run', title: 'another run starts with another runId (Content-Type with charset) and ends' },
        { id: 'never-started', title: 'the end of a run never started (observed)' },
        { id: 'end-again', title: 'the run ended again, then ended naming another agency: refused, or answered that run\'s runId', shows: 'outcome/notifyAgentRun/end' },
      ],
      async run(ctx) {
        const format = asFormat(ctx.format);
        // Each run is ended before the next starts: a target may let an agency have one run open at a time.
        const start = await ctx.send({
          label: 'start run',
          operation: OP,
          request: bodyRequest(OP, format, validAgentRun(profile)),
          expect: [expectCheck('status.success', { because: `a valid agent run (section 2.1) gets 200 (section ${section})` })],
        });
        const started = runIdOf(start);
        // The notification that ends a run is an agent run too: the key is proven on it as on a start (5).
        const end = bodyRequest(OP, format, { ...validAgentRun(profile, 2), runId: started ?? `iswc-conformance-${Date.now()}` });
        const succeeds = `this end of the run just started gets 200 (sections 5.1, ${section})`;
        // Without the key, spelled every other way every reader takes alike at once (spelledAtOnce): refused as the
        // plain end is by every server that checks the key, served by a key filter that misses one of those
        // spellings; so the key phase of every budget proves them on the run notification at no request more.
        await keyProofs(ctx, OP, spelledAtOnce(end), `end run (${SPELLED_AT_ONCE_SHORT})`, succeeds, ['none']);
        await ctx.part('key', () => keyProofs(ctx, OP, end, 'end run', succeeds, ['empty', 'wrong', 'key-case']));
        await ctx.send({
          label: 'end run',
          operation: OP,
          request: end,
          expect: [
            expectCheck('status.success', { because: `a valid agent run carrying a runId (section 2.1) gets 200 (section ${section})` }),
            ...(started ? [expectCheck('outcome.run-end-same-id', { runId: started, because: 'the answer to the end of a run identifies that run (sections 2.2, 4.1)' })] : []),
            expectCheck('observed.run-id', { because: 'the runId answered when a run is ended' }),
          ],
        });
        // The end of a run names the run (2.2), however often it comes and whatever agency it names: whether
        // such a notification is taken is not shown (a refusal passes), but a 200 answers that run's runId.
        if (started) {
          await ctx.part('end-again', async () => {
            const agencyField = constraintsOf(OP).find((c) => c.location === 'body' && c.component === 'AgencyCode')?.field ?? 'agencyCode';
            for (const [label, agency] of [['end the run again', profile.agency], ['end the run naming another agency', otherAgency(profile.agency)]] as const) {
              await ctx.send({
                label,
                operation: OP,
                probe: 'open-point',
                request: bodyRequest(OP, format, { ...validAgentRun(profile, 2), [agencyField]: agency, runId: started }),
                expect: [
                  expectCheck('outcome.run-end-same-id', { runId: started, orRefused: true, because: `a notification carrying the runId ${started} names that run: whether it is taken again is not shown, but a 200 identifies the run it names (sections 2.2, 4.1)` }),
                  expectCheck('observed.run-id', { because: `the answer to ${label === 'end the run again' ? 'a run ended a second time' : 'the end of a run naming another agency than its start'}` }),
                ],
              });
            }
          });
        }
        if (started !== undefined) {
          await ctx.part('another-run', async () => {
            // Written as many clients write it: a charset parameter on Content-Type, and XML indented.
            const another = bodyRequest(OP, format, validAgentRun(profile), { contentType: `${MEDIA_TYPE[format]}; charset=utf-8` });
            const second = await ctx.send({
              label: `start another run (Content-Type with charset${format === 'xml' ? ', XML indented' : ''})`,
              operation: OP,
              request: format === 'xml' ? { ...another, body: indentXml(another.body as string) } : another,
              expect: [
                expectCheck('status.success', { because: `a valid agent run (section 2.1) gets 200 (section ${section})` }),
                expectCheck('outcome.run-ids-distinct', { otherRunId: started, because: 'the answer to a run start identifies that run (sections 2.2, 4.1)' }),
              ],
            });
            const secondId = runIdOf(second);
            if (secondId !== undefined) {
              await ctx.send({
                label: 'end the other run',
                operation: OP,
                request: bodyRequest(OP, format, { ...validAgentRun(profile, 1), runId: secondId }),
                expect: [
                  expectCheck('status.success', { because: `a valid agent run carrying the runId ${secondId} the start answered (section 2.1) gets 200 (section ${section})` }),
                  ...(secondId ? [expectCheck('outcome.run-end-same-id', { runId: secondId, because: 'the answer to the end of a run identifies that run (sections 2.2, 4.1)' })] : []),
                ],
              });
            }
          });
        }
        // A runId the server never issued: the document says nothing of it (production answers 404), so
        // which status answers is recorded; a 200 still carries a runId and a 400 still says "Bad Request".
        await ctx.part('never-started', async () => {
          await ctx.send({
            label: 'end a run never started',
            operation: OP,
            probe: 'open-point',
            request: bodyRequest(OP, format, { ...validAgentRun(profile, 3), runId: `iswc-conformance-never-started-${ctx.seed}` }),
            expect: [expectCheck('observed.run-id', { because: 'the answer to a runId the server never issued' })],
          });
        });
      },
    },
    {
      id: 'run.no-content-type',
      title: `POST ${op().path} without Content-Type (observed: read as JSON, sniffed, or refused as a media type the server does not read)`,
      operation: OP,
      formats: BOTH,
      tags: ['@smoke', '@observed'],
      async run(ctx) {
        // Content-Type is optional for the client; how a server reads a body without it is not said (RFC 9110
        // §8.3 lets it take the body for application/octet-stream and refuse it): only recorded, and a 5xx
        // is an http failure. A start that gets 200 opened a run, which the runner ends.
        const format = asFormat(ctx.format);
        await ctx.send({
          label: 'no Content-Type',
          operation: OP,
          probe: 'open-point',
          request: bodyRequest(OP, format, validAgentRun(profile), { contentType: null }),
          expect: [expectCheck('observed.content-type-default', { because: `a valid agent run in ${format.toUpperCase()} without Content-Type` })],
        });
      },
    },
    ...(['none', 'wrong'] as const).map(
      (auth): CaseDef => ({
        id: `run.auth.${auth}`,
        title: `POST ${op().path} with ${auth === 'none' ? 'no key, then an empty one, then no key and a body naming no agency, then no key in other shapes of the request' : wrongKeyCaseText()}: 401 "Not Authorized"`,
        operation: OP,
        formats: BOTH,
        tags: ['@smoke', '@auth'],
        ...(auth === 'wrong' ? { parts: nearMissParts() } : { parts: [NO_AGENCY_PART, KEY_REQUEST_SHAPES_PART, KEY_TEXT_XML_PART, KEY_TEXT_JSON_PART] }),
        async run(ctx) {
          // The wrong key is a near miss of the key: wrong to any server, and taken by one that cuts a longer key to its length.
          await ctx.send({
            label: auth === 'none' ? 'missing key' : `wrong key (the key with ${NEAR_MISS_TEXT[RUN_WRONG_KEY]})`,
            operation: OP,
            request: bodyRequest(OP, asFormat(ctx.format), validAgentRun(profile), { auth: auth === 'none' ? 'none' : RUN_WRONG_KEY }),
            expect: [expectCheck('auth.required', { because: auth === 'none' ? 'the subscription key is missing (section 5.1)' : `the subscription key with ${NEAR_MISS_TEXT[RUN_WRONG_KEY]} is a wrong key (section 5.1): only the key itself grants access` })],
          });
          if (auth === 'wrong') {
            await sendNearMisses(ctx, OP, bodyRequest(OP, asFormat(ctx.format), validAgentRun(profile)));
            return;
          }
          // A header without a value carries no key either (a truthiness test on the header would take it).
          await ctx.send({
            label: 'empty key',
            operation: OP,
            request: bodyRequest(OP, asFormat(ctx.format), validAgentRun(profile), { auth: 'empty' }),
            expect: [expectCheck('auth.required', { because: 'the subscription key header is empty (section 5.1)', emptyKey: true })],
          });
          // A shape of the body (issue 38): a server that checks the key against the agency a run names serves
          // a run that names none. Which fields are required is not shown (4), so 400 refuses it as well as 401.
          await ctx.part(NO_AGENCY_PART.id, async () => {
            const agencyField = constraintsOf(OP).find((c) => c.location === 'body' && c.component === 'AgencyCode')?.field;
            const withoutAgency = Object.fromEntries(Object.entries(validAgentRun(profile)).filter(([name]) => name !== agencyField));
            await ctx.send({
              label: 'missing key, a body without agencyCode',
              operation: OP,
              request: bodyRequest(OP, asFormat(ctx.format), withoutAgency, { auth: 'none' }),
              expect: [expectCheck('auth.required', { because: 'the subscription key is missing (section 5.1), whatever agency the body names or not', noAgency: true })],
            });
          });
          // Its other shapes (issue 38): a key check reached only by bodies labelled JSON, or by answers in JSON, serves the rest.
          const valid = bodyRequest(OP, asFormat(ctx.format), validAgentRun(profile));
          await ctx.part(KEY_REQUEST_SHAPES_PART.id, () => keyOnShapes(ctx, OP, valid, 'run notification', 'the run is opened (sections 5.1, 4.1)', 'auth.required', true, (s) => !FORMAT_SHAPES.includes(s.shape)));
          // The body's own shape in its format (text/xml, text/json), a part of its own.
          const [own, shape] = ctx.format === 'xml' ? [KEY_TEXT_XML_PART, TEXT_XML_SHAPE] : [KEY_TEXT_JSON_PART, TEXT_JSON_SHAPE];
          await ctx.part(own.id, () => keyOnShapes(ctx, OP, valid, 'run notification', 'the run is opened (sections 5.1, 4.1)', 'auth.required', true, (s) => s.shape === shape));
        },
      }),
    ),
    {
      id: 'run.body-not-object',
      title: `POST ${op().path} with a JSON body that is not an object: 400`,
      operation: OP,
      formats: ['json'],
      tags: ['@types'],
      async run(ctx) {
        // A JSON null body is left out: null is a point the readings leave open (observed below).
        for (const body of ['[]', '42', '"AgentRun"']) {
          await ctx.send({
            label: `body ${body}`,
            operation: OP,
            request: rawBodyRequest(OP, 'json', body),
            expect: [expectCheck('type.rejected', { because: `the body ${body} is not an agent run object (section 2.1)` })],
          });
        }
      },
    },
    {
      id: 'run.malformed',
      title: `POST ${op().path} with a body no parser accepts: 400 "Bad Request"`,
      operation: OP,
      formats: BOTH,
      tags: ['@syntax'],
      async run(ctx) {
        const format = asFormat(ctx.format);
        const valid = bodyRequest(OP, format, validAgentRun(profile)).body as string;
        const bodies =
          format === 'json'
            ? [
                { label: 'truncated JSON', body: valid.slice(0, Math.floor(valid.length / 2)) },
                { label: 'not JSON at all', body: `agencyCode=${profile.agency}&newRecordCount=1` },
                // Empty: no document of either format (a framework may refuse it before the handler; its 400 still says "Bad Request").
                { label: 'empty', body: '' },
              ]
            : [
                { label: 'unclosed element', body: valid.replace(/<\/AgentRun>$/, '') },
                { label: 'mismatched end tag', body: valid.replace('</agencyCode>', '</agentVersion>') },
                { label: 'empty', body: '' },
              ];
        for (const { label, body } of bodies) {
          await ctx.send({
            label,
            operation: OP,
            request: rawBodyRequest(OP, format, body),
            expect: [expectCheck('body.malformed', { because: `the body is ${label}, not an agent run (section 2.1)` })],
          });
        }
      },
    },
    {
      id: 'run.lenient-syntax',
      title: `POST ${op().path} with a body only a lenient parser accepts (observed)`,
      operation: OP,
      formats: BOTH,
      tags: ['@syntax', '@observed'],
      async run(ctx) {
        const format = asFormat(ctx.format);
        const valid = bodyRequest(OP, format, validAgentRun(profile)).body as string;
        // XML binders that do not check the root element's name (Jackson's XmlMapper) take another root.
        const bodies =
          format === 'json'
            ? [
                { label: 'trailing content', body: `${valid}}` },
                { label: 'single quotes', body: valid.replace(/"/g, "'") },
                { label: 'a comment', body: valid.replace('{', '{ /* iswc-conformance */ ') },
                { label: 'unquoted property names', body: valid.replace(/"(\w+)":/g, '$1:') },
              ]
            : [{ label: 'another root element', body: valid.replace(/AgentRun>/g, 'CsnNotification>').replace('<AgentRun>', '<CsnNotification>') }];
        for (const { label, body } of bodies) {
          await ctx.send({
            label,
            operation: OP,
            probe: 'open-point',
            request: rawBodyRequest(OP, format, body),
            expect: [expectCheck('observed.lenient-syntax', { because: `an agent run with ${label}: strict parsers refuse it, lenient ones accept it` })],
          });
        }
      },
    },
    {
      id: 'run.requiredness',
      title: `POST ${op().path} with missing, null and extra fields (observed)`,
      operation: OP,
      formats: BOTH,
      tags: ['@observed'],
      async run(ctx) {
        const format = asFormat(ctx.format);
        const nulls = Object.fromEntries(Object.keys(validAgentRun(profile)).map((k) => [k, null]));
        const variants: Array<{ label: string; body: unknown }> = [
          { label: 'all fields missing', body: {} },
          ...(format === 'json' ? [{ label: 'a null body', body: null }] : [{ label: 'only text in the root element', body: 'text' }]),
          { label: 'all fields null', body: nulls },
          { label: 'an extra field', body: { ...validAgentRun(profile), iswcConformanceExtra: 'x' } },
        ];
        // A Content-Type that names the other format than the body's (issue 3: syntax-level faults).
        const other = format === 'json' ? MEDIA_TYPE.xml : MEDIA_TYPE.json;
        await ctx.send({
          label: `a ${format.toUpperCase()} body labelled ${other}`,
          operation: OP,
          probe: 'open-point',
          request: bodyRequest(OP, format, validAgentRun(profile), { contentType: other }),
          expect: [expectCheck('observed.requiredness', { because: `a ${format.toUpperCase()} body with Content-Type ${other}` })],
        });
        for (const { label, body } of variants) {
          await ctx.send({
            label,
            operation: OP,
            probe: 'open-point',
            request: bodyRequest(OP, format, body),
            expect: [expectCheck('observed.requiredness', { because: `agent run with ${label}` })],
          });
        }
      },
    },
    {
      id: 'run.accept',
      title: `POST ${op().path} with each Accept header (observed: which representation answers); Accept */* opens the run; a bad request asking for its own format is still "Bad Request"`,
      operation: OP,
      formats: BOTH,
      tags: ['@observed'],
      // Each part a budget may take alone: what it gates (a */* refused, a 400 without its text) costs a
      // request, not the observed requests of every Accept beside it.
      parts: ACCEPT_PARTS,
      async run(ctx) {
        const format = asFormat(ctx.format);
        // A target that serves no XML (profile formats) is not asked for it.
        await ctx.part(ACCEPT_PARTS[0].id, async () => {
          for (const accept of [undefined, MEDIA_TYPE.json, ...(servesFormat(profile, 'xml') ? [MEDIA_TYPE.xml] : [])]) {
            await ctx.send({
              label: `Accept ${accept ?? 'absent'}`,
              operation: OP,
              request: bodyRequest(OP, format, validAgentRun(profile), accept ? { headers: { Accept: accept } } : {}),
              expect: [expectCheck('observed.response-format', { because: `${format.toUpperCase()} request, Accept ${accept ?? 'absent'}` })],
              extraStatuses: accept ? [406] : [],
            });
          }
        });
        // Accept */* (curl's default, RFC 9110 §12.5.1) accepts any representation: no server may refuse it
        // with 406, and the run is opened as without an Accept.
        await ctx.part(ACCEPT_PARTS[1].id, async () => {
          await ctx.send({
            label: 'Accept */*',
            operation: OP,
            request: bodyRequest(OP, format, validAgentRun(profile), { headers: { Accept: '*/*' } }),
            expect: [
              expectCheck('status.success', { because: `a valid agent run in ${format.toUpperCase()} with Accept */*, which accepts any representation (section 4.1; RFC 9110 §12.5.1)` }),
              expectCheck('observed.response-format', { because: `${format.toUpperCase()} request, Accept */*` }),
            ],
          });
        });
        // A bad request that asks for the format it is sent in still carries "Bad Request" (4.1), whatever the
        // shape of its JSON or XML (a framework's validation problem details in either). A counter past its
        // range: a server that authorizes the agency before it validates the body (another agency's code gets
        // 401 or 403 first) refuses it with 400 all the same.
        const counter = constraintsOf(OP).find((c) => c.location === 'body' && c.type === 'integer' && c.maximum !== undefined && !c.field.includes('.'));
        const maximum = counter?.maximum;
        if (!counter || maximum === undefined) throw new Error(`schemas/openapi.yaml: ${OP} has no bounded integer field`);
        await ctx.part(ACCEPT_PARTS[2].id, async () => {
          await ctx.send({
            label: `${counter.field} past its range, Accept ${MEDIA_TYPE[format]}`,
            operation: OP,
            request: bodyRequest(OP, format, { ...validAgentRun(profile), [counter.field]: maximum + 1 }, { headers: { Accept: MEDIA_TYPE[format] } }),
            expect: [expectCheck('limit.rejected', { because: `${counter.field} is ${maximum + 1}, past the int32 maximum ${maximum} (sections 2.1, 8)`, sections: [...counter.sections] })],
          });
        });
      },
    },
  ];
}
