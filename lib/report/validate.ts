import type { ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fromRoot } from '../foundation/paths.ts';
import type { ConformanceReport } from './model.ts';

export const REPORT_SCHEMA_FILE = fromRoot('schemas', 'report.schema.json');

let compiled: { report: ValidateFunction; execution: ValidateFunction } | undefined;

/**
 * The schema's validators, compiled by `npm run generate` (lib/report/standalone-validators.ts). Found from
 * the repository's root, not from this module, which may be part of the command line's bundle.
 */
function validators(): { report: ValidateFunction; execution: ValidateFunction } {
  compiled ??= createRequire(fromRoot('package.json'))(fromRoot('lib', 'report', 'report-schema.generated.cjs')) as { report: ValidateFunction; execution: ValidateFunction };
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
