import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A subscription key per agency, for a replay against a build whose key acts for one agency only: each
 * agency's requests go with its own key. Read from a file (--agency-keys FILE, ISWC_AGENCY_KEYS) and from
 * variables ISWC_SUBSCRIPTION_KEY_<agency> (ISWC_SUBSCRIPTION_KEY_058); a variable wins over the file.
 * Never from the sessions, never printed: messages name the agency and where its key came from, never
 * the key.
 */

export const AGENCY_KEY_PREFIX = 'ISWC_SUBSCRIPTION_KEY_';

/** A problem with the keys (the file, the line, what is wrong): exit 2, before anything is sent. */
export class AgencyKeysError extends Error {}

const AGENCY = /^[A-Za-z0-9]{3}$/;
const MIN_KEY = 8;

function check(agency: string, key: string, where: string): void {
  if (!AGENCY.test(agency)) throw new AgencyKeysError(`${where}: "${agency.slice(0, 20)}" is not an agency code (3 characters, e.g. 058)`);
  if (key.length < MIN_KEY) throw new AgencyKeysError(`${where}: the key of agency ${agency} has fewer than ${MIN_KEY} characters (API Management keys have 32): check the value`);
  if (/[\r\n\0]/.test(key)) throw new AgencyKeysError(`${where}: the key of agency ${agency} holds a line break or a control character`);
}

/**
 * The keys a file holds: a JSON object {"058": "…", "021": "…"}, or lines `058=…` (also `058: …`; blank
 * lines and lines starting with # are left out).
 */
export function parseAgencyKeys(text: string, shown: string): Map<string, string> {
  const keys = new Map<string, string>();
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      throw new AgencyKeysError(`${shown}: not JSON; write {"058": "<key>"} or one line 058=<key> per agency`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new AgencyKeysError(`${shown}: not an object of agency → key`);
    for (const [agency, key] of Object.entries(value as Record<string, unknown>)) {
      if (typeof key !== 'string') throw new AgencyKeysError(`${shown}: the key of agency ${agency} is not a string`);
      check(agency, key.trim(), shown);
      keys.set(agency, key.trim());
    }
    return keys;
  }
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^([^=:\s]+)\s*[=:]\s*(.*)$/.exec(line);
    const where = `${shown} (line ${i + 1})`;
    if (!m) throw new AgencyKeysError(`${where}: write one line 058=<key> per agency`);
    const [, agency = '', key = ''] = m;
    const value = key.trim().replace(/^(['"])(.*)\1$/, '$2');
    check(agency, value, where);
    if (keys.has(agency)) throw new AgencyKeysError(`${where}: agency ${agency} is given twice`);
    keys.set(agency, value);
  });
  return keys;
}

export interface AgencyKeys {
  keys: Map<string, string>;
  /** Where each agency's key came from (the file, or its variable), for the output: never the key. */
  from: Map<string, string>;
}

/**
 * The agency keys of a replay. `file`: --agency-keys or ISWC_AGENCY_KEYS, resolved from `cwd`;
 * `sessions`: the --sessions folder, which must not hold the file.
 */
export function readAgencyKeys(file: string | undefined, env: NodeJS.ProcessEnv, cwd: string, sessions: string): AgencyKeys {
  const keys = new Map<string, string>();
  const from = new Map<string, string>();
  if (file !== undefined) {
    const full = path.resolve(cwd, file);
    const inside = path.relative(path.resolve(cwd, sessions), full);
    if (inside === '' || (!inside.startsWith('..') && !path.isAbsolute(inside))) throw new AgencyKeysError(`--agency-keys ${file}: the keys file is under --sessions; keep keys apart from the recorded traffic (a session file holding a key is refused)`);
    let text: string;
    try {
      text = readFileSync(full, 'utf8');
    } catch (e) {
      throw new AgencyKeysError(`--agency-keys ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    for (const [agency, key] of parseAgencyKeys(text, `--agency-keys ${file}`)) {
      keys.set(agency, key);
      from.set(agency, file);
    }
  }
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(AGENCY_KEY_PREFIX) || value === undefined || value.trim() === '') continue;
    const agency = name.slice(AGENCY_KEY_PREFIX.length);
    check(agency, value.trim(), name);
    keys.set(agency, value.trim());
    from.set(agency, name);
  }
  return { keys, from };
}
