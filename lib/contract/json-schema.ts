import type { SchemaNode } from './openapi.ts';
import { openApi } from './openapi.ts';

const COMPONENT_PREFIX = '#/components/schemas/';

/** File name of the standalone JSON Schema generated for a component (AgentRun -> agent-run.schema.json). */
export function schemaFileName(component: string): string {
  return `${component.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}.schema.json`;
}

/** Every schema component of openapi.yaml; each is published as a standalone JSON Schema file. */
export function componentNames(): string[] {
  return Object.keys(openApi().components.schemas);
}

/** The resources of section 2. */
export const RESOURCE_SCHEMAS = ['AgentRun', 'CsnNotification', 'MergeRequest', 'AgencyWork'] as const;
export type ResourceName = (typeof RESOURCE_SCHEMAS)[number];

function collectRefs(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, found);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_PREFIX)) {
      const name = value.slice(COMPONENT_PREFIX.length);
      if (!found.has(name)) {
        found.add(name);
        collectRefs(openApi().components.schemas[name], found);
      }
    } else {
      collectRefs(value, found);
    }
  }
}

/** Component refs become `$defs` refs; a component's reference to itself (a recursive one) becomes `#`. */
function rewriteRefs(node: unknown, self?: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, self));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_PREFIX)) {
      const name = value.slice(COMPONENT_PREFIX.length);
      out[key] = name === self ? '#' : `#/$defs/${name}`;
    } else out[key] = rewriteRefs(value, self);
  }
  return out;
}

/**
 * A self-contained JSON Schema 2020-12 document for one component of `openapi.yaml`: referenced
 * components are copied into `$defs`, so other tools need nothing else. The OpenAPI `xml` keyword is
 * kept as an annotation (it carries the XML mapping).
 */
export function standaloneSchema(component: string): Record<string, unknown> {
  const root = openApi().components.schemas[component];
  if (!root) throw new Error(`Unknown schema component ${component}`);
  const refs = new Set<string>();
  collectRefs(root, refs);
  refs.delete(component);
  const defs: Record<string, unknown> = {};
  for (const name of [...refs].sort()) defs[name] = rewriteRefs(openApi().components.schemas[name]);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: schemaFileName(component),
    title: component,
    $comment: 'Generated from schemas/openapi.yaml by `npm run generate`; edit openapi.yaml, not this file.',
    ...(rewriteRefs(root, component) as SchemaNode),
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
}
