import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { credentialRemedy, isPlaceholder } from './credentials.ts';
import { lowerHeaders, namedHeaders, refuseCredentials } from './jsonl.ts';
import type { TrafficExchange, TrafficSession } from './model.ts';
import { TrafficError } from './model.ts';
import { basePathOf, hostOf, mainAgency, originForm, stripBasePath } from './targets.ts';

/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), as browsers' developer tools, proxies
 * (mitmproxy, Charles, Fiddler) and Playwright's recordHar write it: one session per file, the entries
 * of the API's host only (a browser's HAR also holds the page's own resources). Cookies and query
 * parameters HAR lists apart are held to the same rule as headers: no credential in clear.
 */

interface HarNameValue {
  name?: unknown;
  value?: unknown;
}

interface HarEntry {
  startedDateTime?: unknown;
  time?: unknown;
  request?: { method?: unknown; url?: unknown; headers?: unknown; cookies?: unknown; queryString?: unknown; postData?: { text?: unknown; encoding?: unknown; _file?: unknown; params?: unknown } };
  response?: { status?: unknown; headers?: unknown; cookies?: unknown; content?: { text?: unknown; encoding?: unknown; _file?: unknown }; _error?: unknown };
  _error?: unknown;
}

function pairs(list: unknown): Array<{ name: string; value: string }> {
  if (!Array.isArray(list)) return [];
  return (list as HarNameValue[]).filter((p) => typeof p?.name === 'string').map((p) => ({ name: p.name as string, value: typeof p.value === 'string' ? p.value : '' }));
}

function headersOf(list: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { name, value } of pairs(list)) {
    // HTTP/2 pseudo-headers (:authority, :path) are no headers of the request.
    if (name.startsWith(':')) continue;
    (out[name] ??= []).push(value);
  }
  return out;
}

/** A body HAR holds inline (text, maybe base64) or, as Playwright's `content: 'attach'` writes it, in a file beside the HAR. */
function bodyOf(part: { text?: unknown; encoding?: unknown; _file?: unknown } | undefined, dir: string): Buffer {
  if (!part) return Buffer.alloc(0);
  if (typeof part.text === 'string') return part.encoding === 'base64' ? Buffer.from(part.text, 'base64') : Buffer.from(part.text, 'utf8');
  if (typeof part._file === 'string') {
    const file = path.resolve(dir, part._file);
    if (existsSync(file)) return readFileSync(file);
  }
  return Buffer.alloc(0);
}

/** Reads a HAR file's text into one session. `file` is how messages name it; `dir` where attached bodies are. */
export function readHar(file: string, text: string, dir: string): TrafficSession[] {
  let doc: { log?: { entries?: unknown; creator?: { name?: unknown; version?: unknown } } };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch (e) {
    throw new TrafficError(file, '', `not JSON (${(e as Error).message})`, 'give a HAR file as a browser, a proxy or Playwright writes it');
  }
  const entries = doc?.log?.entries;
  if (!Array.isArray(entries)) throw new TrafficError(file, '', 'no log.entries: not a HAR file', 'give a HAR file (HAR 1.2: {"log": {"entries": [...]}})');
  const all = entries as HarEntry[];
  // The API's host: the first entry on a documented path; entries elsewhere (a page's scripts, fonts) are left out.
  const apiHost = all.map((e) => (typeof e?.request?.url === 'string' ? e.request.url : '')).find((u) => {
    const t = originForm(u);
    return t !== undefined && basePathOf(t) !== undefined;
  });
  // A HAR of another API or site (a GitHub call, a portal's own pages) holds nothing of this one: replaying it would judge requests the API never had.
  if (apiHost === undefined && all.length > 0) {
    const hosts = [...new Set(all.map((e) => (typeof e?.request?.url === 'string' ? hostOf(e.request.url) : undefined)).filter((h): h is string => h !== undefined))].slice(0, 3);
    throw new TrafficError(file, '', `no entry on a documented path of the ISWC API (/agent/run, /iswc/merge, /submission), under any base path: a HAR of another API or site${hosts.length > 0 ? ` (${hosts.join(', ')})` : ''}`, 'record the HAR while the client talks to the ISWC Agency API, or leave this file out of --sessions');
  }
  const host = apiHost !== undefined ? hostOf(apiHost) : undefined;
  const exchanges: TrafficExchange[] = [];
  all.forEach((entry, i) => {
    const where = `log.entries[${i}]`;
    const req = entry?.request;
    if (typeof req?.method !== 'string' || typeof req.url !== 'string') throw new TrafficError(file, where, 'an entry without request.method and request.url', 'give a HAR file as HAR 1.2 describes it');
    if (host !== undefined && hostOf(req.url) !== undefined && hostOf(req.url) !== host) return;
    const target = originForm(req.url);
    if (target === undefined) throw new TrafficError(file, where, `request.url ${JSON.stringify(req.url.slice(0, 80))} is not a URL`, 'give a HAR file as HAR 1.2 describes it');
    for (const c of [...pairs(req.cookies).map((p) => ({ ...p, side: 'request' })), ...pairs(entry.response?.cookies).map((p) => ({ ...p, side: 'response' }))]) {
      if (!isPlaceholder(c.value)) throw new TrafficError(file, where, `a credential in clear: ${c.side} cookie ${c.name}`, credentialRemedy('har'));
    }
    const status = typeof entry.response?.status === 'number' && entry.response.status >= 100 ? entry.response.status : null;
    const exchange: TrafficExchange = {
      seq: exchanges.length + 1,
      at: typeof entry.startedDateTime === 'string' ? entry.startedDateTime : null,
      agency: null,
      request: { method: req.method.toUpperCase(), target, headers: lowerHeaders(headersOf(req.headers)), body: bodyOf(req.postData, dir) },
      response: status === null ? null : { status, headers: lowerHeaders(headersOf(entry.response?.headers)), body: bodyOf(entry.response?.content, dir) },
      error: status === null ? (typeof entry.response?._error === 'string' ? entry.response._error : typeof entry._error === 'string' ? entry._error : 'no answer') : null,
      trouble: null,
      where: `${file} ${where}`,
      ...(typeof entry.time === 'number' && Number.isFinite(entry.time) && entry.time >= 0 ? { durationMs: entry.time } : {}),
    };
    refuseCredentials(file, where, { requestHeaders: namedHeaders(headersOf(req.headers)), target, responseHeaders: namedHeaders(headersOf(entry.response?.headers)) }, 'har');
    exchanges.push(exchange);
  });
  if (exchanges.length === 0) return [];
  const basePath = stripBasePath(exchanges.map((x) => x.request));
  const creator = doc.log?.creator;
  const recordedBy = typeof creator?.name === 'string' ? `${creator.name}${typeof creator.version === 'string' ? ` ${creator.version}` : ''}` : undefined;
  return [
    {
      file,
      id: file,
      source: 'har',
      agency: mainAgency(exchanges) ?? 'unknown',
      meta: { ...(recordedBy !== undefined ? { recordedBy } : {}), ...(basePath !== '' ? { basePath } : {}) },
      exchanges,
    },
  ];
}
