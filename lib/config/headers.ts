import { ConfigError } from './errors.ts';

/**
 * Extra request headers (`--header 'Name: value'`, ISWC_HEADERS): what a company gateway in front of the
 * target may need besides the subscription key (a trace id, a gateway token). They go on every request
 * to the base URL's origin and nowhere else, and their values are secrets of the run: every record and
 * curl line shows `$ISWC_HEADER_<NAME>` instead. Headers the harness or HTTP framing owns are refused.
 *
 * ISWC_HEADERS holds them as one JSON object of strings, `{"X-Correlation-Id": "abc"}`: JSON carries any
 * value (colons, quotes, commas, spaces) without a second escaping convention.
 */

export const HEADERS_VARIABLE = 'ISWC_HEADERS';

export interface ExtraHeader {
  readonly name: string;
  readonly value: string;
}

/** RFC 9110 §5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 §5.5 field values as HTTP/1.1 carries them byte for byte: no CR, LF or NUL, nothing past Latin-1. */
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/u;

/** Why each name is not the caller's to set (lower case). The subscription-key header is added by the caller that knows it. */
const OWNED: Readonly<Record<string, string>> = {
  host: 'the HTTP client sets Host from the base URL',
  'content-length': 'the HTTP client frames every body',
  'transfer-encoding': 'the HTTP client frames every body',
  'content-type': 'each case sets the media type of its own body (JSON, XML, or none)',
  accept: 'the cases that test content negotiation set Accept themselves',
  'accept-encoding': 'the harness asks for identity, so that every body is judged as it comes',
  'user-agent': 'the harness tags its traffic (iswc-conformance/<version>) so that the API team can find it',
  connection: 'the HTTP client manages its connections (hop-by-hop)',
  'keep-alive': 'the HTTP client manages its connections (hop-by-hop)',
  'proxy-connection': 'the HTTP client manages its connections (hop-by-hop)',
  upgrade: 'the HTTP client manages its connections (hop-by-hop)',
  te: 'the HTTP client manages its connections (hop-by-hop)',
  trailer: 'the HTTP client frames every body',
  expect: 'the HTTP client sends every body at once',
  'proxy-authorization': 'proxy credentials go in the proxy URL (HTTPS_PROXY=http://user:password@host:port), never to the target',
};

/** The shell variable a header's value stands for in records and curl lines: X-Trace-Id → ISWC_HEADER_X_TRACE_ID. */
export function headerVariable(name: string): string {
  return `ISWC_HEADER_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** `$ISWC_HEADER_<NAME>`: what every record, report and curl line shows instead of the value. */
export function headerPlaceholder(name: string): string {
  return `$${headerVariable(name)}`;
}

/** Problems of one header; the value itself never appears in a message (it may be a secret). */
function headerProblem(name: string, value: string): string | undefined {
  if (name === '') return 'a header needs a name before the colon';
  if (!TOKEN.test(name)) {
    const bad = [...name].find((c) => !TOKEN.test(c)) ?? '';
    return `header name ${JSON.stringify(name)} is not an HTTP token (the character ${JSON.stringify(bad)} is not allowed; letters, digits and !#$%&'*+.^_\`|~- are)`;
  }
  const badValue = BAD_VALUE_CHAR.exec(value);
  if (badValue) return `the value of ${name} contains the character U+${badValue[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}, which an HTTP header cannot carry (no line breaks, controls or characters past U+00FF)`;
  return undefined;
}

/** `Name: value` as curl takes it; the value is trimmed of the spaces around it (RFC 9110 §5.5). */
export function parseHeaderArgument(text: string, where = '--header'): ExtraHeader {
  const colon = text.indexOf(':');
  if (colon < 0) throw new ConfigError(`${where} needs 'Name: value', got no colon`);
  const name = text.slice(0, colon);
  const value = text.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
  const problem = headerProblem(name, value);
  if (problem !== undefined) throw new ConfigError(`${where}: ${problem}`);
  return { name, value };
}

/** ISWC_HEADERS: a JSON object of strings. Messages never quote the text (it holds secrets). */
export function parseHeadersVariable(text: string, variable = HEADERS_VARIABLE): ExtraHeader[] {
  const example = `${variable}='{"X-Correlation-Id": "abc"}'`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`${variable} is not valid JSON; give one object of header names and string values, e.g. ${example}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`${variable} must be one JSON object of header names and string values, e.g. ${example}`);
  const out: ExtraHeader[] = [];
  for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof value !== 'string') throw new ConfigError(`${variable}: the value of ${JSON.stringify(name)} must be a string`);
    const problem = headerProblem(name, value);
    if (problem !== undefined) throw new ConfigError(`${variable}: ${problem}`);
    out.push({ name, value: value.replace(/^[ \t]+|[ \t]+$/g, '') });
  }
  return out;
}

/** The headers as ISWC_HEADERS carries them. */
export function headersVariableText(headers: readonly ExtraHeader[]): string {
  return JSON.stringify(Object.fromEntries(headers.map((h) => [h.name, h.value])));
}

/**
 * Refuses a name the harness owns (plus `alsoOwned`, e.g. the subscription-key header, with its reason),
 * a name given twice, and two names that would share one placeholder.
 */
export function checkExtraHeaders(headers: readonly ExtraHeader[], where: string, alsoOwned: Readonly<Record<string, string>> = {}): void {
  const owned: Record<string, string> = { ...OWNED };
  for (const [name, why] of Object.entries(alsoOwned)) owned[name.toLowerCase()] = why;
  const seen = new Map<string, string>();
  const variables = new Map<string, string>();
  for (const { name } of headers) {
    const lower = name.toLowerCase();
    const why = owned[lower];
    if (why !== undefined) throw new ConfigError(`${where}: ${name} cannot be set: ${why}`);
    const before = seen.get(lower);
    if (before !== undefined) throw new ConfigError(`${where}: ${name} is given twice (header names are case-insensitive: ${before} and ${name})`);
    seen.set(lower, name);
    const variable = headerVariable(name);
    const other = variables.get(variable);
    if (other !== undefined) throw new ConfigError(`${where}: ${other} and ${name} would both be written as $${variable} in reports; rename one`);
    variables.set(variable, name);
  }
}

/**
 * The run's extra headers: ISWC_HEADERS, then `--header` arguments (a flag replaces a header of the
 * same name from the environment), checked.
 */
export function mergeExtraHeaders(fromEnv: readonly ExtraHeader[], fromFlags: readonly ExtraHeader[]): ExtraHeader[] {
  const flagged = new Set(fromFlags.map((h) => h.name.toLowerCase()));
  return [...fromEnv.filter((h) => !flagged.has(h.name.toLowerCase())), ...fromFlags];
}
