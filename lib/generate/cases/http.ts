import type { Format } from '../../contract/codec/index.ts';
import { documentedPaths, methodsOnPath, operation } from '../../contract/operations.ts';
import type { TargetProfile } from '../../contract/profile/types.ts';
import type { CaseDef } from '../case.ts';
import { expectCheck } from '../expectations.ts';
import { bodyRequest, rawBodyRequest } from '../requests.ts';
import { existingIswc, queryFor, validAgentRun } from '../templates.ts';
import { textMemo } from '../../foundation/memo.ts';

const RUN = 'notifyAgentRun';
const MERGE = 'mergeIswcMetadata';
/** Size of the oversized body: larger than any sensible cap for these small resources. */
const OVERSIZED_BYTES = 2 * 1024 * 1024;
const ENTITY_MARKER = 'ISWC-CONFORMANCE-ENTITY-7f3a';

/**
 * The oversized body of a valid one: the same string each time it is asked for. Every reader of a body
 * (the planner's runId lookup, its digest, the client) first copies a newly concatenated 2 MiB string
 * into one piece, about 7 ms each time; a planning builds this body dozens of times, and the suite's
 * plannings spent some 20 s of CPU on those copies. Its keys (the valid bodies, a few hundred characters
 * each) are held to 2,048 characters: a handful of 2 MiB bodies at most, one per agency and format.
 */
const oversizedBody = textMemo<string>(2_048);

/** `http`-level cases: requests outside the document, judged against RFC 9110 and safe handling. */
export function httpCases(profile: TargetProfile): CaseDef[] {
  // PATCH first: services often offer PUT (production's Agency API updates a submission with PUT
  // /submission, outside the document), rarely PATCH, so the probe finds a method the server really lacks.
  const unusedMethod = (path: string) => ['PATCH', 'PUT', 'GET', 'POST', 'DELETE'].find((m) => !methodsOnPath(path).includes(m as never)) ?? 'PATCH';
  return [
    ...documentedPaths().map(
      (path): CaseDef => ({
        id: `http.method-not-allowed.${path}`,
        title: `${unusedMethod(path)} ${path}: 405 with Allow`,
        operation: null,
        formats: ['none'],
        tags: ['@http'],
        async run(ctx) {
          await ctx.send({
            label: `${unusedMethod(path)} ${path}`,
            operation: null,
            request: { method: unusedMethod(path), path, auth: 'key' },
            expect: [expectCheck('http.method-not-allowed', { path, because: `the document defines only ${methodsOnPath(path).join(', ')} on ${path}` })],
          });
        },
      }),
    ),
    {
      id: 'http.unknown-path',
      title: 'GET an unknown path: 404',
      operation: null,
      formats: ['none'],
      tags: ['@http'],
      async run(ctx) {
        const path = '/iswc-conformance/no-such-resource';
        await ctx.send({ label: `GET ${path}`, operation: null, probe: 'outside-document', request: { method: 'GET', path, auth: 'key' }, expect: [expectCheck('http.unknown-path', { because: `the document defines no ${path}` })] });
      },
    },
    {
      id: 'http.unsupported-media-type',
      title: 'A CSV body: 415 or 400',
      operation: RUN,
      formats: ['none'],
      tags: ['@http'],
      async run(ctx) {
        const csv = 'agencyCode,runId\n128,x\n';
        await ctx.send({
          label: 'run notification as text/csv',
          operation: RUN,
          probe: 'outside-document',
          request: rawBodyRequest(RUN, 'json', csv, { contentType: 'text/csv' }),
          expect: [expectCheck('http.unsupported-media-type', { because: 'the document takes JSON or XML bodies only (section 4.1)' })],
        });
        await ctx.send({
          label: 'merge as text/csv',
          operation: MERGE,
          probe: 'outside-document',
          request: rawBodyRequest(MERGE, 'json', csv, { contentType: 'text/csv', query: queryFor(MERGE, { preferredIswc: existingIswc(profile), agency: profile.agency }) }),
          expect: [expectCheck('http.unsupported-media-type', { because: 'the document takes JSON or XML bodies only (section 4.2)' })],
        });
      },
    },
    {
      id: 'http.payload-too-large',
      title: `A ${OVERSIZED_BYTES / 1024 / 1024} MiB run notification: 413 or 400, never 5xx`,
      operation: RUN,
      formats: ['json', 'xml'],
      tags: ['@http'],
      async run(ctx) {
        const format: Format = ctx.format === 'xml' ? 'xml' : 'json';
        // Valid body padded with insignificant whitespace, so a server that takes it stores nothing odd.
        const valid = bodyRequest(RUN, format, validAgentRun(profile)).body as string;
        const body = oversizedBody(valid, () => `${valid}${' '.repeat(OVERSIZED_BYTES)}`);
        await ctx.send({
          label: `${OVERSIZED_BYTES} bytes`,
          operation: RUN,
          probe: 'outside-document',
          connectionMayClose: true,
          request: rawBodyRequest(RUN, format, body),
          expect: [expectCheck('http.payload-too-large', { because: `the body is ${OVERSIZED_BYTES} bytes of which all but a few hundred are padding` })],
        });
      },
    },
    {
      id: 'http.xml-entities',
      title: 'XML with a DOCTYPE declaring an entity: refused or not expanded',
      operation: RUN,
      formats: ['xml'],
      tags: ['@http', '@security'],
      async run(ctx) {
        const root = operation(RUN).body?.xmlRoot ?? 'AgentRun';
        const valid = bodyRequest(RUN, 'xml', { ...validAgentRun(profile), runId: 'RUNID' }).body as string;
        const body = valid
          .replace('<?xml version="1.0" encoding="UTF-8"?>', `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE ${root} [<!ENTITY m "${ENTITY_MARKER}">]>`)
          .replace('RUNID', '&m;');
        // A DOCTYPE is a point the document leaves open: only http and observed checks judge these answers.
        await ctx.send({
          label: 'DOCTYPE with an internal entity in runId',
          operation: RUN,
          probe: 'open-point',
          request: rawBodyRequest(RUN, 'xml', body),
          expect: [expectCheck('http.xml-entities', { marker: ENTITY_MARKER, because: 'entities must never be expanded (XXE); the document names no DOCTYPE' })],
        });
        // Differential, since nothing is echoed: the entity stands for an invalid agencyCode (4 characters),
        // then for the valid one. A server that expands it refuses the first and takes the second; one that
        // drops the reference, keeps it as text or refuses the DOCTYPE answers both alike.
        const agency = bodyRequest(RUN, 'xml', validAgentRun(profile)).body as string;
        const withEntity = (value: string): string =>
          agency
            .replace('<?xml version="1.0" encoding="UTF-8"?>', `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE ${root} [<!ENTITY ac "${value}">]>`)
            .replace(`<agencyCode>${profile.agency}</agencyCode>`, '<agencyCode>&ac;</agencyCode>');
        const invalid = await ctx.send({
          label: 'DOCTYPE with an internal entity standing for an invalid agencyCode',
          operation: RUN,
          probe: 'open-point',
          request: rawBodyRequest(RUN, 'xml', withEntity(`${profile.agency}X`)),
          expect: [expectCheck('http.xml-entities', { marker: ENTITY_MARKER, because: 'entities must never be expanded (XXE); the document names no DOCTYPE' })],
        });
        const invalidStatus = invalid.response?.status;
        await ctx.send({
          label: 'DOCTYPE with an internal entity as the agencyCode',
          operation: RUN,
          probe: 'open-point',
          request: rawBodyRequest(RUN, 'xml', withEntity(profile.agency)),
          expect: [
            expectCheck('http.xml-entities', {
              marker: ENTITY_MARKER,
              ...(invalidStatus !== undefined ? { invalidExpansionStatus: invalidStatus } : {}),
              because: `the agencyCode is ${profile.agency} only if the entity is expanded; standing for ${profile.agency}X it was answered ${invalidStatus ?? 'nothing'}`,
            }),
          ],
        });
      },
    },
  ];
}
