/**
 * The curl line that replays a request: one line of POSIX shell, copy-pasteable. The subscription key
 * is written as "$ISWC_SUBSCRIPTION_KEY", an extra header's value as "$ISWC_HEADER_<NAME>" and the proxy
 * a run went through as its variable ("$HTTPS_PROXY", which holds its credentials) (double quotes, so
 * the shell expands them); the CA file it trusted comes with --cacert; everything else is single-quoted. A body that cannot be written inside a one-line shell string (control bytes such as
 * NUL or newline, or bytes that are not UTF-8) is produced by printf with octal escapes and piped to
 * curl (`printf '...' | curl ... --data-binary @-`), which keeps every byte, trailing newlines included.
 */
import { KEY_PLACEHOLDER } from '../../contract/exchange.ts';
import type { KeyNearMiss } from '../../contract/exchange.ts';

/** A header and its value, or the shell variable that holds its value (a secret the line must not write). */
export type CurlHeader = readonly [string, string | { variable: string }];

export interface CurlParts {
  method: string;
  /** Full URL, as the client requests it. */
  url: string;
  /** Headers in order, without the key header. */
  headers: ReadonlyArray<CurlHeader>;
  /** The key header: its name, and either the real key (written as $ISWC_SUBSCRIPTION_KEY) or a literal value. */
  key?: { name: string; value: 'env' | 'env-case-changed' | `env-${KeyNearMiss}` | { literal: string } };
  body?: Uint8Array;
  /** The proxy the run went through, as the variable that holds it (`-x "$HTTPS_PROXY"`: its credentials stay there). */
  proxyVariable?: string;
  /** The CA file the run trusted (NODE_EXTRA_CA_CERTS): `--cacert FILE`. */
  caFile?: string;
}

/** POSIX single-quoting: 'it'\''s'. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** True when the bytes can be written literally inside a one-line single-quoted shell string. */
function isLiteralSafe(bytes: Uint8Array): boolean {
  for (const b of bytes) {
    if (b < 0x20 || b === 0x7f) return false;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A printf format that writes exactly `bytes`, single-quoted. */
export function printfFormat(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x25) out += '%%';
    else if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b < 0x7f && b !== 0x27) out += String.fromCharCode(b);
    else out += `\\${b.toString(8).padStart(3, '0')}`;
  }
  return `'${out}'`;
}

const KEY_ENV = KEY_PLACEHOLDER.slice(1); // ISWC_SUBSCRIPTION_KEY

/**
 * The key, and every twin of it a case sends on purpose, as a POSIX shell expression inside double quotes,
 * made from the variable so that no key is ever written: the case-changed key, and the near misses of
 * lib/foundation/redact.ts (one character more, the last left out, the last changed, a hyphen inside, two
 * hyphens before it).
 */
const KEY_EXPRESSION: Record<'env' | 'env-case-changed' | `env-${KeyNearMiss}`, string> = {
  env: `$${KEY_ENV}`,
  'env-case-changed': `$(printf %s "$${KEY_ENV}" | tr a-zA-Z A-Za-z)`,
  'env-key-longer': `\${${KEY_ENV}}0`,
  'env-key-shorter': `\${${KEY_ENV}%?}`,
  'env-key-last-char': `$(k=$${KEY_ENV}; case $k in *0) printf %s1 "\${k%?}" ;; *) printf %s0 "\${k%?}" ;; esac)`,
  'env-key-separator': `$(k=$${KEY_ENV}; n=$((\${#k} / 2)); printf %s-%s "$(printf %s "$k" | cut -c1-$n)" "$(printf %s "$k" | cut -c$((n + 1))-)")`,
  'env-key-prefixed': `--$${KEY_ENV}`,
};

function headerArg(name: string, value: string | { variable: string }): string {
  // The name is single-quoted (a token may hold $ or `), the variable double-quoted so that the shell expands it.
  if (typeof value !== 'string') return /^[A-Za-z0-9-]+$/.test(name) ? `-H "${name}: $${value.variable}"` : `-H ${shellQuote(`${name}: `)}"$${value.variable}"`;
  // curl drops a header given as 'Name:'; 'Name;' sends it with an empty value.
  return `-H ${shellQuote(value === '' ? `${name};` : `${name}: ${value}`)}`;
}

export function curlCommand(parts: CurlParts): string {
  const method = parts.method;
  const args: string[] = ['curl', '-sS'];
  if (method.toUpperCase() === 'HEAD') {
    args.push('-I');
    if (method !== 'HEAD') args.push('-X', shellQuote(method));
  } else {
    args.push('-i', '-X', /^[A-Za-z]+$/.test(method) ? method : shellQuote(method));
  }
  // No URL globbing ([], {}), no dot-segment squashing: the request goes out as the client sent it.
  if (/[[\]{}]/.test(parts.url)) args.push('-g');
  if (/\/\.\.?(?:[/?#]|$)/.test(parts.url)) args.push('--path-as-is');
  args.push(shellQuote(parts.url));
  // The way the run went: its proxy (read from the variable, so that no credential is written) and its CA.
  if (parts.proxyVariable !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(parts.proxyVariable)) args.push('-x', `"$${parts.proxyVariable}"`);
  if (parts.caFile !== undefined) args.push('--cacert', shellQuote(parts.caFile));
  const names = new Set(parts.headers.map(([n]) => n.toLowerCase()));
  if (parts.key) {
    const { name, value } = parts.key;
    // The key with the case of its letters changed is made from the variable too, never written.
    args.push(typeof value === 'string' ? `-H "${name}: ${KEY_EXPRESSION[value]}"` : headerArg(name, value.literal));
  }
  for (const [name, value] of parts.headers) args.push(headerArg(name, value));
  // curl adds headers of its own; the client sends neither of these.
  if (!names.has('accept')) args.push(`-H 'Accept:'`);
  let pipe = '';
  if (parts.body !== undefined && parts.body.length > 0) {
    // --data-binary would otherwise add Content-Type: application/x-www-form-urlencoded.
    if (!names.has('content-type')) args.push(`-H 'Content-Type:'`);
    // A literal starting with '@' would be read by curl as a file name.
    if (isLiteralSafe(parts.body) && parts.body[0] !== 0x40) {
      args.push('--data-binary', shellQuote(Buffer.from(parts.body).toString('utf8')));
    } else {
      pipe = `printf ${printfFormat(parts.body)} | `;
      args.push('--data-binary', '@-');
    }
  } else if (parts.body !== undefined && !/^(GET|HEAD|DELETE|OPTIONS)$/i.test(method)) {
    // An empty body on POST/PUT/PATCH: Content-Length: 0, as the client sends it.
    if (!names.has('content-type')) args.push(`-H 'Content-Type:'`);
    args.push('--data-binary', `''`);
  }
  return pipe + args.join(' ');
}
