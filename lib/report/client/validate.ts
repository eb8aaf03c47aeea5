import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { fromRoot } from '../../foundation/paths.ts';
import type { ClientReport } from './model.ts';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
type AddFormats = (ajv: Ajv2020, formats: string[]) => Ajv2020;
const addFormats = (addFormatsModule as unknown as { default: AddFormats }).default;

let compiled: ValidateFunction | undefined;

/** Violations of schemas/client-report.schema.json, as "path: message" lines; empty when valid. */
export function clientReportViolations(value: unknown, limit = 20): string[] {
  if (!compiled) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
    addFormats(ajv, ['date-time']);
    compiled = ajv.compile(JSON.parse(readFileSync(fromRoot('schemas', 'client-report.schema.json'), 'utf8')) as Record<string, unknown>);
  }
  if (compiled(value)) return [];
  return (compiled.errors ?? []).slice(0, limit).map((e) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}

/** Reads and validates a client-conformance.json; throws with the violations when it does not match the schema. */
export function readClientReport(file: string): ClientReport {
  const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const violations = clientReportViolations(value);
  if (violations.length > 0) throw new Error(`${file} is not a client conformance report (schemas/client-report.schema.json):\n  ${violations.join('\n  ')}`);
  return value as ClientReport;
}
