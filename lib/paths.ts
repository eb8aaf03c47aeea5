import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Absolute path of the repository root (this file lives in `lib/`). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function fromRoot(...segments: string[]): string {
  return path.join(repoRoot, ...segments);
}
