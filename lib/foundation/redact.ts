/**
 * The one redaction module every writer calls before anything leaves the process (reports, traces,
 * logs, curl lines). It removes the secrets of the run (the subscription key, the values of extra
 * headers, a proxy's credentials) in every form they can take on the wire or in a text artefact, each
 * replaced by its own placeholder, and blanks values of headers and query parameters whose name marks a
 * secret.
 */
import { headerPlaceholder, HEADERS_VARIABLE, parseHeadersVariable } from '../config/headers.ts';
import { proxyCredentials } from '../config/proxy.ts';
import { MAX_RECORD_DEPTH } from '../config/limits.ts';

/** The placeholder that stands for the subscription key in every recorded or written artefact. */
export const KEY_PLACEHOLDER = '$ISWC_SUBSCRIPTION_KEY';
/** The placeholder of the sandbox's key in the client reports: the variable the sandbox reads it from. */
export const SANDBOX_KEY_PLACEHOLDER = '$ISWC_SANDBOX_KEY';
/** The value sent as the key by 'wrong' auth; not a secret, recorded as it is. */
export const WRONG_KEY = 'iswc-conformance-wrong-key-0000';
/** What stands for the key with the case of its letters changed ('key-case' auth) in every artefact. */
export const KEY_CASE_PLACEHOLDER = '$ISWC_SUBSCRIPTION_KEY (letter case changed)';

/**
 * The key with the case of each ASCII letter changed (a wrong key a server comparing without case takes),
 * or undefined when the key has no letter: then no key differs from it by case only.
 */
export function keyWithCaseChanged(key: string): string | undefined {
  const changed = key.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
  return changed === key ? undefined : changed;
}

/**
 * Near misses of the key (issue 28), each a wrong key a server comparing loosely takes: one character more
 * (cut to the key's length), its last character left out (a prefix), its last character changed (all but
 * the last compared), a hyphen inside (separators stripped), two hyphens before it (its tail compared, an
 * `EndsWith` or a scheme such as "Bearer " tolerated; separators stripped too: two, so that text writing the
 * key after a hyphen, `field-<key>`, is still redacted as the key). Each is made from the key, so each is a secret
 * with a placeholder of its own, and a curl line builds it from $ISWC_SUBSCRIPTION_KEY.
 */
export const KEY_NEAR_MISSES = ['key-longer', 'key-shorter', 'key-last-char', 'key-separator', 'key-prefixed'] as const;
export type KeyNearMiss = (typeof KEY_NEAR_MISSES)[number];

export const KEY_NEAR_MISS_PLACEHOLDER: Record<KeyNearMiss, string> = {
  'key-longer': `${KEY_PLACEHOLDER} (one character more)`,
  'key-shorter': `${KEY_PLACEHOLDER} (its last character left out)`,
  'key-last-char': `${KEY_PLACEHOLDER} (its last character changed)`,
  'key-separator': `${KEY_PLACEHOLDER} (a hyphen inserted in the middle)`,
  'key-prefixed': `${KEY_PLACEHOLDER} (two hyphens put before it)`,
};

/** A near miss of the key; undefined where the key is too short to have one (a single character has no prefix). */
export function keyNearMiss(key: string, kind: KeyNearMiss): string | undefined {
  const chars = Array.from(key);
  if (chars.length < 2) return undefined;
  const body = chars.slice(0, -1).join('');
  const last = chars[chars.length - 1];
  switch (kind) {
    case 'key-longer':
      return `${key}0`;
    case 'key-shorter':
      return body;
    case 'key-last-char':
      return `${body}${last === '0' ? '1' : '0'}`;
    case 'key-separator': {
      const middle = Math.floor(chars.length / 2);
      return `${chars.slice(0, middle).join('')}-${chars.slice(middle).join('')}`;
    }
    case 'key-prefixed':
      return `--${key}`;
  }
  return undefined;
}

export interface Redactor {
  /** Replaces every known form of every secret with the placeholder. */
  text(s: string): string;
  /** text() on every value; values of secret-looking header names become `<redacted>`. */
  headers(h: Record<string, string>): Record<string, string>;
  /** text() on the URL; values of secret-looking query parameters (and a URL password) become `<redacted>`. */
  url(u: string): string;
  /**
   * A copy with text() applied to every string (headers() under a `headers` key, url() under a `url` key).
   * What nests deeper than MAX_RECORD_DEPTH is replaced by DEEPER_THAN_RECORDED, never walked: every
   * writer writes what this returns, so none can crash on a value that came too deep.
   */
  deep<T>(value: T): T;
}

export const REDACTED = '<redacted>';
/** What redaction writes in place of a value nested deeper than MAX_RECORD_DEPTH (lib/config/limits.ts). */
export const DEEPER_THAN_RECORDED = `<nested deeper than ${MAX_RECORD_DEPTH} levels: left out>`;
/** Secrets shorter than this are ignored: replacing them would destroy reports and hide nothing. */
export const MIN_SECRET_LENGTH = 4;
/**
 * Values a person chose (extra header values, a proxy password) are searched for in free text from this
 * length on: a short one (`true`, `qa`, `1234`) would replace common words and numbers all over the
 * reports, even break their JSON. Where the harness itself writes such a value (request records, curl
 * lines) it writes the placeholder whatever the length.
 */
export const MIN_CHOSEN_SECRET_LENGTH = 8;

/**
 * Why a subscription key cannot be used, or undefined when it can. The key is replaced by its placeholder
 * wherever it occurs in any output; a short one (`test`, `wrong`) occurs in the harness's own words (step
 * names, case ids, enum values, paths), so replacing it garbles every report and can break their schema,
 * and not replacing it would write the key. So the key is held to the minimum of every chosen secret.
 */
export function shortKeyProblem(variable: string, key: string, remedy: string): string | undefined {
  if (key.length >= MIN_CHOSEN_SECRET_LENGTH) return undefined;
  return `${variable} is ${key.length} character${key.length === 1 ? '' : 's'} long: the key is replaced by ${KEY_PLACEHOLDER} wherever it occurs in the output, and a key this short occurs in the reports' own words, so replacing it would garble them. Use a key of at least ${MIN_CHOSEN_SECRET_LENGTH} characters (API Management keys have 32): ${remedy}.`;
}

/** A secret and what stands for it in every artefact. */
export interface Secret {
  value: string;
  placeholder: string;
}

const SECRET_NAME = /key|token|secret|auth|password|signature|cookie|subscription/i;

/** True when a header or query-parameter name marks its value as a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

function keepsValue(value: string): boolean {
  return value === KEY_PLACEHOLDER || value === KEY_CASE_PLACEHOLDER || value === SANDBOX_KEY_PLACEHOLDER || value === WRONG_KEY || value === REDACTED || /^\$ISWC_HEADER_[A-Z0-9_]+$/.test(value);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function htmlEscape(s: string, apos: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, apos);
}

/** The forms a secret can take in a text artefact. */
function formsOf(secret: string): string[] {
  const forms = new Set<string>([secret]);
  let uri: string | undefined;
  try {
    uri = encodeURIComponent(secret);
  } catch {
    uri = undefined; // lone surrogates: no URL-encoded form exists
  }
  if (uri !== undefined) {
    forms.add(uri);
    forms.add(uri.replace(/%20/g, '+'));
    forms.add(new URLSearchParams([['k', secret]]).toString().slice(2));
    forms.add(encodeURI(secret));
  }
  const json = JSON.stringify(secret).slice(1, -1);
  forms.add(json);
  // JSON written with every non-ASCII character escaped.
  forms.add(json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  const bytes = Buffer.from(secret, 'utf8');
  const b64 = bytes.toString('base64');
  forms.add(b64);
  forms.add(b64.replace(/=+$/, ''));
  forms.add(bytes.toString('base64url'));
  forms.add(htmlEscape(secret, '&#39;'));
  forms.add(htmlEscape(secret, '&#x27;'));
  forms.add(htmlEscape(secret, '&apos;'));
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

/** Regex source of one form; percent escapes match in either hex case. */
function patternOf(form: string): string {
  return escapeRegExp(form).replace(/%([0-9A-F])([0-9A-F])/g, (_m, a: string, b: string) => {
    const cls = (c: string): string => (/[A-F]/.test(c) ? `[${c}${c.toLowerCase()}]` : c);
    return `%${cls(a)}${cls(b)}`;
  });
}

function redactQueryValues(query: string): string {
  return query
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq < 0) return part;
      const rawName = part.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        name = rawName;
      }
      const rawValue = part.slice(eq + 1);
      let value = rawValue;
      try {
        value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
      } catch {
        value = rawValue;
      }
      if (!isSecretName(name) || keepsValue(value) || keepsValue(rawValue)) return part;
      return `${rawName}=${REDACTED}`;
    })
    .join('&');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Percent escapes in upper case: the one spelling a matched form is looked up by. */
const upperEscapes = (s: string): string => s.replace(/%[0-9a-f]{2}/gi, (m) => m.toUpperCase());

/** What the harness sends on purpose in place of the key, each made from it and so a secret too: its case-changed twin, its near misses. */
export function keyTwins(key: string): Secret[] {
  const twin = keyWithCaseChanged(key);
  const misses = KEY_NEAR_MISSES.flatMap((kind): Secret[] => {
    const value = keyNearMiss(key, kind);
    return value !== undefined ? [{ value, placeholder: KEY_NEAR_MISS_PLACEHOLDER[kind] }] : [];
  });
  return [...(twin !== undefined ? [{ value: twin, placeholder: KEY_CASE_PLACEHOLDER }] : []), ...misses];
}

/** A redactor for these secrets; a plain string is a subscription key (placeholder $ISWC_SUBSCRIPTION_KEY). */
export function createRedactor(secrets: ReadonlyArray<string | Secret>): Redactor {
  const placeholderOf = new Map<string, string>();
  // A key's case-changed twin is sent on purpose ('key-case' auth) and carries the key's letters: a secret too.
  // Its near misses too ('key-longer', … auth): each carries all but at most one character of the key.
  const twins = secrets.flatMap((s): Secret[] => (typeof s === 'string' ? keyTwins(s) : []));
  secrets = [...secrets, ...twins];
  for (const secret of secrets) {
    const { value, placeholder } = typeof secret === 'string' ? { value: secret, placeholder: KEY_PLACEHOLDER } : secret;
    if (value.length < MIN_SECRET_LENGTH) continue;
    for (const form of formsOf(value)) if (!placeholderOf.has(upperEscapes(form))) placeholderOf.set(upperEscapes(form), placeholder);
  }
  const forms = [...new Set(secrets.map((s) => (typeof s === 'string' ? s : s.value)).filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap(formsOf))];
  // Longest first, so that an alternative never stops inside a longer form of the same secret.
  forms.sort((a, b) => b.length - a.length);
  const pattern = forms.length > 0 ? new RegExp(forms.map(patternOf).join('|'), 'g') : undefined;

  const text = (s: string): string => (pattern && s.length >= MIN_SECRET_LENGTH ? s.replace(pattern, (m) => placeholderOf.get(upperEscapes(m)) ?? KEY_PLACEHOLDER) : s);

  const headerValue = (name: string, value: string): string => {
    const v = text(value); // the known key becomes the placeholder, which is then kept
    if (isSecretName(name) && !keepsValue(v)) return REDACTED;
    return v;
  };

  const headers = (h: Record<string, string>): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(h)) out[text(name)] = headerValue(name, value);
    return out;
  };

  const url = (u: string): string => {
    // Secrets first (a raw key may itself contain '&' or '='), then names.
    let out = text(u);
    // A password in the authority part.
    out = out.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):([^/?#@]*)@/i, (_m, user: string) => `${user}:${REDACTED}@`);
    const q = out.indexOf('?');
    if (q >= 0) {
      const hash = out.indexOf('#', q);
      const query = hash >= 0 ? out.slice(q + 1, hash) : out.slice(q + 1);
      const rest = hash >= 0 ? out.slice(hash) : '';
      out = `${out.slice(0, q + 1)}${redactQueryValues(query)}${rest}`;
    }
    return out;
  };

  const walk = (value: unknown, parentKey: string | undefined, seen: WeakMap<object, unknown>, depth: number): unknown => {
    if (typeof value === 'string') return parentKey === 'url' ? url(value) : text(value);
    if (depth >= MAX_RECORD_DEPTH && (Array.isArray(value) || isPlainObject(value))) return DEEPER_THAN_RECORDED;
    if (Array.isArray(value)) {
      const known = seen.get(value);
      if (known !== undefined) return known;
      const out: unknown[] = [];
      seen.set(value, out);
      for (const item of value) out.push(walk(item, undefined, seen, depth + 1));
      return out;
    }
    if (isPlainObject(value)) {
      const known = seen.get(value);
      if (known !== undefined) return known;
      const out: Record<string, unknown> = {};
      seen.set(value, out);
      const isHeaders = parentKey !== undefined && parentKey.toLowerCase() === 'headers';
      for (const [k, v] of Object.entries(value)) {
        if (isHeaders && typeof v === 'string') out[text(k)] = headerValue(k, v);
        else if (isHeaders && Array.isArray(v)) out[text(k)] = v.map((item) => (typeof item === 'string' ? headerValue(k, item) : walk(item, undefined, seen, depth + 2)));
        else out[text(k)] = walk(v, k, seen, depth + 1);
      }
      return out;
    }
    return value;
  };

  return {
    text,
    headers,
    url,
    deep<T>(value: T): T {
      return walk(value, undefined, new WeakMap(), 0) as T;
    },
  };
}

/** A redactor for the key the configuration holds (ISWC_SUBSCRIPTION_KEY), if one was given. */
export function redactorFor(secretKey: string | undefined): Redactor {
  return createRedactor(secretKey !== undefined && secretKey !== '' ? [secretKey] : []);
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The secrets of a run's environment: ISWC_SUBSCRIPTION_KEY, the values of ISWC_HEADERS (as
 * `$ISWC_HEADER_<NAME>`, from MIN_CHOSEN_SECRET_LENGTH on) and the credentials of every proxy variable
 * set (as `<redacted>`). Read leniently: a setting that cannot be read (the very error being reported)
 * contributes nothing instead of throwing.
 */
export function runSecrets(env: Env = process.env): Secret[] {
  const secrets: Secret[] = [];
  const key = env.ISWC_SUBSCRIPTION_KEY?.trim();
  if (key) secrets.push({ value: key, placeholder: KEY_PLACEHOLDER });
  if (key) secrets.push(...keyTwins(key));
  const headersText = env[HEADERS_VARIABLE]?.trim();
  if (headersText) {
    try {
      secrets.push(...headerSecrets(parseHeadersVariable(headersText)));
    } catch {
      // Nothing was sent with headers that cannot be read, and the error names none of their values.
    }
  }
  for (const credentials of proxyCredentials(env)) secrets.push(...proxySecrets(credentials));
  return secrets;
}

/**
 * A proxy's credentials as secrets: user:password (what a Basic Proxy-Authorization carries, base64 and
 * all) and the password alone from MIN_CHOSEN_SECRET_LENGTH on, each shown as `<redacted>`.
 */
export function proxySecrets(credentials: { password: string; userPassword: string } | undefined): Secret[] {
  if (!credentials) return [];
  const out: Secret[] = [{ value: credentials.userPassword, placeholder: REDACTED }];
  if (credentials.password.length >= MIN_CHOSEN_SECRET_LENGTH) out.push({ value: credentials.password, placeholder: REDACTED });
  return out;
}

/** Extra header values as secrets, each shown as `$ISWC_HEADER_<NAME>`, from MIN_CHOSEN_SECRET_LENGTH on. */
export function headerSecrets(headers: ReadonlyArray<{ readonly name: string; readonly value: string }>): Secret[] {
  return headers.filter((h) => h.value.length >= MIN_CHOSEN_SECRET_LENGTH).map((h) => ({ value: h.value, placeholder: headerPlaceholder(h.name) }));
}

/** The redactor of this process's environment (every writer, the console, the CLI's messages). */
export function redactorFromEnv(env: Env = process.env): Redactor {
  return createRedactor(runSecrets(env));
}
