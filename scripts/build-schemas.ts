/** Writes one standalone JSON Schema per component of schemas/openapi.yaml (npm run schemas:build). */
import { writeFileSync } from 'node:fs';
import { componentNames, schemaFileName, standaloneSchema } from '../lib/contract/json-schema.ts';
import { fromRoot } from '../lib/paths.ts';

export function renderSchemaFile(component: string): string {
  return `${JSON.stringify(standaloneSchema(component), null, 2)}\n`;
}

if (process.argv[1]?.endsWith('build-schemas.ts')) {
  for (const name of componentNames()) {
    writeFileSync(fromRoot('schemas', schemaFileName(name)), renderSchemaFile(name));
    console.log(`schemas/${schemaFileName(name)}`);
  }
}
