import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { subscriptionKeyHeader } from '../lib/contract/openapi.ts';
import type { Operation } from '../lib/contract/operations.ts';
import { methodsOnPath, operations } from '../lib/contract/operations.ts';
import type { AgencyWorkRef, TargetProfile } from '../lib/contract/profile/types.ts';
import { collate } from './readings.ts';
import { authenticate, unauthorized } from './auth.ts';
import type { Context } from './context.ts';
import { ChoiceSet } from './choices.ts';
import type { ChoiceSetName } from './choices.ts';
import { FaultSet } from './faults.ts';
import { MODELS } from './models.ts';
import { KNOWN_AGENCIES, unsupportedMediaProblem } from './production.ts';
import type { ModelName } from './models.ts';
import { Limits } from './limits.ts';
import { handleDemerge, handleMerge } from './merge.ts';
import { assertQueryNames, Q, Query } from './query.ts';
import { handleRun } from './run.ts';
import { ServerState } from './state.ts';
import { handleDelete } from './submission.ts';
import type { BodyRead, Reply } from './wire.ts';
import { header, json, readBodyAhead, splitTarget, text, writeReply } from './wire.ts';
import { shapeRoleSkipped } from './shape-faults.ts';
import { shapeOfBody } from '../lib/contract/shapes.ts';
import { decodeBody, formatOfContentType, sniffFormat } from '../lib/contract/codec/index.ts';
import type { ResourceName } from '../lib/contract/json-schema.ts';
import { querySpellingRefused } from './spelling-faults.ts';

export { FAULTS, faultTable } from './faults.ts';
export type { Fault, FaultId } from './faults.ts';
export { CHOICES, CHOICE_SETS, CHOICE_SET_PROFILES, choiceTable, profileForChoiceSet } from './choices.ts';
export type { Choice, ChoiceId, ChoiceSetName } from './choices.ts';
export { MODELS, isModelName, modelTable } from './models.ts';
export type { ModelName, ServerModel } from './models.ts';
export type { BodyRead, Reply } from './wire.ts';
export { splitTarget } from './wire.ts';

/** The key the embedded server accepts when none is given (not a secret: it guards nothing). */
export const EMBEDDED_KEY = 'local-dev-key';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Kestrel's default request body limit, for the choice `large-bodies-accepted`. */
const KESTREL_MAX_BODY_BYTES = 30_000_000;
/** Hubs every server knows as source databases (docs/production.md: the WID Centre 300, ICE 308). */
const HUB_SOURCE_DBS = [300, 308];

export interface ReferenceServerOptions {
  profile: TargetProfile;
  key: string;
  /** Fault ids from FAULTS; an unknown id throws. */
  faults?: readonly string[];
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Request bodies over this size are answered 413 and the connection is closed. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Legitimate choices where the document leaves a point open: a set by name (`alternative`,
   * `production`, `lenient`; default `reference`) or a list of choice ids (server/choices.ts).
   */
  choices?: ChoiceSetName | readonly string[];
  /**
   * A model of a server that exists (server/models.ts): its choice set, unless `choices` is given, and its
   * faults, besides those of `faults`.
   */
  model?: ModelName;
  /** Sees every request and its answer (the sandbox judges clients with it); see RequestHook. */
  hook?: RequestHook;
}

/**
 * A generic view into the server for whoever embeds it. `received` comes first, as soon as a request's
 * head has arrived (its body may still be on its way). `before` gets each request whose body arrived whole
 * (or over the size cap), read once (the handler gets the same bytes), before the handler; it may answer
 * instead of the handler with a Reply, or with null to reset the connection, or return undefined to let
 * the handler answer. A request whose client went away before its body was complete never reaches
 * `before`: there is nothing whole to look at and nobody to answer. `after` gets the reply about to be
 * written (null: the connection is reset); `finished` comes exactly once for every request `received`
 * saw, when its response is complete or its connection closed (mid-body included).
 */
export interface RequestHook {
  /** `res` is the answer to come, for a hook that records what goes on the wire. */
  received?(req: IncomingMessage, res: ServerResponse): void;
  before?(req: IncomingMessage, body: Exclude<BodyRead, { kind: 'aborted' }>): Reply | null | undefined | Promise<Reply | null | undefined>;
  after?(req: IncomingMessage, reply: Reply | null): void;
  finished?(req: IncomingMessage): void;
}

export interface RunningServer {
  /** http://HOST:PORT, no trailing slash. */
  url: string;
  port: number;
  close(): Promise<void>;
}

type Routes = Map<string, Map<string, Operation>>;

function buildRoutes(): Routes {
  const routes: Routes = new Map();
  for (const op of operations()) {
    let byMethod = routes.get(op.path);
    if (!byMethod) {
      byMethod = new Map();
      routes.set(op.path, byMethod);
    }
    byMethod.set(op.method, op);
    // Fail at start-up, not per request, when the contract lacks a parameter a handler uses.
    if (op.id === 'mergeIswcMetadata') assertQueryNames(op, [Q.preferredIswc, Q.agency]);
    if (op.id === 'demergeIswcMetadata') assertQueryNames(op, [Q.preferredIswc, Q.agency, Q.workcode]);
    if (op.id === 'deleteSubmission') assertQueryNames(op, [Q.preferredIswc, Q.agency, Q.workcode, Q.sourceDb, Q.reasonCode]);
  }
  return routes;
}

async function route(ctx: Context, routes: Routes, req: IncomingMessage): Promise<Reply | null> {
  // Choice `uri-limit-414`: IIS's default maxQueryString (2048) and maxUrl (4096).
  if (ctx.choices.has('uri-limit-414') && ((req.url ?? '').split('?')[1]?.length ?? 0) > 2048) return text(414, 'URI Too Long');
  const target = splitTarget(req.url ?? '/');
  const query = target.query;
  // Choice `paths-case-insensitive`: ASP.NET Core routing matches without case and takes a trailing slash.
  // Faults `key-skipped-trailing-slash` and `key-skipped-path-case` route as it does, and their key filter compares the path as written.
  const routedLoosely = ctx.choices.has('paths-case-insensitive') || ctx.faults.has('key-skipped-trailing-slash') || ctx.faults.has('key-skipped-path-case');
  const path = routedLoosely ? normalisePath(routes, target.path) : target.path;
  // Choice `rate-limit-429`: a gateway throttles every 300th request (Retry-After: 1).
  if (ctx.choices.has('rate-limit-429') && ++ctx.requestCount % 300 === 0) {
    return json(429, { statusCode: 429, message: 'Rate limit is exceeded. Try again in 1 seconds.' }, { 'Retry-After': '1' });
  }
  const byMethod = routes.get(path);
  const gateway404 = (): Reply => json(404, { statusCode: 404, message: 'Resource not found' });
  if (!byMethod) {
    if (ctx.faults.has('unknown-path-200')) return json(200, {});
    if (ctx.choices.has('unknown-path-403')) return json(403, { message: 'Missing Authentication Token' });
    if (ctx.choices.has('iis-html-errors')) return { status: 404, body: { kind: 'html', text: IIS_404 } };
    return ctx.choices.has('apim-404-unknown-operation') ? gateway404() : text(404, 'Not Found');
  }
  const op = byMethod.get(req.method ?? '');
  // Choice `options-cors`: a CORS-enabled gateway answers OPTIONS (a preflight or not) with what the path allows.
  if (!op && req.method === 'OPTIONS' && ctx.choices.has('options-cors')) {
    const allow = methodsOnPath(path).join(', ');
    return { status: 204, headers: { Allow: allow, 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': allow, 'Access-Control-Allow-Headers': 'Content-Type, Ocp-Apim-Subscription-Key' } };
  }
  // Choice `accept-406`: ASP.NET Core with ReturnHttpNotAcceptable refuses an Accept it cannot serve.
  if (op?.id === 'notifyAgentRun' && ctx.choices.has('accept-406')) {
    const accept = req.headers.accept;
    if (accept !== undefined && accept.trim() !== '' && !/(^|,)\s*(\*\/\*|application\/\*|text\/\*|application\/(?:[\w.+-]*\+)?(?:json|xml)|text\/(?:json|xml))\s*(;|,|$)/i.test(accept)) {
      return text(406, 'Not Acceptable');
    }
  }
  // Fault `accept-any-406`: an Accept of */* alone taken for one that names no format served.
  if (op?.id === 'notifyAgentRun' && ctx.faults.has('accept-any-406') && /\*\/\*/.test(req.headers.accept ?? '') && !/json|xml/i.test(req.headers.accept ?? '')) return text(406, 'Not Acceptable');
  // The spelling family's query faults (server/spelling-faults.ts): a query read by its letters or its order.
  const misspelt = op && op.params.length > 0 ? querySpellingRefused((id) => ctx.faults.has(id), op, query) : undefined;
  if (misspelt !== undefined) return json(400, { code: 'BAD_PARAMETER', message: misspelt });
  // Choice `query-unknown-refused`: a query parameter the operation does not document is a bad request.
  if (op && ctx.choices.has('query-unknown-refused')) {
    const known = new Set(op.params.map((p) => p.name.toLowerCase()));
    for (const [name] of new URLSearchParams(query)) {
      if (!known.has(name.toLowerCase())) return op.id === 'notifyAgentRun' ? text(400, 'Bad Request') : json(400, { code: 'BAD_PARAMETER', message: `unknown query parameter ${name}` });
    }
  }
  // Choice `submission-update-put`: PUT /submission updates a submission (production's updateSubmission, an
  // operation outside the document): without a body or Content-Type, ASP.NET Core's [FromBody] answers 415.
  // Choice `submission-update-patch`: the same update as PATCH (a fresh reading's legitimate server), answered as ASP.NET Core's problem+json.
  if (!op && ctx.choices.has('submission-update-patch') && req.method === 'PATCH' && path === '/submission') {
    return req.headers['content-type'] ? text(400, 'Bad Request') : unsupportedMediaProblem();
  }
  if (!op && ctx.choices.has('submission-update-put') && req.method === 'PUT' && path === '/submission') {
    return req.headers['content-type'] ? text(400, 'Bad Request') : text(415, 'Unsupported Media Type');
  }
  if (!op) {
    if (ctx.choices.has('apim-404-unknown-operation') && !ctx.faults.has('405-without-allow')) return gateway404();
    const allow = ctx.faults.has('405-without-allow') ? undefined : { Allow: methodsOnPath(path).join(', ') };
    if (ctx.choices.has('iis-html-errors') && allow) return { status: 405, headers: allow, body: { kind: 'html', text: IIS_405 } };
    return text(405, 'Method Not Allowed', allow);
  }
  const auth = authenticate(ctx, req, op);
  if (auth !== 'ok') {
    // Choice `auth-after-lookup`: delete and demerge look the data up first (which agency a key may act for
    // depends on it, 5.3) and check the key only for data that exists: what does not exist is refused as such.
    if (ctx.choices.has('auth-after-lookup') && (op.id === 'deleteSubmission' || op.id === 'demergeIswcMetadata')) {
      // Read as the handler reads it (a lenient fault's normalisation included), so that what it finds is what the handler acts on.
      const p = new Query(ctx, op, query);
      const [iswc, agency, workcode] = [p.raw(Q.preferredIswc) ?? '', p.raw(Q.agency) ?? '', p.raw(Q.workcode) ?? ''];
      const found = op.id === 'deleteSubmission' ? ctx.state.hasSubmission(iswc, agency, workcode, Number(p.raw(Q.sourceDb))) : ctx.state.isMerged(iswc, agency, workcode);
      if (!found) return op.id === 'deleteSubmission' ? handleDelete(ctx, op, query) : handleDemerge(ctx, op, query);
    }
    // Fault `auth-missing-run-end`: the key is looked at on a start only; a body carrying a runId is an end.
    const endServed = ctx.faults.has('auth-missing-run-end') && op.id === 'notifyAgentRun' && (await endsRun(ctx, req));
    // Fault `merge-key-works-only`: the key is checked against each agency work's agency; a body without one is served.
    const iswcsOnlyServed = ctx.faults.has('merge-key-works-only') && op.id === 'mergeIswcMetadata' && op.body !== null && !(shapeOfBody(op.id, await bodyAhead(ctx, req, op.body.resource))?.lists.includes('agencyWorks') ?? false);
    // Fault `run-key-agency-only`: the key is checked against the body's agency; a run naming none is served.
    const agencylessServed = ctx.faults.has('run-key-agency-only') && op.id === 'notifyAgentRun' && op.body !== null && !namesAnAgency(await bodyAhead(ctx, req, op.body.resource));
    // The shape family's key role (server/shape-faults.ts): the key left unchecked on one shape of body.
    const shapeServed = op.body !== null && ctx.faults.shapeKey && shapeRoleSkipped((id) => ctx.faults.has(id), op.id, 'key', await bodyAhead(ctx, req, op.body.resource));
    // Faults `key-skipped-*`: the key filter misses a shape of the request (no Content-Type, XML answers asked for, a parameter twice).
    const requestShapeServed =
      (ctx.faults.has('key-skipped-without-content-type') && op.body !== null && req.headers['content-type'] === undefined) ||
      (ctx.faults.has('key-skipped-accept-xml') && /xml/i.test(req.headers.accept ?? '')) ||
      (ctx.faults.has('key-skipped-param-twice') && repeatsAParameter(query)) ||
      (ctx.faults.has('key-skipped-content-type-params') && op.body !== null && (req.headers['content-type'] ?? '').includes(';')) ||
      (ctx.faults.has('key-skipped-extra-param') && [...new URLSearchParams(query).keys()].some((name) => !op.params.some((p) => p.name === name))) ||
      (ctx.faults.has('key-skipped-percent-encoded') && /%[0-9A-Fa-f]{2}/.test(query)) ||
      (ctx.faults.has('key-skipped-accept-json') && /json/i.test(req.headers.accept ?? '')) ||
      (ctx.faults.has('key-skipped-accept-any') && /\*\/\*/.test(req.headers.accept ?? '')) ||
      (ctx.faults.has('key-skipped-text-xml') && op.body !== null && /^\s*text\/xml/i.test(req.headers['content-type'] ?? '')) ||
      (ctx.faults.has('key-skipped-text-json') && op.body !== null && /^\s*text\/json/i.test(req.headers['content-type'] ?? '')) ||
      (ctx.faults.has('key-skipped-trailing-slash') && target.path !== path && target.path.endsWith('/')) ||
      (ctx.faults.has('key-skipped-path-case') && target.path !== path && target.path.replace(/\/+$/, '') !== path);
    if (!endServed && !iswcsOnlyServed && !shapeServed && !agencylessServed && !requestShapeServed) {
      // Review fault `auth-after-action`: the operation runs (and changes data) before the key is looked at.
      if (ctx.faults.has('auth-after-action') && op.id === 'deleteSubmission') handleDelete(ctx, op, query);
      if (ctx.faults.has('auth-after-action') && op.id === 'demergeIswcMetadata') handleDemerge(ctx, op, query);
      // Fault `merge-auth-after-action`: the merge is carried out, then refused.
      if (ctx.faults.has('merge-auth-after-action') && op.id === 'mergeIswcMetadata') await handleMerge(ctx, req, op, query);
      return unauthorized(ctx, op, auth);
    }
  }
  switch (op.id) {
    case 'notifyAgentRun':
      return handleRun(ctx, req, op);
    case 'mergeIswcMetadata':
      return handleMerge(ctx, req, op, query);
    case 'demergeIswcMetadata':
      return handleDemerge(ctx, op, query);
    case 'deleteSubmission':
      return handleDelete(ctx, op, query);
  }
}

/** Does the query give a parameter twice? */
function repeatsAParameter(query: string): boolean {
  const names = [...new URLSearchParams(query).keys()];
  return new Set(names).size < names.length;
}

/** Does the body of a run notification carry a runId (an end of run)? Read ahead: the handler gets the same bytes. */
async function endsRun(ctx: Context, req: IncomingMessage): Promise<boolean> {
  const read = await readBodyAhead(req, ctx.maxBodyBytes);
  if (read.kind !== 'ok') return false;
  const text = read.bytes.toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object') return typeof (value as { runId?: unknown }).runId === 'string' && (value as { runId: string }).runId !== '';
  } catch {
    // Not JSON: an XML body carries it as an element.
  }
  return /<runId>\s*[^<\s]/.test(text);
}

/** The body decoded as it came (sniffed when unlabelled), for a fault that looks at it before the key; undefined when it does not decode. Read ahead: the handler gets the same bytes. */
/** Does a decoded run body name an agency (a non-empty agencyCode)? */
function namesAnAgency(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const code = (body as { agencyCode?: unknown }).agencyCode;
  return code !== undefined && code !== null && code !== '';
}

async function bodyAhead(ctx: Context, req: IncomingMessage, resource: ResourceName): Promise<unknown> {
  const read = await readBodyAhead(req, ctx.maxBodyBytes);
  if (read.kind !== 'ok') return undefined;
  const text = read.bytes.toString('utf8');
  const named = formatOfContentType(header(req, 'content-type'));
  const format = named === 'json' || named === 'xml' ? named : sniffFormat(text);
  if (format === undefined) return undefined;
  const decoded = decodeBody(format, resource, text);
  return decoded.ok ? decoded.value : undefined;
}

/** Choice `iis-html-errors`: the pages IIS writes for a path or verb no handler takes. */
const IIS_404 = '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\r\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>404 - File or directory not found.</title></head><body><div id="header"><h1>Server Error</h1></div><div id="content"><h2>404 - File or directory not found.</h2><h3>The resource you are looking for might have been removed, had its name changed, or is temporarily unavailable.</h3></div></body></html>';
const IIS_405 = '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\r\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>405 - HTTP verb used to access this page is not allowed.</title></head><body><div id="header"><h1>Server Error</h1></div><div id="content"><h2>405 - HTTP verb used to access this page is not allowed.</h2><h3>The page you are looking for cannot be displayed because an invalid method (HTTP verb) was used to attempt access.</h3></div></body></html>';

/** The route a path names without case and without a trailing slash, or the path as given. */
function normalisePath(routes: Routes, path: string): string {
  const bare = path.length > 1 ? path.replace(/\/+$/, '') : path;
  for (const known of routes.keys()) if (known.toLowerCase() === bare.toLowerCase()) return known;
  return path;
}

/** Never a 5xx the faults did not ask for: an unexpected exception is answered 400 "Bad Request". */
async function serve(ctx: Context, routes: Routes, req: IncomingMessage, res: ServerResponse, hook: RequestHook | undefined): Promise<void> {
  let reply: Reply | null;
  hook?.received?.(req, res);
  if (hook?.finished) res.once('close', () => hook.finished?.(req));
  try {
    let instead: Reply | null | undefined;
    if (hook?.before) {
      const body = await readBodyAhead(req, ctx.maxBodyBytes);
      // The client went away mid-body: nothing whole to show the hook, nobody to answer.
      if (body.kind === 'aborted') {
        res.destroy();
        return;
      }
      instead = await hook.before(req, body);
    }
    reply = instead !== undefined ? instead : await route(ctx, routes, req);
  } catch (e) {
    if (ctx.debug) process.stderr.write(`iswc reference server: ${(e as Error).stack ?? String(e)}\n`);
    reply = text(400, 'Bad Request');
  }
  if (reply === null) {
    hook?.after?.(req, null);
    res.destroy();
    return;
  }
  if (reply.hang) return;
  const target = splitTarget(req.url ?? '/').path;
  const path = ctx.choices.has('paths-case-insensitive') ? normalisePath(routes, target) : target;
  const method = req.method ?? '';
  reply = ctx.faults.alter(reply, { operation: routes.get(path)?.get(method)?.id ?? null, method, path });
  hook?.after?.(req, reply);
  try {
    writeReply(res, reply, ctx.faults, ctx.choices);
  } catch (e) {
    if (ctx.debug) process.stderr.write(`iswc reference server: ${(e as Error).stack ?? String(e)}\n`);
    res.destroy();
  }
}

/** The profile's data as a database with the collation of `text-collation-ci` compares it. */
function collatedProfile(profile: TargetProfile): TargetProfile {
  const work = (w: AgencyWorkRef): AgencyWorkRef => ({ agencyCode: collate(w.agencyCode), agencyWorkCode: collate(w.agencyWorkCode) });
  return {
    ...profile,
    iswcs: profile.iswcs.map(collate),
    unknownIswcs: profile.unknownIswcs.map(collate),
    merges: profile.merges.map((m) => ({ ...m, preferredIswc: collate(m.preferredIswc), ...(m.iswcs ? { iswcs: m.iswcs.map(collate) } : {}), ...(m.agencyWorks ? { agencyWorks: m.agencyWorks.map(work) } : {}) })),
    demerges: profile.demerges.map((d) => ({ ...d, preferredIswc: collate(d.preferredIswc), agency: collate(d.agency), workcode: collate(d.workcode) })),
    submissions: profile.submissions.map((x) => ({ ...x, preferredIswc: collate(x.preferredIswc), agency: collate(x.agency), workcode: collate(x.workcode) })),
  };
}

/** Starts one embedded reference server with its own in-memory state, seeded from the profile. */
export async function startReferenceServer(options: ReferenceServerOptions): Promise<RunningServer> {
  const model = options.model !== undefined ? MODELS[options.model] : undefined;
  const faults = new FaultSet([...new Set([...(model?.faults ?? []), ...(options.faults ?? [])])]);
  const choices = new ChoiceSet(options.choices ?? model?.choices ?? 'reference');
  const maxBodyBytes = options.maxBodyBytes ?? (choices.has('large-bodies-accepted') ? KESTREL_MAX_BODY_BYTES : DEFAULT_MAX_BODY_BYTES);
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) throw new Error(`maxBodyBytes must be a non-negative integer, got ${maxBodyBytes}`);
  if (options.key === '') throw new Error('The subscription key must not be empty');
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  const routes = buildRoutes();
  const ctx: Context = {
    key: options.key,
    keyHeader: subscriptionKeyHeader().toLowerCase(),
    faults,
    limits: new Limits(faults, choices),
    // Choice `text-collation-ci`: what the database holds, in the one form its collation compares.
    state: new ServerState(choices.has('text-collation-ci') ? collatedProfile(options.profile) : options.profile),
    maxBodyBytes,
    debug: process.env.ISWC_SERVER_DEBUG === '1',
    choices,
    keyAgency: options.profile.agency,
    requestCount: 0,
    knownAgencies: new Set([...KNOWN_AGENCIES, options.profile.agency, ...options.profile.submissions.map((s) => s.agency), ...options.profile.demerges.map((d) => d.agency), ...options.profile.merges.flatMap((m) => (m.agencyWorks ?? []).map((w) => w.agencyCode))]),
    knownSourceDbs: new Set([...options.profile.submissions.map((s) => s.sourceDb), Number(options.profile.agency), ...HUB_SOURCE_DBS]),
    keySourceDbs: new Set([...options.profile.submissions.map((s) => s.sourceDb), Number(options.profile.agency)]),
  };

  const server = createServer((req, res) => {
    serve(ctx, routes, req, res, options.hook).catch(() => res.destroy());
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = choices.has('keep-alive-short') ? 1 : 10_000;
  server.maxRequestsPerSocket = 0;

  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
