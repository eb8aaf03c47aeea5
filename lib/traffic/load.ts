import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { shownPath } from '../foundation/paths.ts';
import { readHar } from './har.ts';
import { readTrafficLog } from './jsonl.ts';
import type { TrafficSession } from './model.ts';
import { TrafficError } from './model.ts';

/**
 * The sessions of a folder (or one file): every `.jsonl` or `.ndjson` file (sandbox sessions, gateway
 * logs: schemas/traffic-log.schema.json) and every `.har` file (or `.json` holding a HAR), in sub-folders
 * too (a sandbox's report folder per agency). Other files (reports, certificates) are left aside.
 */

export interface LoadedSessions {
  sessions: TrafficSession[];
  /** Files read, as shown. */
  files: string[];
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const full = path.join(dir, name);
    const st = statSync(full);
    if (st.isDirectory()) out.push(...filesUnder(full));
    else if (st.isFile()) out.push(full);
  }
  return out;
}

function isHarText(text: string): boolean {
  try {
    const value = JSON.parse(text) as { log?: { entries?: unknown } };
    return Array.isArray(value?.log?.entries);
  } catch {
    return false;
  }
}

/** Reads one file's sessions, or none when it is no traffic file. */
export function readTrafficFile(file: string, cwd: string): TrafficSession[] | undefined {
  const shown = shownPath(file, cwd);
  const ext = path.extname(file).toLowerCase();
  if (ext !== '.jsonl' && ext !== '.ndjson' && ext !== '.har' && ext !== '.json') return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new TrafficError(shown, '', `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, 'check the path and its permissions');
  }
  if (ext === '.har' || (ext === '.json' && isHarText(text))) return readHar(shown, text, path.dirname(file));
  if (ext === '.json') return undefined;
  return readTrafficLog(shown, text);
}

/** Every session under `where` (a folder or a file). Throws TrafficError when none is there, or one cannot be read. */
export function loadSessions(where: string, cwd: string): LoadedSessions {
  const full = path.resolve(cwd, where);
  let st;
  try {
    st = statSync(full);
  } catch {
    throw new TrafficError(shownPath(full, cwd), '', 'no such file or folder', 'give the folder of the agencies\' sessions (.jsonl, .har)');
  }
  const candidates = st.isDirectory() ? filesUnder(full) : [full];
  const sessions: TrafficSession[] = [];
  const files: string[] = [];
  for (const file of candidates) {
    const read = readTrafficFile(file, cwd);
    if (read === undefined) continue;
    files.push(shownPath(file, cwd));
    sessions.push(...read.filter((s) => s.exchanges.length > 0));
  }
  if (sessions.length === 0) {
    throw new TrafficError(
      shownPath(full, cwd),
      '',
      files.length === 0 ? 'holds no session: no .jsonl, .ndjson or .har file' : `holds no exchange in ${files.length} file(s)`,
      'record sessions with the sandbox (client-session.jsonl beside its reports), or add HAR files or a gateway log in JSON lines (schemas/traffic-log.schema.json)',
    );
  }
  // Ids unique across files of the same name in different folders (shownPath differs), and within a file (readers number them).
  return { sessions, files };
}
