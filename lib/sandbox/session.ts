import { hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { judgeComparison, judgeRequest, judgeSession } from '../check/client/judge.ts';
import { viewOf } from '../check/client/request.ts';
import { runIdField, runIdOfRequest } from '../check/client/run-ids.ts';
import type { AnswerSeen, ClientRequest, SessionView } from '../check/client/types.ts';
import { executionSections } from '../check/sections.ts';
import { decodeJson, decodeXml } from '../contract/codec/index.ts';
import type { Operation } from '../contract/operations.ts';
import { operations } from '../contract/operations.ts';
import type { XmlArrays } from '../contract/profile/types.ts';
import { createRedactor, SANDBOX_KEY_PLACEHOLDER } from '../foundation/redact.ts';
import { ClientFindings, FINDINGS_PER_GROUP } from '../report/client/collect.ts';
import type { SessionSummary } from '../report/client/build.ts';
import type { RequestFacts } from '../report/client/collect.ts';
import type { CellFormat, LateRequests, TroubleMet } from '../report/client/model.ts';
import type { OperationId } from '../contract/operations.ts';
import type { BodyRead, Reply, RequestHook } from '../../server/index.ts';
import { splitTarget } from '../../server/index.ts';
import { CellTallies, dataKeyOf } from './cells.ts';
import type { ProductionShadow } from './production.ts';
import { RetryMemory } from './retries.ts';
import type { Injection, InjectKind, RateLimit } from './trouble.ts';
import { RateWindow, TroubleSchedule } from './trouble.ts';

/**
 * One sandbox session: the reference server's request hook. Each request is read once (the server hands
 * over the body it read), judged by every client check against what the session knows (the key, the
 * runs it issued, a pending Retry-After, retries, the rate limit), then answered by the reference server,
 * or by trouble on purpose. What the client got is recorded when the server writes it.
 */

export interface SessionSettings {
  key: string;
  keyHeader: string;
  xmlArrays: XmlArrays;
  strict: boolean;
  inject: readonly Injection[];
  rateLimit: RateLimit | null;
  /** Retry-After of the injected 429 and 503, in seconds. */
  retryAfterSeconds: number;
  /** How long `slow` holds the answer back, in ms. */
  slowMs: number;
  /** The session takes this many requests (--requests); later ones get 503 with Retry-After and are only recorded. Null: no limit. */
  requestLimit?: number | null;
  /** Production as built beside the sandbox: every request the sandbox's server answers is sent there too (client.production-as-built). */
  production?: ProductionShadow;
}

interface Pending {
  seq: number;
  signature: string;
  operation: Operation | null;
  /** Trouble the session gave this request instead of its answer. */
  trouble: TroubleMet['kind'] | undefined;
  /** Its entry in the trouble list (absent past MAX_TROUBLE_LISTED). */
  met?: TroubleMet;
  /** The judgement of the request, made off the answer's path (see `judgeQueued`). */
  judged: Judged | undefined;
  /** A run notification's success answer, kept until the request is judged (which run it was is in its body). */
  runAnswer: Reply | undefined;
  /** What the client got: recorded with its findings once both are known. */
  answer: number | 'reset' | undefined;
  /** The outcome (operation × format, success, trouble survived) is recorded once both judgement and answer are known. */
  settled: boolean;
  /** The request as the sandbox read it, while production as built's answer to it is awaited. */
  request?: ClientRequest;
  /** What the sandbox and production as built answered, until the request is judged (its findings then get the comparison). */
  compared?: { request: ClientRequest; sandbox: AnswerSeen; production: AnswerSeen };
}

/** What judging a request leaves for the rest of the session. */
interface Judged {
  /** A run notification that ends this run (its runId); undefined for a start or another operation. */
  endsRun: string | undefined;
  /** For run starts: the request as sent and its format, for findings about the run later. */
  start: { facts: RequestFacts; format: 'json' | 'xml' | 'none' } | undefined;
  /** The documented operation and the body format it is tallied under (none for delete and demerge), or undefined. */
  cell: { operation: OperationId; format: CellFormat } | undefined;
  /** The operation and its data (query, the body's value): what "the same request" means for trouble survived. */
  dataKey: string;
  /** The request as sent and the body format its findings are grouped under. */
  facts: RequestFacts;
  format: 'json' | 'xml' | 'none';
}

/** A request waiting to be judged, with the session as it stood when it arrived. */
interface Queued {
  request: ClientRequest;
  session: SessionView;
  pending: Pending;
}

/** Retry-After as delay-seconds or an HTTP-date (RFC 9110 §10.2.3), in ms from now; undefined when unreadable. */
function retryAfterMs(value: string, now: number): number | undefined {
  if (/^\s*[0-9]+\s*$/.test(value)) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function headerOf(reply: Reply, name: string): string | undefined {
  for (const [k, v] of Object.entries(reply.headers ?? {})) if (k.toLowerCase() === name) return v;
  return undefined;
}

const json = (status: number, value: unknown, headers: Record<string, string> = {}): Reply => ({ status, body: { kind: 'json', text: JSON.stringify(value) }, headers });

/** A run start answered with a runId; `whole`: its request as sent is kept (else its request line only). */
interface RunStart {
  runId: string;
  request: number;
  facts: RequestFacts;
  whole: boolean;
  format: 'json' | 'xml' | 'none';
}

/** Open runs whose request is kept whole: more than the report keeps of runs left open (FINDINGS_PER_GROUP per format). */
export const MAX_OPEN_RUN_REQUESTS = 3 * FINDINGS_PER_GROUP;

/** A request's line without its headers and body: what a run start beyond the bound keeps. */
function requestLine(facts: RequestFacts): RequestFacts {
  return { seq: facts.seq, at: facts.at, method: facts.method, target: facts.target, headers: {}, body: Buffer.alloc(0), tooLarge: false };
}

export { MAX_TROUBLED } from './retries.ts';

/** Trouble the report lists (the first ones; a client hammering an outage meets thousands). */
export const MAX_TROUBLE_LISTED = 1000;

/** Requests after the session's end by count that the report shows one by one (all are counted). */
export const LATE_REQUESTS_SHOWN = 20;

/** The operations key under which CORS preflights are counted (they are not judged). */
export const CORS_PREFLIGHT = 'cors-preflight';

/** A CORS preflight (Fetch standard): OPTIONS with Origin and Access-Control-Request-Method, sent by a browser on the client's behalf. */
function isCorsPreflight(request: ClientRequest): boolean {
  return request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
}

export class SandboxSession implements RequestHook {
  private seq = 0;
  /** Requests the client checks judge (all but CORS preflights). */
  private judgedCount = 0;
  private answeredCount = 0;
  /** Requests whose head has arrived and whose answer is not complete (uploads included): activity. */
  private readonly open = new Set<IncomingMessage>();
  private readonly routes = new Map(operations().map((op) => [`${op.method} ${op.path}`, op]));
  private readonly schedule: TroubleSchedule;
  private readonly rate: RateWindow | undefined;
  private readonly pending = new WeakMap<IncomingMessage, Pending>();
  /** When each request's head arrived: the closest the sandbox sees to when the client sent it. */
  private readonly arrivals = new WeakMap<IncomingMessage, number>();
  /** Request heads read so far, and each request's place among them: what a wait is judged from (retries.ts). */
  private headsRead = 0;
  private readonly arrivalNumbers = new WeakMap<IncomingMessage, number>();
  /** Requests (method, target, body) whose last answers were trouble, and the waits their Retry-After asked (client.retries-bounded, client.retry-after). */
  private readonly retries = new RetryMemory();
  private readonly issued = new Set<string>();
  /**
   * Every run start answered with a runId. Only runs still open keep their request as sent (headers and
   * body, for the report's runs-ended finding), and at most MAX_OPEN_RUN_REQUESTS of them: the others keep
   * its request line only, so memory stays bounded however many runs a long session starts.
   */
  private readonly runsStarted: RunStart[] = [];
  private readonly startOf = new Map<string, RunStart>();
  private heldRunRequests = 0;
  private readonly runOperation = operations().find((op) => op.id === 'notifyAgentRun') ?? null;
  private readonly runsEnded = new Set<string>();
  private readonly userAgents = new Map<string, number>();
  private readonly agencies = new Map<string, number>();
  private readonly operationCounts = new Map<string, number>();
  private readonly troubleMet: TroubleMet[] = [];
  /** Trouble not yet survived, by the data key of the request that met it. */
  private readonly unsurvived = new Map<string, TroubleMet[]>();
  private readonly cells = new CellTallies();
  private lateCount = 0;
  private readonly lateShown: LateRequests['first'] = [];
  private readonly slowTimers = new Set<NodeJS.Timeout>();
  private queue: Queued[] = [];
  readonly findings: ClientFindings;
  readonly startedAt = Date.now();
  /** Called when each answer is complete, or its connection closed (the session's end conditions listen here); `open`: requests still in progress. */
  onAnswered: ((answered: number, open: number) => void) | undefined;
  /** Called when a request's head arrives (before its body). */
  onArrival: (() => void) | undefined;
  /**
   * Called once when judging a request raised: a defect of the harness, not of the client. The session
   * ends (exit 4); what was judged before is reported, and `defect` says what happened.
   */
  onDefect: ((defect: string) => void) | undefined;
  /** What went wrong inside the sandbox, when judging a request raised (redacted); undefined otherwise. */
  defect: string | undefined;
  private closed = false;

  constructor(private readonly settings: SessionSettings) {
    this.schedule = new TroubleSchedule(settings.inject);
    this.rate = settings.rateLimit ? new RateWindow(settings.rateLimit) : undefined;
    this.findings = new ClientFindings(createRedactor([{ value: settings.key, placeholder: SANDBOX_KEY_PLACEHOLDER }]));
  }

  get requests(): number {
    return this.seq;
  }

  /** Run starts whose request is kept whole (bounded by MAX_OPEN_RUN_REQUESTS). */
  get runRequestsHeld(): number {
    return this.heldRunRequests;
  }

  get answered(): number {
    return this.answeredCount;
  }

  /** A request's head arrived (its body may still be uploading): activity, until it is finished. */
  received(req: IncomingMessage): void {
    this.open.add(req);
    this.arrivals.set(req, Date.now());
    this.arrivalNumbers.set(req, ++this.headsRead);
    this.onArrival?.();
  }

  /** A request whose body arrived whole (or over the cap): judged, and answered by trouble or the reference server. */
  before(req: IncomingMessage, body: Exclude<BodyRead, { kind: 'aborted' }>): Reply | null | undefined | Promise<Reply | null | undefined> {
    const at = this.arrivals.get(req) ?? Date.now();
    const limit = this.settings.requestLimit ?? null;
    if (limit !== null && this.seq >= limit) return this.lateRequest(req);
    const seq = ++this.seq;
    const target = req.url ?? '/';
    // Origin-form, or absolute-form (RFC 9112 §3.2.2: a server MUST accept it; proxies send it): judged by its path.
    const { path, query: rawQuery } = splitTarget(target);
    // Node joins repeated headers into one string, all but set-cookie (an array): copy only then.
    let headers = req.headers as Record<string, string>;
    if (req.headers['set-cookie'] !== undefined) {
      headers = {};
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const bytes = body.kind === 'ok' ? body.bytes : Buffer.alloc(0);
    const request: ClientRequest = {
      seq,
      at,
      method: req.method ?? '',
      target,
      path,
      rawQuery,
      headers,
      body: bytes,
      tooLarge: body.kind === 'too-large',
      operation: this.routes.get(`${req.method ?? ''} ${path}`) ?? null,
    };
    // The same request again is a retry, whatever connection carries it: known by method, target and body.
    const signature = `${request.method} ${target} ${bytes.length === 0 ? '' : hash('sha1', bytes, 'base64')}`;
    const { retry, wait } = this.retries.recall(signature, at, this.arrivalNumbers.get(req) ?? ++this.headsRead);
    const rate = this.rate?.take(at);
    // The session as it stands when the request arrives: what its judgement depends on.
    const session: SessionView = {
      keyHeader: this.settings.keyHeader,
      key: this.settings.key,
      xmlArrays: this.settings.xmlArrays,
      issuedRunIds: this.issued,
      throttle: wait ? { setBy: wait.setBy, status: wait.status, notBefore: wait.notBefore, retryAfter: wait.retryAfter } : undefined,
      retry,
      rate: rate && this.rate ? { limit: this.rate.rate.limit, windowMs: this.rate.rate.windowMs, toleranceMs: this.rate.toleranceMs, inWindow: rate.inWindow, exceeded: rate.exceeded, text: this.rate.rate.text } : undefined,
    };
    const pending: Pending = { seq, signature, operation: request.operation, trouble: undefined, judged: undefined, runAnswer: undefined, answer: undefined, settled: false, ...(this.settings.production ? { request } : {}) };
    // A request whose connection closed as its body ended is judged, but nothing it is answered is seen.
    if (this.open.has(req)) this.pending.set(req, pending);
    if (isCorsPreflight(request)) {
      // The browser's request, not the client's: counted, never judged by the client checks.
      this.operationCounts.set(CORS_PREFLIGHT, (this.operationCounts.get(CORS_PREFLIGHT) ?? 0) + 1);
    } else {
      this.judgedCount += 1;
      // Judged off the answer's path: the client gets its answer first, the checks run right after.
      this.queue.push({ request, session, pending });
      if (this.queue.length === 1) setImmediate(() => this.judgeQueued());
    }

    const kind = this.schedule.troubleOf(seq, at);
    if (kind) {
      this.meetTrouble(pending, kind);
      return this.inject(kind);
    }
    if (rate?.exceeded) {
      this.meetTrouble(pending, 'rate-limit');
      const seconds = Math.max(1, Math.ceil(rate.retryAfterMs / 1000));
      return json(429, { statusCode: 429, message: `Rate limit is exceeded. Try again in ${seconds} seconds.` }, { 'Retry-After': String(seconds) });
    }
    return undefined;
  }

  private meetTrouble(pending: Pending, kind: TroubleMet['kind']): void {
    pending.trouble = kind;
    if (this.troubleMet.length >= MAX_TROUBLE_LISTED) return;
    const met: TroubleMet = { kind, request: pending.seq, operation: pending.operation?.id ?? 'other', survived: false };
    this.troubleMet.push(met);
    pending.met = met;
  }

  /** A request after the session's end by count: recorded (its line, redacted) and answered 503 with Retry-After. */
  private lateRequest(req: IncomingMessage): Reply {
    this.lateCount += 1;
    const seq = this.seq + this.lateCount;
    if (this.lateShown.length < LATE_REQUESTS_SHOWN) {
      this.lateShown.push({ seq, at: new Date(this.arrivals.get(req) ?? Date.now()).toISOString(), method: req.method ?? '', target: this.findings.redactUrl(req.url ?? '/') });
    }
    const seconds = this.settings.retryAfterSeconds;
    return json(503, { statusCode: 503, message: `The sandbox session has ended: it took the ${this.seq} requests of --requests ${this.seq}.` }, { 'Retry-After': String(seconds) });
  }

  /** Judges every request waiting, in arrival order (also called when a judgement is needed at once). */
  private judgeQueued(): void {
    const queue = this.queue;
    this.queue = [];
    for (const q of queue) {
      // After a defect the session is ending: what comes later is not judged.
      if (this.defect !== undefined) continue;
      try {
        q.pending.judged = this.judge(q.request, q.session);
      } catch (e) {
        this.raised(q.request, e);
        continue;
      }
      if (q.pending.answer !== undefined) this.findings.answered(q.pending.seq, q.pending.answer);
      this.settleRun(q.pending);
      this.settleOutcome(q.pending);
      this.settleComparison(q.pending);
    }
  }

  /**
   * What the request achieved, once it is judged (its operation, format and data are known) and answered:
   * tallied under its operation × format, and a success survives the trouble met earlier by the same
   * operation with the same data.
   */
  private settleOutcome(pending: Pending): void {
    const { judged, answer } = pending;
    if (!judged || answer === undefined || pending.settled) return;
    pending.settled = true;
    const succeeded = typeof answer === 'number' && answer >= 200 && answer < 300;
    if (judged.cell) this.cells.answered(judged.cell.operation, judged.cell.format, answer);
    if (pending.met) {
      const list = this.unsurvived.get(judged.dataKey);
      if (list) list.push(pending.met);
      else this.unsurvived.set(judged.dataKey, [pending.met]);
    }
    if (!succeeded) return;
    const met = this.unsurvived.get(judged.dataKey);
    if (!met) return;
    this.unsurvived.delete(judged.dataKey);
    for (const t of met) {
      t.survived = true;
      t.survivedBy = pending.seq;
    }
  }

  /** Judging a request raised: recorded once (redacted), and the session told to end. */
  private raised(request: ClientRequest, e: unknown): void {
    const err = e instanceof Error ? e : new Error(String(e));
    this.defect = this.findings.redact(`judging request ${request.seq} (${request.method} ${request.path}) raised ${err.name}: ${err.message}`.slice(0, 1000));
    this.onDefect?.(this.defect);
  }

  /** A run started or ended: once the request is judged (its body read) and its success answered. */
  private settleRun(pending: Pending): void {
    const { judged, runAnswer } = pending;
    if (!judged || !runAnswer) return;
    pending.runAnswer = undefined;
    if (judged.endsRun !== undefined) {
      this.runsEnded.add(judged.endsRun);
      const start = this.startOf.get(judged.endsRun);
      if (start?.whole) {
        start.facts = requestLine(start.facts);
        start.whole = false;
        this.heldRunRequests -= 1;
      }
      return;
    }
    const runId = runIdOfAnswer(runAnswer);
    if (runId !== undefined && judged.start && !this.issued.has(runId)) {
      this.issued.add(runId);
      const whole = this.heldRunRequests < MAX_OPEN_RUN_REQUESTS;
      if (whole) this.heldRunRequests += 1;
      const start: RunStart = { runId, request: pending.seq, facts: whole ? judged.start.facts : requestLine(judged.start.facts), whole, format: judged.start.format };
      this.runsStarted.push(start);
      this.startOf.set(runId, start);
    }
  }

  private judge(request: ClientRequest, session: SessionView): Judged {
    const view = viewOf(request);
    const verdicts = judgeRequest({ request, view, session }, this.settings.strict);
    const format: 'json' | 'xml' | 'none' = view.bodyBytes === 0 ? 'none' : (view.format ?? 'none');
    const facts: RequestFacts = { seq: request.seq, at: request.at, method: request.method, target: request.target, headers: request.headers, body: request.body, tooLarge: request.tooLarge };
    this.findings.add(verdicts, facts, request.operation?.id ?? 'other', format);
    this.count(request, view.query, view.parsed);
    const endsRun = runIdOfRequest(request, view);
    const op = request.operation;
    const cell = op ? { operation: op.id, format: op.body ? format : ('none' as const) } : undefined;
    if (cell) this.cells.sent(cell.operation, cell.format);
    return { endsRun, start: op?.id === 'notifyAgentRun' && endsRun === undefined ? { facts, format } : undefined, cell, dataKey: dataKeyOf(request, view), facts, format };
  }

  after(req: IncomingMessage, reply: Reply | null): void {
    const pending = this.pending.get(req);
    // Gone: the client closed the connection before a late (`slow`) answer; it never saw it.
    if (!pending) return;
    const now = Date.now();
    pending.answer = reply ? reply.status : 'reset';
    if (pending.judged) this.findings.answered(pending.seq, pending.answer);
    const trouble = reply === null || reply.status === 429 || reply.status >= 500;
    // A 429 or 503 with a readable Retry-After asks this request to wait before it is sent again.
    const value = reply && (reply.status === 429 || reply.status === 503) ? headerOf(reply, 'retry-after') : undefined;
    const ms = value === undefined ? undefined : retryAfterMs(value, now);
    const wait = reply && value !== undefined && ms !== undefined ? { status: reply.status, notBefore: now + ms, retryAfter: value } : undefined;
    const asked = this.retries.answered(pending.signature, pending.seq, trouble, now, wait);
    // Heads read before the turn that writes this answer ends were sent before the client could read it.
    if (asked) setImmediate(() => (asked.judgedFrom = this.headsRead + 1));
    if (reply && reply.status >= 200 && reply.status < 300 && pending.operation?.id === 'notifyAgentRun') {
      // Requests are judged in the order they came, so a run's start is settled before its end is judged.
      pending.runAnswer = reply;
      this.settleRun(pending);
    }
    this.settleOutcome(pending);
    this.forwardToProduction(pending, reply);
  }

  /** Earlier requests the sandbox took and production as built refused: what follows may differ because of them. */
  private productionRefused = { count: 0, first: undefined as number | undefined };
  /** Comparisons awaited (production as built's answers), for the end of the session. */
  private productionPending = 0;

  /**
   * A request the sandbox's own server answered (trouble on purpose never reached it) goes to production
   * as built too, with the same headers and body; the two answers are compared once the request is judged.
   */
  private forwardToProduction(pending: Pending, reply: Reply | null): void {
    const shadow = this.settings.production;
    const request = pending.request;
    pending.request = undefined;
    if (!shadow || !request || request.tooLarge || (pending.trouble !== undefined && pending.trouble !== 'slow')) return;
    const sandbox: AnswerSeen = reply ? { status: reply.status, contentType: headerOf(reply, 'content-type') ?? contentTypeOfKind(reply.body?.kind), body: reply.body?.text.slice(0, 2000) ?? '' } : { status: 'reset', contentType: undefined, body: '' };
    const startedRun = reply && reply.status >= 200 && reply.status < 300 && pending.operation?.id === 'notifyAgentRun' ? runIdOfAnswer(reply) : undefined;
    this.productionPending += 1;
    void shadow
      .forward({ method: request.method, path: request.path, rawQuery: request.rawQuery, headers: request.headers, body: request.body }, startedRun, runIdOfSeen)
      .then((production) => {
        pending.compared = { request, sandbox, production };
        this.settleComparison(pending);
      })
      .finally(() => (this.productionPending -= 1));
  }

  /** Once a request is judged and production as built has answered it: the comparison's findings. */
  private settleComparison(pending: Pending): void {
    const { judged, compared } = pending;
    if (!judged || !compared || this.defect !== undefined) return;
    pending.compared = undefined;
    const succeeded = (a: AnswerSeen) => typeof a.status === 'number' && a.status >= 200 && a.status < 300;
    try {
      const verdicts = judgeComparison({ request: compared.request, sandbox: compared.sandbox, production: compared.production, earlierRefused: { ...this.productionRefused } });
      this.findings.add(verdicts, judged.facts, pending.operation?.id ?? 'other', judged.format);
    } catch (e) {
      this.defect = this.findings.redact(`comparing request ${pending.seq} with production as built raised ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`.slice(0, 1000));
      this.onDefect?.(this.defect);
      return;
    }
    if (succeeded(compared.sandbox) && !succeeded(compared.production)) {
      this.productionRefused.count += 1;
      this.productionRefused.first ??= pending.seq;
    }
  }

  /** Resolves once production as built has answered every request sent to it (the session's end waits for it). */
  async productionSettled(): Promise<void> {
    await this.settings.production?.settled();
    // The comparisons run in the callbacks of those answers: one turn later.
    for (let i = 0; i < 10 && this.productionPending > 0; i += 1) await new Promise((r) => setImmediate(r));
  }

  /** A request's answer is complete or its connection closed (mid-body too: then it was never judged nor counted). */
  finished(req: IncomingMessage): void {
    if (!this.open.delete(req)) return;
    if (this.pending.delete(req)) this.answeredCount += 1;
    this.onAnswered?.(this.answeredCount, this.open.size);
  }

  private inject(kind: InjectKind): Reply | null | Promise<Reply | null | undefined> {
    const retryAfter = { 'Retry-After': String(this.settings.retryAfterSeconds) };
    switch (kind) {
      case '429':
        return json(429, { statusCode: 429, message: `Rate limit is exceeded. Try again in ${this.settings.retryAfterSeconds} seconds.` }, retryAfter);
      case '503':
        return json(503, { statusCode: 503, message: 'The service is down for maintenance.' }, retryAfter);
      case '401':
        return json(401, { statusCode: 401, message: 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.' }, { 'WWW-Authenticate': 'AzureApiManagementKey realm="iswc",name="Ocp-Apim-Subscription-Key",type="header"' });
      case 'reset':
        return null;
      case 'slow':
        // The reference server answers, late: the handler runs after the delay.
        return new Promise((resolve) => {
          const timer = setTimeout(() => {
            this.slowTimers.delete(timer);
            resolve(undefined);
          }, this.settings.slowMs);
          this.slowTimers.add(timer);
        });
    }
  }

  private count(request: ClientRequest, query: ReadonlyArray<{ name: string; value: string }>, parsed: ReturnType<typeof viewOf>['parsed']): void {
    const ua = request.headers['user-agent'];
    if (ua !== undefined) this.userAgents.set(ua, (this.userAgents.get(ua) ?? 0) + 1);
    const op = request.operation?.id ?? 'other';
    this.operationCounts.set(op, (this.operationCounts.get(op) ?? 0) + 1);
    // The agency the client acts for: the query's agency (merge, delete, demerge), a run's agencyCode.
    const agencyParam = request.operation?.params.find((p) => p.component === 'AgencyCode')?.name;
    let agency = agencyParam ? query.find((p) => p.name === agencyParam)?.value : undefined;
    if (agency === undefined && request.operation?.body?.resource === 'AgentRun' && parsed?.ok && parsed.value !== null && typeof parsed.value === 'object') {
      const code = (parsed.value as Record<string, unknown>).agencyCode;
      if (typeof code === 'string') agency = code;
    }
    if (agency !== undefined) this.agencies.set(agency, (this.agencies.get(agency) ?? 0) + 1);
  }

  /** Ends the session's own timers (a `slow` answer still pending is dropped with its connection). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.slowTimers) clearTimeout(t);
    this.slowTimers.clear();
  }

  /** The session's checks (runs left open), then everything the report needs of the session. */
  conclude(): SessionSummary {
    this.judgeQueued();
    const op = this.runOperation?.id ?? null;
    const byRequest = new Map(this.runsStarted.map((r) => [r.request, r]));
    if (this.defect === undefined) {
      try {
        // Runs kept whole first: the report keeps the first findings of each group, with the request as sent.
        const ordered = [...this.runsStarted.filter((r) => r.whole), ...this.runsStarted.filter((r) => !r.whole)];
        for (const v of judgeSession({ runsStarted: ordered, runsEnded: this.runsEnded }, this.settings.strict)) {
          const start = v.request === undefined ? undefined : byRequest.get(v.request);
          if (!start) continue;
          this.findings.add([{ ...v, sections: executionSections(v.sections, op) }], start.facts, op ?? 'other', start.format);
        }
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        this.defect = this.findings.redact(`judging the session's end raised ${err.name}: ${err.message}`.slice(0, 1000));
      }
    }
    const sortDesc = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
    return {
      requests: this.seq,
      judged: this.judgedCount,
      operations: Object.fromEntries(this.operationCounts),
      userAgents: sortDesc(this.userAgents).map(([ua]) => ua),
      agencies: Object.fromEntries(sortDesc(this.agencies)),
      agency: sortDesc(this.agencies)[0]?.[0] ?? null,
      trouble: this.troubleMet.map((t) => ({ ...t })),
      runs: { started: this.runsStarted.length, ended: this.runsStarted.filter((r) => this.runsEnded.has(r.runId)).length },
      cells: this.cells.list(),
      lateRequests: { count: this.lateCount, first: this.lateShown.map((r) => ({ ...r })) },
      defect: this.defect ?? null,
    };
  }
}

/** The media type the reference server writes for a body of this kind (server/wire.ts). */
function contentTypeOfKind(kind: string | undefined): string | undefined {
  if (kind === undefined) return undefined;
  return ({ json: 'application/json', problem: 'application/problem+json', xml: 'application/xml', text: 'text/plain', html: 'text/html' } as Record<string, string>)[kind];
}

/** The runId of production as built's answer to a run start. */
function runIdOfSeen(answer: AnswerSeen): string | undefined {
  if (typeof answer.status !== 'number' || answer.status < 200 || answer.status >= 300) return undefined;
  return runIdOfAnswer({ status: answer.status, body: { kind: /xml/i.test(answer.contentType ?? '') ? 'xml' : 'json', text: answer.body } });
}

/** The runId of a run notification's 200 (2.2), in JSON or XML. */
function runIdOfAnswer(reply: Reply): string | undefined {
  const text = reply.body?.text.replace(/^\uFEFF/, '');
  if (text === undefined) return undefined;
  const field = runIdField();
  const decoded = reply.body?.kind === 'xml' ? decodeXml('CsnNotification', text) : decodeJson(text);
  if (!decoded.ok || decoded.value === null || typeof decoded.value !== 'object') return undefined;
  const runId = (decoded.value as Record<string, unknown>)[field];
  return typeof runId === 'string' ? runId : undefined;
}
