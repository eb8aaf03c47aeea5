import type { ResourceName } from './json-schema.ts';
import type { OperationObject, ParameterObject, ResponseObject, SchemaNode } from './openapi.ts';
import { componentName, deref, openApi, resolveRef } from './openapi.ts';

export const OPERATION_IDS = ['notifyAgentRun', 'mergeIswcMetadata', 'deleteSubmission', 'demergeIswcMetadata'] as const;
export type OperationId = (typeof OPERATION_IDS)[number];
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface QueryParameter {
  name: string;
  description: string;
  /** The parameter's schema with `$ref` followed. */
  schema: SchemaNode;
  /** Component the schema comes from (AgencyCode, Int32, ...), when it is a reference. */
  component?: string;
  /**
   * False where the document states no limit for this parameter (`x-limit-not-stated`), though its schema
   * gives the component of the field it names: a value a database compares as equal to one within the limits
   * (trailing spaces), or an integer reading takes for the same, names the same data.
   */
  limitStated: boolean;
}

export interface RequestBodySpec {
  resource: ResourceName;
  /** Root element of the XML representation, from the schema's `xml.name`. */
  xmlRoot: string;
  mediaTypes: string[];
}

/** One operation of section 4, as read from `schemas/openapi.yaml`. */
export interface Operation {
  id: OperationId;
  method: HttpMethod;
  path: string;
  section: string;
  summary: string;
  params: QueryParameter[];
  body: RequestBodySpec | null;
  /** Statuses the document lists for this operation (section 4 and 7). */
  statuses: number[];
  /** Statuses the contract file lists as not shown by the document (401/403 where the key is concerned, 5.3). */
  notShownStatuses: number[];
  successStatus: number;
  /** Exact texts the document states for a status (400 "Bad Request", 401 "Not Authorized"). */
  texts: Partial<Record<number, string>>;
  /** Resource carried by a status's body, when the document gives one (200 -> CsnNotification). */
  responseResource: Partial<Record<number, ResourceName>>;
  /** Status descriptions as the document words them. */
  statusMeaning: Partial<Record<number, string>>;
}

function toParameter(raw: ParameterObject): QueryParameter {
  const param = raw.$ref ? resolveRef<ParameterObject>(raw.$ref) : raw;
  return {
    name: param.name,
    description: param.description ?? '',
    schema: deref(param.schema),
    ...(param.schema.$ref ? { component: componentName(param.schema.$ref) } : {}),
    limitStated: param['x-limit-not-stated'] !== true,
  };
}

function toOperation(method: HttpMethod, path: string, op: OperationObject): Operation {
  const responses = new Map(Object.entries(op.responses).map(([status, raw]) => [Number(status), raw.$ref ? resolveRef<ResponseObject>(raw.$ref) : raw]));
  const all = [...responses.keys()].sort((a, b) => a - b);
  const statuses = all.filter((s) => responses.get(s)?.['x-not-shown'] !== true);
  const notShownStatuses = all.filter((s) => responses.get(s)?.['x-not-shown'] === true);
  const texts: Partial<Record<number, string>> = {};
  const responseResource: Partial<Record<number, ResourceName>> = {};
  const statusMeaning: Partial<Record<number, string>> = {};
  for (const status of statuses) {
    const response = responses.get(status);
    if (!response) continue;
    statusMeaning[status] = response.description;
    for (const [mediaType, media] of Object.entries(response.content ?? {})) {
      const schema = media.schema;
      if (!schema) continue;
      // The stated text: `x-stated-text` (the schema's pattern also lets it lead a detail), or a bare const.
      const stated = (schema as { 'x-stated-text'?: unknown })['x-stated-text'] ?? schema.const;
      if (mediaType === 'text/plain' && typeof stated === 'string') texts[status] = stated;
      // Only success bodies are resources of section 2; error bodies carry stated texts.
      if (schema.$ref && status < 300) responseResource[status] = componentName(schema.$ref) as ResourceName;
    }
  }
  let body: RequestBodySpec | null = null;
  if (op.requestBody) {
    const mediaTypes = Object.keys(op.requestBody.content);
    const ref = op.requestBody.content[mediaTypes[0] ?? '']?.schema?.$ref;
    if (!ref) throw new Error(`${op.operationId}: request body must reference a component schema`);
    const resource = componentName(ref) as ResourceName;
    const xmlRoot = deref({ $ref: ref }).xml?.name;
    if (!xmlRoot) throw new Error(`${resource}: the XML mapping needs xml.name`);
    body = { resource, xmlRoot, mediaTypes };
  }
  const successStatus = statuses.find((s) => s >= 200 && s < 300);
  if (successStatus === undefined) throw new Error(`${op.operationId}: no success status documented`);
  return {
    id: op.operationId as OperationId,
    method,
    path,
    section: op['x-section'],
    summary: op.summary,
    params: (op.parameters ?? []).map(toParameter),
    body,
    statuses,
    notShownStatuses,
    successStatus,
    texts,
    responseResource,
    statusMeaning,
  };
}

let table: Map<OperationId, Operation> | undefined;

function operationTable(): Map<OperationId, Operation> {
  if (table) return table;
  table = new Map();
  for (const [path, item] of Object.entries(openApi().paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op) continue;
      const operation = toOperation(method.toUpperCase() as HttpMethod, path, op);
      if (!(OPERATION_IDS as readonly string[]).includes(operation.id)) throw new Error(`Unexpected operation ${operation.id}`);
      table.set(operation.id, operation);
    }
  }
  for (const id of OPERATION_IDS) if (!table.has(id)) throw new Error(`openapi.yaml lacks operation ${id}`);
  return table;
}

export function operation(id: OperationId): Operation {
  const op = operationTable().get(id);
  if (!op) throw new Error(`Unknown operation ${id}`);
  return op;
}

export function operations(): Operation[] {
  return OPERATION_IDS.map(operation);
}

/** Methods the document defines on a path (for `Allow` on 405). */
export function methodsOnPath(path: string): HttpMethod[] {
  return operations()
    .filter((op) => op.path === path)
    .map((op) => op.method);
}

export function documentedPaths(): string[] {
  return [...new Set(operations().map((op) => op.path))];
}

/** A short human name for reports: run, merge, delete, demerge. */
export const OPERATION_LABEL: Record<OperationId, string> = {
  notifyAgentRun: 'run notification',
  mergeIswcMetadata: 'merge',
  deleteSubmission: 'submission delete',
  demergeIswcMetadata: 'demerge',
};
