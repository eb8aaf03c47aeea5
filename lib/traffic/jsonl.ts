import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import { handWrittenSchema } from '../contract/validators.ts';
import { credentialInHeaders, credentialInQuery, credentialRemedy } from './credentials.ts';
import type { SessionMeta, TrafficExchange, TrafficSession } from './model.ts';
import { TrafficError } from './model.ts';
import { agencyOfRequest, mainAgency, originForm, stripBasePath } from './targets.ts';

/**
 * The JSON-lines format of recorded traffic (schemas/traffic-log.schema.json): what the sandbox writes
 * beside its reports (client-session.jsonl) and what a gateway's request log is exported to. A session
 * line says what the exchange lines after it belong to; a log without one (a gateway's) is split into
 * sessions by each line's `session` and `agency`, else by the agency each request acts for.
 */

export const TRAFFIC_SCHEMA = 'traffic-log.schema.json';
export const TRAFFIC_FORMAT = 'iswc-traffic-log';

type AddFormats = (ajv: Ajv2020, formats: string[]) => Ajv2020;
const addFormats = (addFormatsModule as unknown as { default: AddFormats }).default;

let validators: { session: ValidateFunction; exchange: ValidateFunction } | undefined;

function lineValidators(): { session: ValidateFunction; exchange: ValidateFunction } {
  if (!validators) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats(ajv, ['date-time']);
    ajv.addSchema(handWrittenSchema(TRAFFIC_SCHEMA));
    validators = {
      session: ajv.compile({ $ref: `${TRAFFIC_SCHEMA}#/$defs/sessionLine` }),
      exchange: ajv.compile({ $ref: `${TRAFFIC_SCHEMA}#/$defs/exchangeLine` }),
    };
  }
  return validators;
}

/** A session line: `session` holds an object (an exchange line names its session with a string there). */
function isSessionLine(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !('session' in value)) return false;
  const s = (value).session;
  return s !== null && typeof s === 'object' && !Array.isArray(s);
}

/** What is wrong with one parsed line against the format, in words; empty when it follows it. */
export function trafficLineProblems(value: unknown): string[] {
  const { session, exchange } = lineValidators();
  const validate = isSessionLine(value) ? session : exchange;
  return validate(value) ? [] : [problemsOf(validate)];
}

/** One line as the schema says it: the session line's fields. */
export interface SessionLine {
  session: { format: typeof TRAFFIC_FORMAT; version: 1; id?: string; agency?: string } & SessionMeta;
}

/** One exchange line. */
export interface ExchangeLine {
  time?: string;
  seq?: number;
  session?: string;
  agency?: string;
  method: string;
  url: string;
  requestHeaders?: Record<string, string | string[]>;
  requestBody?: string;
  requestBodyEncoding?: 'utf8' | 'base64';
  status?: number | null;
  responseHeaders?: Record<string, string | string[]>;
  responseBody?: string;
  responseBodyEncoding?: 'utf8' | 'base64';
  error?: string;
  trouble?: string;
  durationMs?: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as a line writes them: UTF-8 text when they are, else base64. */
export function bodyField(bytes: Buffer): { text: string; encoding: 'utf8' | 'base64' } {
  try {
    return { text: utf8.decode(bytes), encoding: 'utf8' };
  } catch {
    return { text: bytes.toString('base64'), encoding: 'base64' };
  }
}

export function lowerHeaders(headers: Readonly<Record<string, string | string[] | undefined>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const v = Array.isArray(value) ? value.join(', ') : value;
    out[lower] = out[lower] !== undefined ? `${out[lower]}, ${v}` : v;
  }
  return out;
}

function bytesOf(text: string | undefined, encoding: 'utf8' | 'base64' | undefined): Buffer {
  if (text === undefined || text === '') return Buffer.alloc(0);
  return encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
}

function problemsOf(validate: ValidateFunction): string {
  // A misspelt field first: it explains the rest (a required one that seems missing).
  const errors = [...(validate.errors ?? [])].filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf').sort((a, b) => Number(b.keyword === 'additionalProperties') - Number(a.keyword === 'additionalProperties'));
  return errors
    .slice(0, 3)
    .map((e) => `${e.instancePath || '(the line)'} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ''}`)
    .join('; ');
}

/** Headers with their names as written (for messages), repeated ones joined. */
export function namedHeaders(headers: Readonly<Record<string, string | string[] | undefined>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** Refuses an exchange that holds a credential in clear, saying where (header names as the file writes them). */
export function refuseCredentials(file: string, where: string, x: { requestHeaders: Record<string, string>; target: string; responseHeaders: Record<string, string> | undefined }, format: 'har' | 'jsonl'): void {
  const found = credentialInHeaders(x.requestHeaders, 'request') ?? credentialInQuery(x.target) ?? (x.responseHeaders ? credentialInHeaders(x.responseHeaders, 'response') : undefined);
  if (found) throw new TrafficError(file, where, `a credential in clear: ${found.where}`, credentialRemedy(format));
}

interface Open {
  key: string;
  id: string;
  meta: SessionMeta;
  agency: string | undefined;
  exchanges: TrafficExchange[];
}

/**
 * Reads a JSON-lines traffic log. `file` is how messages name it. Throws TrafficError for a line that is
 * not JSON, breaks the schema, or holds a credential in clear.
 */
export function readTrafficLog(file: string, text: string): TrafficSession[] {
  const { session: isSession, exchange: isExchange } = lineValidators();
  const open = new Map<string, Open>();
  const order: Open[] = [];
  let current: { index: number; line: SessionLine['session'] } | undefined;
  let sessionLines = 0;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const where = `line ${i + 1}`;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new TrafficError(file, where, `not JSON (${(e as Error).message})`, `write one JSON object per line, as schemas/${TRAFFIC_SCHEMA} describes`);
    }
    // A session line holds an object at `session`; an exchange line may name its session with a string there.
    if (isSessionLine(value)) {
      if (!isSession(value)) throw new TrafficError(file, where, `not a session line: ${problemsOf(isSession)}`, `see schemas/${TRAFFIC_SCHEMA}`);
      sessionLines += 1;
      current = { index: sessionLines, line: (value as SessionLine).session };
      return;
    }
    if (!isExchange(value)) throw new TrafficError(file, where, `not an exchange line: ${problemsOf(isExchange)}`, `see schemas/${TRAFFIC_SCHEMA}`);
    const line = value as ExchangeLine;
    const target = originForm(line.url);
    if (target === undefined) throw new TrafficError(file, where, `url ${JSON.stringify(line.url.slice(0, 80))} is neither absolute nor a path`, 'give the request target as sent (/agent/run?…) or the whole URL');
    const status = typeof line.status === 'number' ? line.status : null;
    const exchange: TrafficExchange = {
      seq: 0,
      at: line.time ?? null,
      agency: line.agency ?? null,
      request: { method: line.method.toUpperCase(), target, headers: lowerHeaders(line.requestHeaders), body: bytesOf(line.requestBody, line.requestBodyEncoding) },
      response: status === null ? null : { status, headers: lowerHeaders(line.responseHeaders), body: bytesOf(line.responseBody, line.responseBodyEncoding) },
      error: status === null ? (line.error ?? 'no answer') : null,
      trouble: line.trouble ?? null,
      where: `${file}:${i + 1}`,
      ...(typeof line.durationMs === 'number' ? { durationMs: line.durationMs } : {}),
    };
    refuseCredentials(file, where, { requestHeaders: namedHeaders(line.requestHeaders), target, responseHeaders: namedHeaders(line.responseHeaders) }, 'jsonl');
    const sessionAgency = current?.line.agency;
    const agency = line.agency ?? sessionAgency ?? (current ? undefined : agencyOfRequest(exchange.request));
    const key = `${current?.index ?? 0}\u0000${line.session ?? current?.line.id ?? ''}\u0000${line.agency ?? ''}\u0000${current ? '' : (agency ?? '')}`;
    let s = open.get(key);
    if (!s) {
      const parts = [current?.line.id ?? (current ? `session ${current.index}` : undefined), line.session, current ? undefined : (agency ?? 'no agency')].filter((p): p is string => p !== undefined);
      const { format: _format, version: _version, id: _id, agency: _agency, ...meta } = current?.line ?? ({} as Partial<SessionLine['session']>);
      s = { key, id: parts.join(' · '), meta, agency: line.agency ?? sessionAgency, exchanges: [] };
      open.set(key, s);
      order.push(s);
    }
    exchange.seq = line.seq ?? s.exchanges.length + 1;
    s.exchanges.push(exchange);
  });
  const several = order.length > 1;
  return order.map((s) => {
    const basePath = stripBasePath(
      s.exchanges.map((x) => x.request),
      s.meta.basePath,
    );
    return {
      file,
      id: several && s.id !== '' ? `${file} · ${s.id}` : file,
      source: s.meta.recordedBy?.startsWith('iswc-conformance sandbox') ? 'sandbox' : 'gateway-log',
      agency: s.agency ?? mainAgency(s.exchanges) ?? 'unknown',
      meta: { ...s.meta, ...(basePath !== '' ? { basePath } : {}) },
      exchanges: s.exchanges,
    };
  });
}

/** The session line a recorder writes first. */
export function formatSessionLine(meta: SessionMeta & { id?: string; agency?: string }): string {
  const line: SessionLine = { session: { format: TRAFFIC_FORMAT, version: 1, ...meta } };
  return `${JSON.stringify(line)}\n`;
}

/** One exchange as a line (its headers and bodies already redacted by the caller). */
export function formatExchangeLine(x: {
  seq: number;
  time: string;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: Buffer;
  status: number | null;
  responseHeaders?: Record<string, string>;
  responseBody?: Buffer;
  error?: string;
  trouble?: string;
  durationMs?: number;
}): string {
  const line: ExchangeLine = { time: x.time, seq: x.seq, method: x.method, url: x.url, requestHeaders: x.requestHeaders };
  if (x.requestBody.length > 0) {
    const b = bodyField(x.requestBody);
    line.requestBody = b.text;
    if (b.encoding === 'base64') line.requestBodyEncoding = 'base64';
  }
  line.status = x.status;
  if (x.responseHeaders) line.responseHeaders = x.responseHeaders;
  if (x.responseBody && x.responseBody.length > 0) {
    const b = bodyField(x.responseBody);
    line.responseBody = b.text;
    if (b.encoding === 'base64') line.responseBodyEncoding = 'base64';
  }
  if (x.error !== undefined) line.error = x.error;
  if (x.trouble !== undefined) line.trouble = x.trouble;
  if (x.durationMs !== undefined) line.durationMs = Math.round(x.durationMs);
  return `${JSON.stringify(line)}\n`;
}
