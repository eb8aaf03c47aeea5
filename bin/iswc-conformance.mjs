#!/usr/bin/env node
// The harness is TypeScript run by tsx (a dependency), so the command needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../lib/cli/entry.ts');
