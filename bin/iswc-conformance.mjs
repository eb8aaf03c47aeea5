#!/usr/bin/env node
// The harness is TypeScript and needs no build step: the command runs from a bundle of its sources that
// it builds on first use and again after any change to them (bin/prebuilt.mjs), else through tsx.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prebuiltEntry } from './prebuilt.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = prebuiltEntry(root);
if (entry !== null) {
  // The bundle lives under node_modules: the repository's root is this file's, not the bundle's.
  Reflect.set(globalThis, Symbol.for('iswc-conformance.repoRoot'), root);
  // An internal error's stack (ISWC_DEBUG=1) names the sources, not the bundle.
  if (process.env.ISWC_DEBUG === '1') process.setSourceMapsEnabled(true);
  await import(entry);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../lib/cli/entry.ts');
}
