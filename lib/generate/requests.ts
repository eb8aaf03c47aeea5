import type { Format } from '../contract/codec/index.ts';
import { MEDIA_TYPE, encodeBody } from '../contract/codec/index.ts';
import type { OperationId } from '../contract/operations.ts';
import { operation } from '../contract/operations.ts';
import type { AuthMode, RequestSpec } from '../contract/exchange.ts';

export type Query = ReadonlyArray<readonly [string, string]>;

export interface BodyOptions {
  query?: Query;
  /** Content-Type to send: default the format's media type; null sends none (it is optional, section 4). */
  contentType?: string | null;
  auth?: AuthMode;
  headers?: Record<string, string>;
}

/** A request to an operation with a body: the value is written in the format through the schema's codec. */
export function bodyRequest(opId: OperationId, format: Format, value: unknown, options: BodyOptions = {}): RequestSpec {
  const op = operation(opId);
  if (!op.body) throw new Error(`${opId} takes no body`);
  return rawBodyRequest(opId, format, encodeBody(format, op.body.resource, value), options);
}

/** A request with a body given as text, for syntax-level cases (malformed JSON, DOCTYPE, ...). */
export function rawBodyRequest(opId: OperationId, format: Format, body: string, options: BodyOptions = {}): RequestSpec {
  const op = operation(opId);
  const headers: Record<string, string> = { ...options.headers };
  const contentType = options.contentType === undefined ? MEDIA_TYPE[format] : options.contentType;
  if (contentType !== null) headers['Content-Type'] = contentType;
  return { method: op.method, path: op.path, query: options.query ?? [], headers, body, auth: options.auth ?? 'key' };
}

/** A request to an operation without a body (merge's query, submission delete, demerge). */
export function queryRequest(opId: OperationId, query: Query, options: { auth?: AuthMode; headers?: Record<string, string> } = {}): RequestSpec {
  const op = operation(opId);
  return { method: op.method, path: op.path, query, headers: { ...options.headers }, auth: options.auth ?? 'key' };
}
