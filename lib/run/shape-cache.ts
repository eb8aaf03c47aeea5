import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fromRoot } from '../foundation/paths.ts';

/**
 * The case shapes of a profile (lib/run/dry-run.ts shapeOf), kept on disk between processes: every run
 * plans its profile's cases again, and a dry run of every case costs about a second of CPU that gives the
 * same answer each time. A shape is a function of the profile, the case and the harness's own files, so
 * it is kept under a fingerprint of those files (lib, schemas, fixtures, the lockfile): any change to them
 * is a new fingerprint, and the older ones are removed. Where the directory cannot be written (a read-only
 * install) nothing is kept and nothing is said. ISWC_SHAPE_CACHE=0 turns it off (a measurement of the
 * planner's own time). Delete node_modules/.cache/iswc-conformance freely.
 */

type Json = unknown;

const ROOT = fromRoot('node_modules', '.cache', 'iswc-conformance', 'shapes');
/** The harness's files a shape depends on. */
const SOURCES = ['lib', 'schemas', 'fixtures'];

let fingerprintMemo: string | undefined;

/** A hash of every file the planner's answers depend on: the harness's code, schemas and fixtures, and the lockfile. */
export function harnessFingerprint(): string {
  fingerprintMemo ??= filesFingerprint(fromRoot(), [...SOURCES, 'package-lock.json']);
  return fingerprintMemo;
}

/** A hash of the files under `root` at these paths (folders walked in name order; a missing path counts as none), those `keep` keeps. */
export function filesFingerprint(root: string, paths: readonly string[], keep: (rel: string) => boolean = () => true): string {
  const hash = createHash('sha256');
  const add = (rel: string): void => {
    const file = path.join(root, rel);
    if (!keep(rel.split(path.sep).join('/'))) return;
    let text: Buffer;
    try {
      text = readFileSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EISDIR') for (const name of readdirSync(file).sort()) add(path.join(rel, name));
      return;
    }
    hash.update(rel).update('\u0000').update(text).update('\u0000');
  };
  for (const rel of paths) add(rel);
  return hash.digest('hex').slice(0, 24);
}

function enabled(): boolean {
  return process.env.ISWC_SHAPE_CACHE?.trim() !== '0';
}

interface Store {
  file: string;
  shapes: Map<string, Json>;
  dirty: boolean;
}

const stores = new Map<string, Store>();

function storeOf(profileKey: string): Store | undefined {
  if (!enabled()) return undefined;
  let store = stores.get(profileKey);
  if (store) return store;
  const file = path.join(ROOT, harnessFingerprint(), `${profileKey.slice(0, 32)}.json`);
  const shapes = new Map<string, Json>();
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { profile?: string; shapes?: Record<string, Json> };
    if (saved.profile === profileKey && saved.shapes) for (const [k, v] of Object.entries(saved.shapes)) shapes.set(k, v);
  } catch {
    // none yet, or unreadable: computed again
  }
  store = { file, shapes, dirty: false };
  stores.set(profileKey, store);
  return store;
}

/** The shape kept for this case of this profile, or undefined. A fresh copy: the caller may keep it. */
export function keptShape<T>(profileKey: string, key: string): T | undefined {
  const found = storeOf(profileKey)?.shapes.get(key);
  return found === undefined ? undefined : (structuredClone(found) as T);
}

/** Keeps a shape computed in this process; written by saveShapes. */
export function keepShape(profileKey: string, key: string, shape: Json): void {
  const store = storeOf(profileKey);
  if (!store) return;
  store.shapes.set(key, structuredClone(shape));
  store.dirty = true;
}

/** Writes the shapes computed since the last save (atomically: a file of its own, renamed), and removes other fingerprints' files. */
export function saveShapes(): void {
  for (const [profileKey, store] of stores) {
    if (!store.dirty) continue;
    store.dirty = false;
    try {
      const dir = path.dirname(store.file);
      const fresh = !existsDir(dir);
      mkdirSync(dir, { recursive: true });
      if (fresh) removeOldFingerprints(path.basename(dir));
      const temp = `${store.file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify({ profile: profileKey, shapes: Object.fromEntries(store.shapes) }));
      renameSync(temp, store.file);
    } catch {
      // not writable: planned again next time
    }
  }
}

function existsDir(dir: string): boolean {
  try {
    readdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/** Fingerprints kept: the current one and a few before it (two checkouts of different code may share node_modules). */
const KEPT_FINGERPRINTS = 4;

function removeOldFingerprints(current: string): void {
  const others = readdirSync(ROOT)
    .filter((name) => name !== current)
    .map((name) => ({ name, at: statSync(path.join(ROOT, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of others.slice(KEPT_FINGERPRINTS - 1)) rmSync(path.join(ROOT, old.name), { recursive: true, force: true });
}
