import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** `from '…'`, `import '…'` and `import('…')` with a relative specifier (type-only imports included: conservative). */
const RELATIVE_IMPORT = /\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|\bimport\s+['"](\.{1,2}\/[^'"]+)['"]/g;
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/**
 * The files a program loads from this repository, as paths relative to `root` with `/`: the entries and
 * every file they import, transitively, by relative specifier (packages are left to the lockfile). What is
 * read at run time rather than imported (schemas, fixtures, data beside the code) is not found here: the
 * caller adds it. A specifier that names no file (an import written inside a string) is ignored.
 */
export function importClosure(root: string, entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    if (!SOURCE.test(file)) return;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(RELATIVE_IMPORT)) visit(path.resolve(path.dirname(file), m[1] ?? m[2] ?? m[3] ?? ''));
  };
  for (const entry of entries) visit(path.resolve(root, entry));
  return [...seen].map((f) => path.relative(root, f).split(path.sep).join('/')).sort();
}
