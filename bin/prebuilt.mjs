// @ts-check
/**
 * The command line from a bundle of its own sources, built on first use and again after any change to
 * them. Through tsx, each command paid about 0.5 s to register the loader and 0.5 to 1.2 s to load its
 * few hundred modules through the loader's hooks, a third to two thirds of a short command's CPU; from
 * the bundle it pays a few tenths (CONTRIBUTING.md, "Where the time goes").
 *
 * The bundle lives in node_modules/.cache/iswc-conformance/cli/<digest>/, named by a digest of every
 * source file it was built from (esbuild's metafile lists them), so a change to any of them, a checkout
 * or a pull, is a new bundle and never a stale one. Anything that stops it (no esbuild, a read-only
 * node_modules, a build error) leaves the command to tsx, as before: never a failed command.
 * ISWC_PREBUILT=0 always takes tsx. With ISWC_DEBUG=1 a stack names the sources (the bundle's source maps).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Part of every digest: a change to how the bundle is built is a new bundle. */
const BUILD_FORMAT = 'esm-split-node20-sourcemap-v2';
const ENTRY = path.join('lib', 'cli', 'entry.ts');
/** Bundles kept besides the newest few are removed once they are this old (a long sandbox may still load from one). */
const KEEP_NEWEST = 4;
const PRUNE_AFTER_MS = 24 * 3600 * 1000;
/** A source changed this close to a build's start may have changed while it read it. */
const EDIT_WINDOW_MS = 2000;

/** @param {string} root */
export function cacheDirOf(root) {
  return path.join(root, 'node_modules', '.cache', 'iswc-conformance', 'cli');
}

/**
 * The digest of a bundle's sources as they are now in `root`: throws when one is gone.
 * @param {string} root
 * @param {readonly string[]} inputs paths relative to root
 * @param {string} builder esbuild's version
 */
function digestOf(root, inputs, builder) {
  const hash = createHash('sha256').update(`${BUILD_FORMAT}\0${builder}\0`);
  for (const input of inputs) hash.update(input).update('\0').update(readFileSync(path.join(root, input))).update('\0');
  return hash.digest('hex').slice(0, 24);
}

/** @typedef {{ buildSync: (options: Record<string, unknown>) => { metafile?: { inputs: Record<string, unknown> } }, version: string }} Esbuild */

/**
 * esbuild as the root resolves it (a dependency of the harness, and of tsx).
 * @param {string} root
 * @returns {Esbuild}
 */
function esbuildOf(root) {
  /** @type {(id: string) => Esbuild} */
  const load = createRequire(path.join(root, 'package.json'));
  return load('esbuild');
}

/**
 * The entry module of an up-to-date bundle of the command line in `root`, built when there is none;
 * null when it cannot be had, and the caller runs the sources through tsx.
 * @param {string} root the repository (or installed package) root
 * @param {Readonly<Record<string, string | undefined>>} env
 * @returns {string | null} a file URL
 */
export function prebuiltEntry(root, env = process.env) {
  if (env.ISWC_PREBUILT === '0') return null;
  try {
    const esbuild = esbuildOf(root);
    const cache = cacheDirOf(root);
    const manifest = path.join(cache, 'inputs.json');
    if (existsSync(manifest)) {
      /** @type {(text: string) => string[]} */
      const parse = JSON.parse;
      const inputs = parse(readFileSync(manifest, 'utf8'));
      const entry = entryIn(cache, digestOf(root, inputs, esbuild.version));
      if (entry !== null) return entry;
    }
    return build(root, cache, esbuild);
  } catch {
    return null;
  }
}

/**
 * @param {string} cache
 * @param {string} digest
 */
function entryIn(cache, digest) {
  const dir = path.join(cache, digest);
  return intact(dir) ? pathToFileURL(path.join(dir, 'entry.mjs')).href : null;
}

/** The list of a bundle's files and their sizes, written with it. */
const FILES = 'files.json';

/**
 * Whether a bundle has every file it was built with, at its size: a cache cleaned by hand half-way, or a
 * copy cut short, is built again rather than run.
 * @param {string} dir
 */
function intact(dir) {
  try {
    /** @type {(text: string) => Record<string, number>} */
    const parse = JSON.parse;
    const files = parse(readFileSync(path.join(dir, FILES), 'utf8'));
    return 'entry.mjs' in files && Object.entries(files).every(([name, size]) => statSync(path.join(dir, name)).size === size);
  } catch {
    return false;
  }
}

/**
 * Builds into a directory of its own, then renames it into place: processes that build at once (a test
 * run's workers on a fresh clone) each finish whole, and the first rename wins.
 * @param {string} root
 * @param {string} cache
 * @param {Esbuild} esbuild
 */
function build(root, cache, esbuild) {
  mkdirSync(cache, { recursive: true });
  const started = Date.now();
  const scratch = path.join(cache, `.building-${process.pid}-${started}`);
  try {
    const result = esbuild.buildSync({
      absWorkingDir: root,
      entryPoints: [ENTRY],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      outdir: scratch,
      outExtension: { '.js': '.mjs' },
      metafile: true,
      // Read only with ISWC_DEBUG=1 (bin/iswc-conformance.mjs): a stack then names the sources.
      sourcemap: 'linked',
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile?.inputs ?? {}).sort();
    if (!inputs.includes(ENTRY.split(path.sep).join('/'))) return null;
    // A source saved while esbuild read them (an editor, a checkout under way): the bundle may hold the
    // old text under the new text's digest. This command takes tsx; the next one builds.
    if (inputs.some((input) => statSync(path.join(root, input)).mtimeMs >= started - EDIT_WINDOW_MS)) return null;
    const digest = digestOf(root, inputs, esbuild.version);
    writeFileSync(path.join(scratch, FILES), JSON.stringify(Object.fromEntries(readdirSync(scratch).map((name) => [name, statSync(path.join(scratch, name)).size]))));
    const target = path.join(cache, digest);
    if (existsSync(target) && !intact(target)) rmSync(target, { recursive: true, force: true });
    if (!existsSync(target)) {
      try {
        renameSync(scratch, target);
      } catch {
        // Another process put the same bundle in place first.
      }
    }
    const manifestScratch = path.join(cache, `.inputs-${process.pid}.json`);
    writeFileSync(manifestScratch, JSON.stringify(inputs));
    renameSync(manifestScratch, path.join(cache, 'inputs.json'));
    prune(cache, digest);
    return entryIn(cache, digest);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * @param {string} cache
 * @param {string} current
 */
function prune(cache, current) {
  const now = Date.now();
  const bundles = readdirSync(cache)
    .filter((name) => name !== current && /^[0-9a-f]{24}$/.test(name))
    .map((name) => ({ name, at: statSync(path.join(cache, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { name, at } of bundles.slice(KEEP_NEWEST - 1)) {
    if (now - at > PRUNE_AFTER_MS) rmSync(path.join(cache, name), { recursive: true, force: true });
  }
  // What a build killed half-way left.
  for (const name of readdirSync(cache).filter((n) => n.startsWith('.building-') || n.startsWith('.inputs-'))) {
    const file = path.join(cache, name);
    if (now - statSync(file).mtimeMs > 3600 * 1000) rmSync(file, { recursive: true, force: true });
  }
}
