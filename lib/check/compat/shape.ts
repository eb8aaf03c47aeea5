import { hash } from 'node:crypto';
import { operations } from '../../contract/operations.ts';
import type { Operation, OperationId } from '../../contract/operations.ts';
import { validateNode, validateResource } from '../../contract/validators.ts';
import type { KeyMode, TrafficExchange } from '../../traffic/model.ts';
import { namesSecret } from '../../traffic/credentials.ts';
import { agencyOfRequest, pathOf } from '../../traffic/targets.ts';
import { viewOf } from '../client/request.ts';
import type { ClientRequest, RequestView } from '../client/types.ts';

/**
 * The shape of a recorded exchange: what decides how a build answers it, without its data. Two exchanges
 * have the same shape when they go to the same operation (method and path) with the same key mode, for
 * the key's own agency or another, with the same Content-Type (media type and parameters) and Accept, the
 * same body format (an XML root's name and namespace included), the same fields (names, nesting, JSON
 * types; arrays of 0, 1 or more items), the same values refused by the same constraints of the contract,
 * the same query parameter names with values that pass or fail their constraints alike; and when the
 * client met the same status and answer format when it was recorded. Requests of one shape are sent once.
 */

export type CellFormat = 'json' | 'xml' | 'none';

export interface ExchangeShape {
  /** Short and stable: a digest of the parts. */
  key: string;
  operation: OperationId | null;
  /** The body format the matrix files it under (none: no body, as delete and demerge). */
  format: CellFormat;
  /** One line, for people. */
  text: string;
  view: RequestView;
  request: ClientRequest;
  /** Values of the body the contract refuses (`/iswcs/[] pattern`), empty when none. */
  refused: string[];
  /** Query parameters whose value the contract refuses. */
  refusedQuery: string[];
  /** The run a run notification ends (its body's runId), when it ends one. */
  endsRun: string | undefined;
}

const routes = new Map(operations().map((op) => [`${op.method} ${op.path}`, op]));

/** The documented operation a recorded request names exactly, or null. */
export function operationOf(method: string, target: string): Operation | null {
  return routes.get(`${method.toUpperCase()} ${pathOf(target)}`) ?? null;
}

/** A recorded request as the client checks read one (lib/check/client/request.ts). */
export function clientRequestOf(x: TrafficExchange): ClientRequest {
  const target = x.request.target;
  const q = target.indexOf('?');
  return {
    seq: x.seq,
    at: x.at === null ? 0 : Date.parse(x.at) || 0,
    method: x.request.method,
    target,
    path: q < 0 ? target : target.slice(0, q),
    rawQuery: q < 0 ? '' : target.slice(q + 1),
    headers: x.request.headers,
    body: x.request.body,
    tooLarge: false,
    operation: operationOf(x.request.method, target),
  };
}

function typeTree(value: unknown, depth = 0): string {
  if (depth > 24) return '…';
  if (Array.isArray(value)) {
    const items = [...new Set(value.map((v) => typeTree(v, depth + 1)))].sort();
    return `[${value.length === 0 ? '0' : value.length === 1 ? '1' : 'n'}:${items.join('|')}]`;
  }
  if (value === null) return 'null';
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${k}:${typeTree(v, depth + 1)}`).join(',')}}`;
  }
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'num';
  if (typeof value === 'string') return value === '' ? 'str0' : 'str';
  return typeof value;
}

/** A query value as its parameter's schema reads it (an integer parameter's digits as a number). */
function queryClass(op: Operation | null, name: string, value: string, decoded: boolean): string {
  if (!decoded) return 'undecodable';
  if (value === '') return 'empty';
  const param = op?.params.find((p) => p.name === name);
  if (!param) return 'undocumented';
  const v = param.schema.type === 'integer' && /^[+-]?[0-9]+$/.test(value) ? Number(value) : value;
  const violations = validateNode(param.schema, v);
  return violations.length === 0 ? 'ok' : `refused:${[...new Set(violations.map((x) => x.keyword))].sort().join('+')}`;
}

const KEY_TEXT: Record<KeyMode, string> = { key: 'with the key', none: 'without a key', empty: 'with an empty key', wrong: 'with another key' };

const normalise = (s: string | undefined): string => (s ?? '').toLowerCase().replace(/\s+/g, '');

/** Where in a body a constraint refused a value, with array positions left out. */
const violationPath = (p: string): string => p.replace(/\/[0-9]+(?=\/|$)/g, '/[]');

/**
 * The runId a run notification names: its runId field, else one spelt in another case (RunId), which a
 * server that matches names without case (Newtonsoft.Json, production) reads as the runId: the run's end
 * must then name the run the replay started, not the recorded one.
 */
function runIdField(body: Record<string, unknown>): unknown {
  if (Object.hasOwn(body, 'runId')) return body.runId;
  const other = Object.keys(body).find((k) => k.toLowerCase() === 'runid');
  return other !== undefined ? body[other] : undefined;
}

/** The answer's status and format as recorded, or why none came. */
function recordedClass(x: TrafficExchange): string {
  if (!x.response) return `none:${x.error ?? ''}`;
  const type = normalise(x.response.headers['content-type']).split(';')[0] ?? '';
  const body = x.response.body.length === 0 ? 'empty' : type;
  return `${x.response.status}:${body}`;
}

/** `keyedAgencies`: agencies replayed with a key of their own (--agency-keys): a request for one is its own shape, sent with that key. */
export function shapeOf(x: TrafficExchange, keyMode: KeyMode, keyAgency: string, keyedAgencies: ReadonlySet<string> = new Set()): ExchangeShape {
  const request = clientRequestOf(x);
  const view = viewOf(request);
  const op = request.operation;
  const agency = agencyOfRequest(x.request);
  const format: CellFormat = view.bodyBytes === 0 || !op?.body ? 'none' : (view.format ?? 'none');
  const parsed = view.parsed?.ok ? view.parsed : undefined;
  const namespace = parsed?.xmlNotes.find((n) => n.startsWith('the root in the namespace '));
  const violations = parsed && op?.body && parsed.value !== undefined ? [...new Set(validateResource(op.body.resource, parsed.value).map((v) => `${violationPath(v.path)} ${v.keyword}`))].sort() : [];
  const query = view.query
    .filter((p) => !namesSecret(p.name, 'query'))
    .map((p) => `${p.name}=${queryClass(op, p.name, p.value, p.decoded)}`)
    .sort();
  const parts = {
    op: op?.id ?? `${request.method} ${request.path}`,
    key: keyMode,
    for: agency === undefined ? 'none' : keyedAgencies.has(agency) ? `own key of ${agency}` : agency === keyAgency ? 'own' : 'other',
    type: normalise(x.request.headers['content-type']),
    accept: normalise(x.request.headers.accept),
    body: view.bodyBytes === 0 ? 'none' : parsed ? `${view.format ?? '?'}${parsed.root !== undefined ? ` <${parsed.root}>` : ''}${namespace !== undefined ? ` ${namespace}` : ''}${parsed.xmlNotes.filter((n) => n !== namespace).map((n) => ` [${n}]`).join('')}` : `unread ${view.format ?? '?'}: ${view.parsed && !view.parsed.ok ? 'malformed' : 'other'}`,
    fields: parsed ? typeTree(parsed.value) : '',
    violations,
    query,
    recorded: recordedClass(x),
  };
  const key = hash('sha1', JSON.stringify(parts), 'base64url').slice(0, 12);
  const bodyText = parts.body === 'none' ? 'no body' : `${parts.body}${parts.fields !== '' ? ` ${parts.fields.length > 80 ? `${parts.fields.slice(0, 80)}…` : parts.fields}` : ''}`;
  const text = `${request.method} ${request.path}${query.length > 0 ? `?${query.join('&')}` : ''} · ${bodyText}${violations.length > 0 ? ` · refused by ${violations.join(', ')}` : ''} · ${KEY_TEXT[keyMode]} · met ${parts.recorded}`;
  const refusedQuery = query.filter((p) => /=refused:/.test(p)).map((p) => p.replace(/=refused:/, ' '));
  const runId = op?.id === 'notifyAgentRun' && parsed && parsed.value !== null && typeof parsed.value === 'object' ? runIdField(parsed.value as Record<string, unknown>) : undefined;
  return { key, operation: op?.id ?? null, format, text, view, request, refused: violations, refusedQuery, endsRun: typeof runId === 'string' && runId !== '' ? runId : undefined };
}
