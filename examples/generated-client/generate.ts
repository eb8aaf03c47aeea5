/**
 * `npx tsx examples/generated-client/generate.ts`: writes openapi.yaml (the production-shaped OpenAPI,
 * production-shaped.ts) and generates schema.d.ts from it with openapi-typescript, as a user generates a
 * client's types. tests/unit/generated-client.spec.ts fails when either is not what this writes.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { productionShapedYaml } from './production-shaped.ts';

export const OPENAPI_FILE = fromRoot('examples', 'generated-client', 'openapi.yaml');
export const SCHEMA_FILE = fromRoot('examples', 'generated-client', 'schema.d.ts');

/** openapi-typescript's command line on `input`, writing `output` (what `npx openapi-typescript input -o output` does). */
export function openapiTypescript(input: string, output: string): void {
  execFileSync(process.execPath, [fromRoot('node_modules', 'openapi-typescript', 'bin', 'cli.js'), input, '-o', output], { stdio: 'pipe' });
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  writeFileSync(OPENAPI_FILE, productionShapedYaml());
  openapiTypescript(OPENAPI_FILE, SCHEMA_FILE);
  console.log(`wrote ${OPENAPI_FILE} and ${SCHEMA_FILE}`);
}
