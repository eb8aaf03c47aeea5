import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import type { ResourceName } from './json-schema.ts';
import { componentNames, schemaFileName, standaloneSchema } from './json-schema.ts';
import { readFileSync } from 'node:fs';
import { fromRoot } from '../foundation/paths.ts';
import type { SchemaNode } from './openapi.ts';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
type AddFormats = (ajv: Ajv2020, formats: string[]) => Ajv2020;
const addFormats = (addFormatsModule as unknown as { default: AddFormats }).default;

/** One reason a value does not satisfy the contract, with the JSON pointer of the offending value. */
export interface SchemaViolation {
  path: string;
  message: string;
  keyword: string;
}

export function createAjv(): Ajv2020 {
  // `unicode: true` (the default) makes minLength/maxLength count code points, as the readings require.
  // The schemas are the repository's own, each validated against the 2020-12 meta-schema by a test
  // (tests/unit/schemas.spec.ts); checking them again in every process compiled the meta-schema first,
  // about 0.15 s of CPU per command and per run. Strict mode still refuses an unknown keyword.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, unicodeRegExp: true, validateSchema: false });
  addFormats(ajv, ['int32']);
  ajv.addKeyword({ keyword: 'xml', schemaType: 'object' });
  for (const name of componentNames()) ajv.addSchema(standaloneSchema(name));
  return ajv;
}

/** Reads a JSON Schema of `schemas/` that is kept by hand (target profile, report, scenario). */
export function handWrittenSchema(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(fromRoot('schemas', file), 'utf8')) as Record<string, unknown>;
}

let shared: Ajv2020 | undefined;

/**
 * The process's one Ajv, with the contract's schemas added: every validator of the harness compiles into
 * it. Making an instance compiles the 2020-12 meta-schema and every component schema (about half a second
 * of CPU), which each process otherwise paid once per caller.
 */
export function sharedAjv(): Ajv2020 {
  shared ??= createAjv();
  return shared;
}

const compiled = new Map<string, ValidateFunction>();

function toViolations(errors: ErrorObject[] | null | undefined): SchemaViolation[] {
  return (errors ?? []).map((e) => ({ path: e.instancePath || '/', message: e.message ?? e.keyword, keyword: e.keyword }));
}

function byId(id: string): ValidateFunction {
  let validate = compiled.get(id);
  if (!validate) {
    validate = sharedAjv().getSchema(id) ?? sharedAjv().compile(handWrittenSchema(id));
    compiled.set(id, validate);
  }
  return validate;
}

/** Validates a value against one resource of section 2. An empty list means valid. */
export function validateResource(resource: ResourceName, value: unknown): SchemaViolation[] {
  const validate = byId(schemaFileName(resource));
  return validate(value) ? [] : toViolations(validate.errors);
}

/** Validates a value against a hand-kept schema of `schemas/` by file name (e.g. target-profile.schema.json). */
export function validateWith(schemaFile: string, value: unknown): SchemaViolation[] {
  const validate = byId(schemaFile);
  return validate(value) ? [] : toViolations(validate.errors);
}

/** Ajv's own errors for a value against a hand-kept schema (for callers that word them themselves). */
export function schemaErrors(schemaFile: string, value: unknown): ErrorObject[] {
  const validate = byId(schemaFile);
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

/** Validates a value against an arbitrary (dereferenced) schema node, e.g. a query parameter's schema. */
export function validateNode(node: SchemaNode, value: unknown): SchemaViolation[] {
  // By the node itself first: the contract's nodes are read once and kept, and writing one out as the key
  // cost more than validating against it.
  let validate = compiledNodes.get(node);
  if (!validate) {
    const key = JSON.stringify(node);
    validate = compiled.get(key) ?? sharedAjv().compile(node);
    compiled.set(key, validate);
    compiledNodes.set(node, validate);
  }
  return validate(value) ? [] : toViolations(validate.errors);
}

const compiledNodes = new WeakMap<SchemaNode, ValidateFunction>();
