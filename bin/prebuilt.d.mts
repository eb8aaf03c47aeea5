/** Types of bin/prebuilt.mjs (plain JavaScript: it runs before any TypeScript loader). */
export declare function cacheDirOf(root: string): string;
export declare function prebuiltEntry(root: string, env?: Readonly<Record<string, string | undefined>>): string | null;
