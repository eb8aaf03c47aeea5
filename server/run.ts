import type { IncomingMessage } from 'node:http';
import { encodeJson, encodeXml } from '../lib/codec/index.ts';
import type { Operation } from '../lib/contract/operations.ts';
import { resourceSchema } from '../lib/contract/constraints.ts';
import type { Context } from './context.ts';
import type { Reply } from './wire.ts';
import { header, negotiate, text } from './wire.ts';
import { decodeRequestBody } from './body.ts';
import { mediaFailure } from './media.ts';
import { refuseForeignAgency } from './auth.ts';

/** The fields of an agent run the server acts on (2.1); the others are stored as received. */
interface AgentRunBody {
  runId?: string;
  [field: string]: unknown;
}

/**
 * 4.1 Run notification. A valid AgentRun without `runId` (or with an empty one) starts a run and gets a
 * new GUID; one with a `runId` ends that run and is answered with the same runId, known or not (the
 * document lists no 404 here). 400 and 401 carry the document's texts.
 */
export async function handleRun(ctx: Context, req: IncomingMessage, op: Operation): Promise<Reply | null> {
  const f = ctx.faults;
  const spec = op.body;
  const documentedBad = op.texts[400];
  const responseResource = op.responseResource[op.successStatus];
  if (!spec || documentedBad === undefined || !responseResource) throw new Error(`${op.id}: the contract lacks its body, 400 text or 200 resource`);

  const badRequest = (): Reply => text(f.has('run-400-as-422') ? 422 : 400, f.has('run-bad-request-text') ? 'Invalid request' : documentedBad);

  const body = await decodeRequestBody(ctx, req, spec);
  if (!body.ok) return mediaFailure(ctx, body, badRequest);

  let value = f.has('wrong-type-accepted') ? ctx.limits.coerceIntegers(op.id, body.value) : body.value;
  if (ctx.alternative && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    // Alternative choices: null reads as missing; a field the document does not name is a bad request.
    const known = new Set(Object.keys(resourceSchema(spec.resource).properties ?? {}));
    if (Object.keys(value).some((k) => !known.has(k))) return badRequest();
    value = Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null));
  }
  if (ctx.limits.checkBody(op.id, spec.resource, value).length > 0) return badRequest();
  const foreign = refuseForeignAgency(ctx, op, (value as { agencyCode?: unknown }).agencyCode ?? ctx.keyAgency);
  if (foreign) return foreign;

  const run = value as AgentRunBody;
  let runId: string;
  if (run.runId === undefined || run.runId === '') {
    runId = ctx.state.startRun(run);
  } else {
    runId = run.runId;
    ctx.state.endRun(runId, run);
  }

  const status = f.has('run-success-201') ? 201 : op.successStatus;
  // Alternative choice: always XML, whatever the request format and Accept say.
  const format = ctx.alternative ? 'xml' : negotiate(header(req, 'accept'), body.format);
  if (f.has('run-response-no-run-id')) {
    return format === 'json' ? { status, body: { kind: 'json', text: '{}' } } : { status, body: { kind: 'xml', text: encodeXml(responseResource, {}) } };
  }
  if (format === 'json') {
    const answer = f.has('run-response-schema') ? { runId: ctx.state.runNumber(runId) } : { runId };
    return { status, body: { kind: 'json', text: encodeJson(answer) } };
  }
  const root = f.has('xml-wrong-root-response') ? spec.resource : responseResource;
  const answer = f.has('run-response-schema') ? { runId: [runId, runId] } : { runId };
  return { status, body: { kind: 'xml', text: encodeXml(root, answer) } };
}
