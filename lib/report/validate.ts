import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { fromRoot } from '../foundation/paths.ts';
import type { ConformanceReport } from './model.ts';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
type AddFormats = (ajv: Ajv2020, formats: string[]) => Ajv2020;
const addFormats = (addFormatsModule as unknown as { default: AddFormats }).default;

export const REPORT_SCHEMA_FILE = fromRoot('schemas', 'report.schema.json');

let compiled: { report: ValidateFunction; execution: ValidateFunction } | undefined;

function validators(): { report: ValidateFunction; execution: ValidateFunction } {
  if (compiled) return compiled;
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  addFormats(ajv, ['date-time']);
  const schema = JSON.parse(readFileSync(REPORT_SCHEMA_FILE, 'utf8')) as { $id: string } & Record<string, unknown>;
  const report = ajv.compile(schema);
  compiled = { report, execution: ajv.compile({ $ref: `${schema.$id}#/$defs/execution` }) };
  return compiled;
}

function violations(validate: ValidateFunction, value: unknown, limit: number): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, limit).map((e) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}

/** Violations of schemas/report.schema.json, as "path: message" lines (at most `limit`); empty when valid. */
export function reportViolations(value: unknown, limit = 20): string[] {
  return violations(validators().report, value, limit);
}

/** Violations of one execution of the report schema (`$defs/execution`): what a writer would refuse of it. */
export function executionViolations(value: unknown, limit = 20): string[] {
  return violations(validators().execution, value, limit);
}

export function isConformanceReport(value: unknown): value is ConformanceReport {
  return reportViolations(value, 1).length === 0;
}

/** Reads and validates a conformance.json; throws with the violations when it does not match the schema. */
export function readReport(file: string): ConformanceReport {
  const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const violations = reportViolations(value);
  if (violations.length > 0) throw new Error(`${file} is not a conformance report (schemas/report.schema.json):\n  ${violations.join('\n  ')}`);
  return value as ConformanceReport;
}
