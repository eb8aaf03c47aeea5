import { randomUUID } from 'node:crypto';
import { decodeXml } from '../contract/codec/xml.ts';
import { escapeXml } from '../contract/codec/xml.ts';
import { resourceSchema } from '../contract/constraints.ts';
import type { RequestSpec } from '../contract/exchange.ts';
import { operation } from '../contract/operations.ts';
import type { OperationId } from '../contract/operations.ts';
import type { RunIds } from '../contract/profile/types.ts';
import { textMemo } from '../foundation/memo.ts';

/**
 * Who names an agent run is not shown (2.1 states no rule for runId). The cases write a start as production
 * takes it, without runId; a target profile that says `runIds: "client"` gets a runId of the harness's own
 * written into every agent run that has none, just before it is sent. The rest of the body is kept byte for
 * byte (padding, indentation), so a case still sends what it means to. A body that does not decode goes as
 * it is.
 */

const RUN = 'notifyAgentRun';
const RUN_ID = 'runId';

/** A runId of the harness's choosing: tagged, and new for every start. */
export function clientRunId(): string {
  return `iswc-conformance-${randomUUID()}`;
}

/** What a request body says of its runId: a string, undefined when it has none, null when a body that names runId does not read as an agent run. */
export type CarriedRunId = string | undefined | null;

/**
 * The runId an agent run request carries, read from its body as sent. A body in which the name runId
 * appears nowhere (nor any JSON escape that could spell it) carries none, and is not parsed: the planner
 * asks this of every agent run it counts, and parsing them was a third of a planning's time.
 */
export function carriedRunId(opId: OperationId | null, request: RequestSpec): CarriedRunId {
  if (opId !== RUN || typeof request.body !== 'string') return null;
  if (!request.body.includes(RUN_ID) && !request.body.includes('\\u')) return undefined;
  const value = decodedRun(request.body);
  if (value === undefined) return null;
  const runId = value[RUN_ID];
  return typeof runId === 'string' ? runId : runId === undefined || runId === null ? undefined : null;
}

/** The request with a runId of the harness's written in, where the profile says clients name their runs. */
export function withRunId(opId: OperationId | null, request: RequestSpec, runIds: RunIds): RequestSpec {
  if (runIds === 'server' || opId !== RUN || typeof request.body !== 'string') return request;
  const value = decodedRun(request.body);
  if (value === undefined || (value[RUN_ID] !== undefined && value[RUN_ID] !== null)) return request;
  const runId = clientRunId();
  const body = request.body.trimStart().startsWith('<') ? intoXml(request.body, runId, RUN_ID in value) : intoJson(request.body, runId, RUN_ID in value);
  return body === undefined ? request : { ...request, body };
}

/** Agent runs are small: a body past this size (an oversized probe) is not read, so it costs no parsing. */
const READ_LIMIT = 64 * 1024;

/** What each agent run body read as (a planning reads the same generated bodies at each size it measures). */
const readRuns = textMemo<Readonly<Record<string, unknown>> | undefined>();

/** The agent run a body reads as; the same object for the same text, so never to be changed. */
function decodedRun(body: string): Readonly<Record<string, unknown>> | undefined {
  if (body.length > READ_LIMIT) return undefined;
  return readRuns(body, () => readRun(body));
}

function readRun(body: string): Record<string, unknown> | undefined {
  const text = body.trimStart();
  if (text.startsWith('<')) {
    const spec = operation(RUN).body;
    const decoded = spec ? decodeXml(spec.resource, body) : undefined;
    return decoded?.ok && isObject(decoded.value) ? decoded.value : undefined;
  }
  try {
    const parsed = JSON.parse(body) as unknown;
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `{"runId":"…",` after the opening brace; a runId already written as null is replaced. */
function intoJson(body: string, runId: string, present: boolean): string | undefined {
  if (present) return body.replace(/"runId"\s*:\s*null/, `"${RUN_ID}":${JSON.stringify(runId)}`);
  const at = body.indexOf('{');
  if (at < 0) return undefined;
  const rest = body.slice(at + 1);
  const separator = rest.trimStart().startsWith('}') ? '' : ',';
  return `${body.slice(0, at + 1)}"${RUN_ID}":${JSON.stringify(runId)}${separator}${rest}`;
}

/**
 * `<runId>…</runId>` where the document's field order puts it (a server may read XML as a sequence): before
 * the first element of a later field, else before the root's end tag; an empty `<runId/>` is filled.
 */
function intoXml(body: string, runId: string, present: boolean): string | undefined {
  const element = `<${RUN_ID}>${escapeXml(runId)}</${RUN_ID}>`;
  if (present) {
    const empty = new RegExp(`<${RUN_ID}\\s*/>|<${RUN_ID}>\\s*</${RUN_ID}>`);
    return empty.test(body) ? body.replace(empty, element) : undefined;
  }
  const spec = operation(RUN).body;
  if (!spec) return undefined;
  const fields = Object.keys(resourceSchema(spec.resource).properties ?? {});
  for (const later of fields.slice(fields.indexOf(RUN_ID) + 1)) {
    const at = body.search(new RegExp(`<${later}[\\s/>]`));
    if (at >= 0) return `${body.slice(0, at)}${element}${body.slice(at)}`;
  }
  const end = body.lastIndexOf(`</${spec.xmlRoot}>`);
  return end < 0 ? undefined : `${body.slice(0, end)}${element}${body.slice(end)}`;
}
