import { readFileSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fromRoot } from '../foundation/paths.ts';
import { HARNESS_VERSION } from '../generate/templates.ts';
import type { ExtraHeader } from '../config/headers.ts';
import type { NetworkRoute } from '../config/proxy.ts';
import type { RunNetwork } from './model.ts';

/** SHA-256 of the interface document the checks enforce (the copy in docs/spec/). */
export function documentDigest(): string {
  return createHash('sha256').update(readFileSync(fromRoot('docs', 'spec', 'iswc-agency-api.md'))).digest('hex');
}

/** SHA-256 over every file of schemas/, in name order: changes whenever the contract as data changes. */
export function schemasDigest(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(fromRoot('schemas')).sort()) {
    hash.update(name).update('\0').update(readFileSync(fromRoot('schemas', name))).update('\0');
  }
  return hash.digest('hex');
}

/** The base URL as it may be written anywhere: origin and path, never credentials or a query. */
export function safeBaseUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, '')}`;
  } catch {
    return '<invalid URL>';
  }
}

/** The network part of a report's meta: the proxy without its credentials, the extra headers without their values. */
export function runNetwork(route: NetworkRoute, headers: readonly ExtraHeader[]): RunNetwork {
  return {
    proxy: route.proxy ? { url: route.proxy.shown, variable: route.proxy.variable, mode: route.proxy.mode } : null,
    ...(route.bypass !== undefined ? { bypass: route.bypass } : {}),
    extraHeaders: headers.map((h) => h.name),
  };
}

export { HARNESS_VERSION };
