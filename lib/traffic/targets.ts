import { operations } from '../contract/operations.ts';
import { decodeBody, sniffFormat } from '../contract/codec/index.ts';
import type { TrafficExchange, TrafficRequest } from './model.ts';

/**
 * Recorded URLs as the replay needs them: origin-form under the API's base path, whatever host and
 * prefix the recording environment had; and the agency a request acts for.
 */

/** The path and query of a recorded URL (absolute or origin-form); undefined when it is neither. */
export function originForm(url: string): string | undefined {
  if (url.startsWith('/')) return url;
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return undefined;
  }
}

/** The host of an absolute URL, lower case; undefined for origin-form. */
export function hostOf(url: string): string | undefined {
  if (url.startsWith('/')) return undefined;
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

export function pathOf(target: string): string {
  const q = target.indexOf('?');
  return q < 0 ? target : target.slice(0, q);
}

/** The prefix a documented path is recorded under (`/agency/v1` for /agency/v1/agent/run), '' for none; undefined when the path ends in no documented one. */
export function basePathOf(target: string): string | undefined {
  const path = pathOf(target);
  for (const op of operations()) {
    if (path === op.path) return '';
    if (path.endsWith(op.path) && path.length > op.path.length) return path.slice(0, path.length - op.path.length).replace(/\/+$/, '');
  }
  return undefined;
}

/**
 * Removes the recording's base path from every target that carries it: the one given, else the first
 * found before a documented path. Returns the base path used ('' for none).
 */
export function stripBasePath(requests: TrafficRequest[], given?: string): string {
  const base = (given ?? requests.map((r) => basePathOf(r.target)).find((b) => b !== undefined) ?? '').replace(/\/+$/, '');
  if (base === '') return '';
  for (const r of requests) {
    if (r.target === base || r.target.startsWith(`${base}/`) || r.target.startsWith(`${base}?`)) (r as { target: string }).target = r.target.slice(base.length) || '/';
  }
  return base;
}

/** A query parameter's first value, decoded; undefined when absent. */
export function queryValue(target: string, name: string): string | undefined {
  const q = target.indexOf('?');
  if (q < 0) return undefined;
  for (const part of target.slice(q + 1).split('&')) {
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    let key = rawName;
    try {
      key = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      key = rawName;
    }
    if (key !== name) continue;
    const raw = eq < 0 ? '' : part.slice(eq + 1);
    try {
      return decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      return raw;
    }
  }
  return undefined;
}

/** The agency a request acts for: the query's `agency` (merge, delete, demerge), a run notification's agencyCode; undefined when it names none. */
export function agencyOfRequest(request: TrafficRequest): string | undefined {
  const queried = queryValue(request.target, 'agency');
  if (queried !== undefined && queried !== '') return queried;
  const path = pathOf(request.target);
  const op = operations().find((o) => o.method === request.method.toUpperCase() && o.path === path);
  if (op?.id !== 'notifyAgentRun' || request.body.length === 0) return undefined;
  const text = request.body.toString('utf8');
  const format = sniffFormat(text);
  if (!format) return undefined;
  const decoded = decodeBody(format, 'AgentRun', text);
  if (!decoded.ok || decoded.value === null || typeof decoded.value !== 'object') return undefined;
  const code = (decoded.value as Record<string, unknown>).agencyCode;
  return typeof code === 'string' && code !== '' ? code : undefined;
}

/** The agency most of a session's requests act for (ties: the first met); undefined when none names one. */
export function mainAgency(exchanges: readonly TrafficExchange[]): string | undefined {
  const counts = new Map<string, number>();
  for (const x of exchanges) {
    const a = x.agency ?? agencyOfRequest(x.request);
    if (a !== undefined) counts.set(a, (counts.get(a) ?? 0) + 1);
  }
  let best: string | undefined;
  let most = 0;
  for (const [a, n] of counts) if (n > most) [best, most] = [a, n];
  return best;
}
