import { ConfigError } from './errors.ts';

/**
 * Which proxy, if any, the run reaches its base URL through: HTTPS_PROXY, HTTP_PROXY and NO_PROXY read
 * by the rules of undici's EnvHttpProxyAgent (the lower-case variable wins whenever it is set, even
 * empty; an https:// target without an HTTPS proxy goes through the HTTP one; NO_PROXY entries are host
 * names, domain suffixes (`.corp.example`, `*.corp.example`), `host:port`, or `*` alone), decided once
 * for the one origin the harness talks to, so that the run can say which way it went and keep its plain
 * connection pool when no proxy applies.
 */

type Env = Readonly<Record<string, string | undefined>>;

export interface ProxyRoute {
  /** The proxy URL as given (credentials included): only the HTTP client's dispatcher holds it. */
  readonly uri: string;
  /** scheme://host:port of the proxy, never its credentials: what reports and messages show. */
  readonly shown: string;
  /** The variable it came from, as spelled in the environment (https_proxy, HTTPS_PROXY, http_proxy, HTTP_PROXY). */
  readonly variable: string;
  /** https:// targets: a CONNECT tunnel (the proxy sees host and port only); http:// targets through an http:// proxy: absolute-form requests. */
  readonly mode: 'connect' | 'absolute-form';
}

export interface NetworkRoute {
  /** The proxy the base URL is reached through, or null for a direct connection. */
  readonly proxy: ProxyRoute | null;
  /** Why the connection is direct although a proxy variable is set (a NO_PROXY entry, the embedded server). */
  readonly bypass?: string;
}

export const DIRECT: NetworkRoute = Object.freeze({ proxy: null });

/** The proxy variable that applies to a scheme, as undici reads it: lower case first, HTTPS falling back to HTTP. */
function proxyVariable(protocol: string, env: Env): { variable: string; value: string } | undefined {
  const pick = (lower: string, upper: string): { variable: string; value: string | undefined } =>
    env[lower] !== undefined ? { variable: lower, value: env[lower] } : { variable: upper, value: env[upper] };
  const http = pick('http_proxy', 'HTTP_PROXY');
  const https = pick('https_proxy', 'HTTPS_PROXY');
  const chosen = protocol === 'https:' && https.value ? https : http;
  return chosen.value ? { variable: chosen.variable, value: chosen.value } : undefined;
}

interface NoProxyEntry {
  text: string;
  hostname: string;
  port: number;
}

function noProxyEntries(value: string): NoProxyEntry[] {
  const out: NoProxyEntry[] = [];
  for (const text of value.split(/[,\s]/)) {
    if (!text) continue;
    const parsed = /^(.+):(\d+)$/.exec(text);
    out.push({ text, hostname: (parsed?.[1] ?? text).replace(/^\*?\./, '').toLowerCase(), port: parsed?.[2] ? Number.parseInt(parsed[2], 10) : 0 });
  }
  return out;
}

/** The NO_PROXY entry that sends this URL direct, or undefined when it goes through the proxy. */
export function noProxyMatch(url: URL, env: Env): string | undefined {
  const value = env.no_proxy ?? env.NO_PROXY ?? '';
  if (value === '*') return '*';
  // Brackets of an IPv6 address are kept, as undici keeps them: write [::1] in NO_PROXY.
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of noProxyEntries(value)) {
    if (entry.port && entry.port !== port) continue;
    if (hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`)) return entry.text;
  }
  return undefined;
}

/** The proxy URL of a variable; a value without a scheme is http:// (`proxy.corp:3128`, as curl reads it). */
export function parseProxyUrl(value: string, variable: string): URL {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${variable} is not a proxy URL (expected http://[user:password@]host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${variable}: a proxy at ${url.protocol}// is not supported; give an http:// or https:// proxy (http://[user:password@]host:port)`);
  }
  if (url.hostname === '') throw new ConfigError(`${variable} names no proxy host (expected http://[user:password@]host:port)`);
  return url;
}

/** scheme://host:port, never the credentials. */
export function shownProxy(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/**
 * How the run reaches `baseUrl`; `undefined` (the embedded reference server, in this process) is never
 * proxied: a proxy elsewhere could not reach it.
 */
export function resolveNetworkRoute(baseUrl: string | undefined, env: Env): NetworkRoute {
  if (baseUrl === undefined) {
    const set = proxyVariable('http:', env) ?? proxyVariable('https:', env);
    return set ? { proxy: null, bypass: `the embedded reference server runs in this process (${set.variable} is not used for it)` } : DIRECT;
  }
  const url = new URL(baseUrl);
  const chosen = proxyVariable(url.protocol, env);
  if (!chosen) return DIRECT;
  const entry = noProxyMatch(url, env);
  if (entry !== undefined) return { proxy: null, bypass: `NO_PROXY entry "${entry}" matches ${url.host} (${chosen.variable} is not used for it)` };
  const proxy = parseProxyUrl(chosen.value, chosen.variable);
  // undici sends absolute-form requests only for an http:// target through an http:// proxy; it tunnels the rest.
  const mode = url.protocol === 'http:' && proxy.protocol === 'http:' ? 'absolute-form' : 'connect';
  return { proxy: { uri: proxy.href, shown: shownProxy(proxy), variable: chosen.variable, mode } };
}

/**
 * The credentials of every proxy variable set (decoded password, and user:password as a Basic
 * Proxy-Authorization carries it), whether or not it applies to this run: each is redacted like the key.
 */
export function proxyCredentials(env: Env): Array<{ password: string; userPassword: string }> {
  const out: Array<{ password: string; userPassword: string }> = [];
  for (const variable of ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY']) {
    const value = env[variable];
    if (!value) continue;
    let url: URL;
    try {
      url = parseProxyUrl(value, variable);
    } catch {
      continue;
    }
    const credentials = credentialsOf(url);
    if (credentials) out.push(credentials);
  }
  return out;
}

/** A proxy URL's credentials, decoded as undici decodes them for Proxy-Authorization; undefined without a password. */
export function credentialsOf(url: URL): { password: string; userPassword: string } | undefined {
  if (url.password === '') return undefined;
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const password = decode(url.password);
  return { password, userPassword: `${decode(url.username)}:${password}` };
}

/** One line for the console: which way the run reaches its target, or undefined when nothing is to say. */
export function describeRoute(route: NetworkRoute): string | undefined {
  if (route.proxy) {
    const how = route.proxy.mode === 'connect' ? 'CONNECT tunnel: the proxy sees host and port only' : 'absolute-form requests: the proxy sees every request';
    return `through the proxy ${route.proxy.shown} (${route.proxy.variable}; ${how})`;
  }
  return route.bypass !== undefined ? `no proxy: ${route.bypass}` : undefined;
}
