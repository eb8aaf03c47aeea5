import { isSecretName } from '../foundation/redact.ts';

/**
 * Recorded traffic is a file people hand over: it must hold no key and no credential in clear. A value
 * stands for a secret without being one when it is a placeholder: `<redacted>` (what this tool writes),
 * a variable (`$ISWC_SANDBOX_KEY`, `${KEY}`, `{{key}}`), a marker (`REDACTED`, `[hidden]`, `***`,
 * `xxxx`), or empty. Anything else in a header, a cookie or a query parameter whose name marks a secret
 * (subscription key, Authorization, Cookie, Set-Cookie, token, password, signature, …) is a credential in
 * clear, and the input is refused where it is read.
 */

const PLACEHOLDER = /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{[^{}]{1,60}\}\}|<[^<>]{1,60}>|\[[^[\]]{1,60}\]|\*+|x{3,}|X{3,}|(?:redacted|removed|hidden|masked|sanitized|omitted|secret)(?:[ _-]?value)?)$/i;

/** Names a secret's value may go by besides those isSecretName knows (API Management's query key, Azure Functions' `code`, SAS signatures). */
const MORE_SECRET_NAMES = /^(?:code|sig|apikey|api_key|access_token|id_token|refresh_token|client_secret)$/i;

/** Headers whose names look secret but carry none: a challenge names a scheme, never a credential. */
const NOT_SECRET_HEADERS = new Set(['www-authenticate', 'proxy-authenticate']);

/** Is this value a placeholder for a secret rather than the secret itself? */
export function isPlaceholder(value: string): boolean {
  const v = value.trim();
  if (v === '') return true;
  if (PLACEHOLDER.test(v)) return true;
  // `Bearer <redacted>`, `Basic ***`: a scheme, then a placeholder.
  const scheme = /^[A-Za-z][A-Za-z0-9._-]*\s+(.+)$/.exec(v);
  return scheme !== null && PLACEHOLDER.test((scheme[1] ?? '').trim());
}

/** Does this header or query-parameter name mark a secret? */
export function namesSecret(name: string, kind: 'header' | 'query'): boolean {
  const lower = name.trim().toLowerCase();
  if (kind === 'header' && NOT_SECRET_HEADERS.has(lower)) return false;
  return isSecretName(lower) || MORE_SECRET_NAMES.test(lower);
}

/** A cookie header's pairs (Cookie: a=1; b=2, or one Set-Cookie: a=1; Path=/): the values only, never the attributes of a Set-Cookie. */
function cookieValues(name: string, value: string): Array<{ name: string; value: string }> {
  const lower = name.toLowerCase();
  if (lower === 'cookie') {
    return value
      .split(';')
      .map((p) => p.trim())
      .filter(Boolean)
      .map((p) => ({ name: p.slice(0, Math.max(0, p.indexOf('='))) || p, value: p.includes('=') ? p.slice(p.indexOf('=') + 1) : '' }));
  }
  // Set-Cookie: the first pair is the cookie; what follows ; are attributes (Path, Expires, …). Joined ones are split on ", name=".
  return value
    .split(/,\s*(?=[^;,=\s]+=)/)
    .map((c) => c.split(';')[0]?.trim() ?? '')
    .filter(Boolean)
    .map((p) => ({ name: p.slice(0, Math.max(0, p.indexOf('='))) || p, value: p.includes('=') ? p.slice(p.indexOf('=') + 1) : '' }));
}

export interface Credential {
  /** Where: `request header Ocp-Apim-Subscription-Key`, `query parameter subscription-key`, `response cookie ARRAffinity`. */
  where: string;
}

/** The first credential in clear among headers (request or response side), or undefined. */
export function credentialInHeaders(headers: Readonly<Record<string, string>>, side: 'request' | 'response'): Credential | undefined {
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'cookie' || lower === 'set-cookie') {
      for (const c of cookieValues(lower, value)) if (!isPlaceholder(c.value)) return { where: `${side} cookie ${c.name} (${name} header)` };
      continue;
    }
    if (namesSecret(lower, 'header') && !isPlaceholder(value)) return { where: `${side} header ${name}` };
  }
  return undefined;
}

/** The first credential in clear in a request target's query, or undefined. */
export function credentialInQuery(target: string): Credential | undefined {
  const q = target.indexOf('?');
  if (q < 0) return undefined;
  for (const part of target.slice(q + 1).split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    let name = rawName;
    let value = rawValue;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    } catch {
      // Left as written: the raw form is judged.
    }
    if (namesSecret(name, 'query') && !isPlaceholder(value)) return { where: `query parameter ${name}` };
  }
  return undefined;
}

/** What to do about a credential in clear, for the error every reader gives. */
export function credentialRemedy(format: 'har' | 'jsonl'): string {
  const how =
    format === 'har'
      ? `replace each such value with <redacted> before handing the file over, e.g. jq '(.log.entries[].request.headers[] | select(.name | test("^(ocp-apim-subscription-key|authorization|cookie)$"; "i")) | .value) |= "<redacted>" | (.log.entries[].response.headers[] | select(.name | test("^set-cookie$"; "i")) | .value) |= "<redacted>" | (.log.entries[].request.cookies, .log.entries[].response.cookies) |= []' in.har > out.har (browsers' "Export HAR (sanitized)" removes cookies and Authorization, not the subscription key)`
      : 'export the log with each such value written as <redacted> (the sandbox writes its key as $ISWC_SANDBOX_KEY, any other as <redacted>)';
  return `nothing was read or sent: ${how}`;
}
