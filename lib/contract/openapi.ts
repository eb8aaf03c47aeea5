import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fromRoot } from '../foundation/paths.ts';

/** A JSON Schema (2020-12) node as it appears in `schemas/openapi.yaml`, including the OpenAPI `xml` object. */
export interface SchemaNode {
  $ref?: string;
  type?: string;
  description?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  const?: unknown;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  xml?: { name?: string; wrapped?: boolean };
  [keyword: string]: unknown;
}

export interface ParameterObject {
  $ref?: string;
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  description?: string;
  schema: SchemaNode;
  /** The document states no limit for this parameter (its schema names the component of the field it names). */
  'x-limit-not-stated'?: boolean;
}

export interface MediaTypeObject {
  schema?: SchemaNode;
}

export interface ResponseObject {
  $ref?: string;
  description: string;
  content?: Record<string, MediaTypeObject>;
  /** The document does not show this answer (5.3); listed so that other tools given the file accept it. */
  'x-not-shown'?: boolean;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  'x-section': string;
  parameters?: ParameterObject[];
  requestBody?: { description?: string; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', OperationObject>>>;
  components: {
    schemas: Record<string, SchemaNode>;
    parameters: Record<string, ParameterObject>;
    responses?: Record<string, ResponseObject>;
    securitySchemes: Record<string, { type: string; in: string; name: string }>;
  };
}

export const OPENAPI_PATH = fromRoot('schemas', 'openapi.yaml');

/**
 * The contract parsed, as JSON, with the digest of the YAML it was parsed from: written by `npm run
 * generate` (tests/unit/generated.spec.ts fails when it is stale). Every process reads the contract, and
 * loading a YAML parser and parsing the file cost each about a fifth of a second of CPU.
 */
export const OPENAPI_PARSED_PATH = fromRoot('lib', 'contract', 'openapi.generated.json');

/** The content of lib/contract/openapi.generated.json for this text of schemas/openapi.yaml. */
export function renderParsedOpenApi(yamlText: string): string {
  return `${JSON.stringify({ yamlSha256: digestOf(yamlText), document: parseYaml(yamlText) })}\n`;
}

function parseYaml(text: string): OpenApiDocument {
  const { parse } = createRequire(import.meta.url)('yaml') as { parse: (t: string) => unknown };
  return parse(text) as OpenApiDocument;
}

let cached: OpenApiDocument | undefined;

/** The contract, parsed once per process: from its parsed copy while that is of the same YAML, else from the YAML itself. */
export function openApi(): OpenApiDocument {
  if (cached) return cached;
  const text = readFileSync(OPENAPI_PATH, 'utf8');
  let parsed: { yamlSha256?: string; document?: OpenApiDocument } = {};
  try {
    parsed = JSON.parse(readFileSync(OPENAPI_PARSED_PATH, 'utf8')) as typeof parsed;
  } catch {
    parsed = {};
  }
  cached = parsed.yamlSha256 === digestOf(text) && parsed.document ? parsed.document : parseYaml(text);
  return cached;
}

const resolved = new Map<string, unknown>();

/** Resolves a local `#/components/...` reference; other references are not used in this contract. */
export function resolveRef<T>(ref: string): T {
  const known = resolved.get(ref);
  if (known !== undefined) return known as T;
  if (!ref.startsWith('#/')) throw new Error(`Only local references are supported, got ${ref}`);
  let node: unknown = openApi();
  for (const part of ref.slice(2).split('/')) {
    node = (node as Record<string, unknown>)[part];
    if (node === undefined) throw new Error(`Unresolvable reference ${ref}`);
  }
  resolved.set(ref, node);
  return node as T;
}

/** Dereferenced nodes of the contract, by node: codecs and generators follow the same references per request. */
const dereferenced = new WeakMap<SchemaNode, SchemaNode>();

/** Follows `$ref` (keeping sibling keywords such as `xml`, which OpenAPI 3.1 allows next to `$ref`). */
export function deref(node: SchemaNode): SchemaNode {
  if (!node.$ref) return node;
  const known = dereferenced.get(node);
  if (known) return known;
  const { $ref, ...siblings } = node;
  const out = { ...deref(resolveRef<SchemaNode>($ref)), ...siblings };
  dereferenced.set(node, out);
  return out;
}

export function componentName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/** The name of the subscription-key header, from the security scheme. */
export function subscriptionKeyHeader(): string {
  return openApi().components.securitySchemes.subscriptionKey.name;
}

/** SHA-256 of a file, for report metadata (document and schema digests). */
export function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
