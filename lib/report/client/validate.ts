import type { ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fromRoot } from '../../foundation/paths.ts';
import type { ClientReport } from './model.ts';

let compiled: ValidateFunction | undefined;

/** Violations of schemas/client-report.schema.json, as "path: message" lines; empty when valid. */
export function clientReportViolations(value: unknown, limit = 20): string[] {
  // Compiled by `npm run generate` (lib/report/standalone-validators.ts); found from the root, as the
  // command line's bundle may hold this module.
  compiled ??= (createRequire(fromRoot('package.json'))(fromRoot('lib', 'report', 'client', 'client-report-schema.generated.cjs')) as { clientReport: ValidateFunction }).clientReport;
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
