/**
 * A small agency client of the ISWC Agency Submission API, as an agency would write one: the agent's run
 * notifications, merge, demerge and submission delete, in JSON or XML, on undici with keep-alive. It
 * honours Retry-After on 429 and 503, retries a reset connection after a short backoff, and gives up after
 * a bounded number of retries. It knows the API from the interface document only (it imports nothing of
 * the harness).
 *
 * `faults` makes it misbehave on purpose, one way per fault of the catalogue (faults.ts): the sandbox's
 * client checks must catch each one.
 */
import { Agent, request } from 'undici';
import { XMLParser } from 'fast-xml-parser';

export type BodyFormat = 'json' | 'xml';

/** Misbehaviours the catalogue switches on (faults.ts): each breaks one thing the document or HTTP asks. */
export type ClientFaultSwitch =
  | 'agency-code-4'
  | 'merge-without-key'
  | 'xml-wrong-root'
  | 'iswc-item-t123'
  | 'workcode-21'
  | 'retry-too-soon'
  | 'retry-forever'
  | 'wrong-path'
  | 'delete-with-body'
  | 'content-type-text'
  | 'no-content-type'
  | 'json-trailing-comma'
  | 'pascal-case-fields'
  | 'counter-word'
  | 'counter-as-string'
  | 'workcode-astral'
  | 'extra-field'
  | 'xml-namespace'
  | 'preferred-check-digit'
  | 'no-reason-code';

export interface AgencyClientOptions {
  /** The API's base URL ({base_url} of the document), no trailing slash needed. */
  baseUrl: string;
  /** The subscription key (Ocp-Apim-Subscription-Key, section 5). */
  key: string;
  format?: BodyFormat;
  userAgent?: string;
  /** Retries after a 429 or 503 (waiting its Retry-After) or a reset connection; default 3. */
  maxRetries?: number;
  /** Whole-request timeout; default 30 s. */
  timeoutMs?: number;
  /** Cancels the client: no request is sent once it is aborted, and a wait for a retry ends (a request in flight still gets its answer). */
  signal?: AbortSignal;
  faults?: Iterable<ClientFaultSwitch>;
}

export interface RunCounters {
  updateRecordCount: number;
  newRecordCount: number;
  overallRejected: number;
  overallSent: number;
  successfulCount: number;
  businessRejectionCount: number;
  technicalRejectionCount: number;
}

export interface AgencyWork {
  agencyCode: string;
  agencyWorkCode: string;
}

/** An answer the client did not expect (section 7), with its status and body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what}: HTTP ${status} ${body.slice(0, 200)}`);
  }
}

const ZERO: RunCounters = { updateRecordCount: 0, newRecordCount: 0, overallRejected: 0, overallSent: 0, successfulCount: 0, businessRejectionCount: 0, technicalRejectionCount: 0 };
const RUN_FIELDS = ['agentVersion', 'agencyCode', 'runId', 'updateRecordCount', 'newRecordCount', 'overallRejected', 'overallSent', 'successfulCount', 'businessRejectionCount', 'technicalRejectionCount'];
const xmlReader = new XMLParser({ removeNSPrefix: true, parseTagValue: false });

/** A fixed backoff that ignores Retry-After (the fault `retry-too-soon`). */
const FIXED_BACKOFF_MS = 1500;

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Retry-After (RFC 9110 §10.2.3): seconds or an HTTP date, in ms; 1 s when absent or unreadable. */
function retryAfterMs(value: string | string[] | undefined): number {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return 1000;
  if (/^\s*\d+\s*$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? 1000 : Math.max(0, at - Date.now());
}

export class AgencyClient {
  readonly format: BodyFormat;
  private readonly base: string;
  private readonly agent: Agent;
  private readonly faults: ReadonlySet<ClientFaultSwitch>;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  /** Requests sent, retries included. */
  sent = 0;

  constructor(private readonly options: AgencyClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.format = options.format ?? 'json';
    this.faults = new Set(options.faults ?? []);
    this.maxRetries = options.maxRetries ?? 3;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'example-agency-client/1.0';
    this.agent = new Agent({ keepAliveTimeout: 5_000, connections: 4 });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** 4.1: a run starts with a notification without runId; the server answers the run's identifier (2.2). */
  async startRun(agencyCode: string, agentVersion: string): Promise<string> {
    const answer = await this.send('POST', this.faults.has('wrong-path') ? '/agent/runs' : '/agent/run', {}, this.runBody({ agentVersion, agencyCode, ...ZERO }), 'run start');
    const runId = this.runIdOf(answer);
    if (!runId) throw new ApiError(200, answer, 'run start: no runId in the answer');
    return runId;
  }

  /** 4.1: a notification carrying the runId ends that run, with its counters. */
  async endRun(runId: string, agencyCode: string, agentVersion: string, counters: RunCounters): Promise<void> {
    await this.send('POST', '/agent/run', {}, this.runBody({ agentVersion, agencyCode, runId, ...counters }), 'run end');
  }

  /** 4.2: merges the ISWCs and agency works into the preferred ISWC. */
  async merge(preferredIswc: string, agency: string, items: { iswcs?: string[]; agencyWorks?: AgencyWork[] }): Promise<void> {
    const iswcs = [...(items.iswcs ?? []), ...(this.faults.has('iswc-item-t123') ? ['T123'] : [])];
    let works = items.agencyWorks ?? [];
    if (this.faults.has('workcode-astral') && works[0]) works = [{ ...works[0], agencyWorkCode: `${works[0].agencyWorkCode.slice(0, 10).padEnd(19, '0')}\u{1F3B5}` }, ...works.slice(1)];
    const value: Record<string, unknown> = { iswcs, agencyWorks: works };
    if (this.faults.has('extra-field')) value.comment = 'merged by the example client';
    const body = this.format === 'xml' ? this.xml('MergeRequest', [...iswcs.map((i) => `<iswcs>${escapeXml(i)}</iswcs>`), ...works.map((w) => `<agencyWorks><agencyCode>${escapeXml(w.agencyCode)}</agencyCode><agencyWorkCode>${escapeXml(w.agencyWorkCode)}</agencyWorkCode></agencyWorks>`)].join('')) : this.json(value);
    await this.send('POST', '/iswc/merge', { preferredIswc, agency }, body, 'merge', { withoutKey: this.faults.has('merge-without-key') });
  }

  /** 4.4: removes the agency work merged into the preferred ISWC. */
  async demerge(preferredIswc: string, agency: string, workcode: string): Promise<void> {
    const iswc = this.faults.has('preferred-check-digit') ? `${preferredIswc.slice(0, -1)}${(Number(preferredIswc.slice(-1)) + 1) % 10}` : preferredIswc;
    const code = this.faults.has('workcode-21') ? workcode.padEnd(21, 'X') : workcode;
    await this.send('DELETE', '/iswc/merge', { preferredIswc: iswc, agency, workcode: code }, undefined, 'demerge');
  }

  /** 4.3: deletes a submission, found by preferred ISWC, agency, work code and source database. */
  async deleteSubmission(s: { preferredIswc: string; agency: string; workcode: string; sourceDb: number; reasonCode: string }): Promise<void> {
    const query: Record<string, string> = { preferredIswc: s.preferredIswc, agency: s.agency, workcode: s.workcode, sourceDb: String(s.sourceDb) };
    if (!this.faults.has('no-reason-code')) query.reasonCode = s.reasonCode;
    const body = this.faults.has('delete-with-body') ? this.json({ reason: s.reasonCode }) : undefined;
    await this.send('DELETE', '/submission', query, body, 'submission delete');
  }

  private runBody(fields: Record<string, string | number>): { text: string; type: string } {
    const value: Record<string, unknown> = { ...fields };
    if (this.faults.has('agency-code-4')) value.agencyCode = `${String(fields.agencyCode)}0`;
    if (this.faults.has('counter-word')) value.updateRecordCount = 'many';
    if (this.faults.has('counter-as-string')) for (const k of Object.keys(ZERO)) value[k] = String(value[k]);
    if (this.format === 'xml') {
      const inner = RUN_FIELDS.filter((k) => value[k] !== undefined).map((k) => `<${k}>${escapeXml(String(value[k]))}</${k}>`).join('');
      return this.xml(this.faults.has('xml-wrong-root') ? 'AgentRunRequest' : 'AgentRun', inner);
    }
    return this.json(value);
  }

  private json(value: Record<string, unknown>): { text: string; type: string } {
    const named = this.faults.has('pascal-case-fields') ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k.charAt(0).toUpperCase() + k.slice(1), v])) : value;
    let text = JSON.stringify(named);
    if (this.faults.has('json-trailing-comma')) text = text.replace(/}$/, ',}');
    return { text, type: this.faults.has('content-type-text') ? 'text/plain' : 'application/json' };
  }

  private xml(root: string, inner: string): { text: string; type: string } {
    const ns = this.faults.has('xml-namespace') ? ' xmlns="http://schemas.datacontract.org/2004/07/Iswc.Api.Models"' : '';
    return { text: `<?xml version="1.0" encoding="UTF-8"?><${root}${ns}>${inner}</${root}>`, type: this.faults.has('content-type-text') ? 'text/plain' : 'application/xml' };
  }

  private runIdOf(answer: string): string | undefined {
    const text = answer.trim();
    if (text.startsWith('<')) {
      const doc = xmlReader.parse(text) as Record<string, { runId?: unknown } | undefined>;
      const runId = doc.CsnNotification?.runId;
      return typeof runId === 'string' ? runId : undefined;
    }
    const value = JSON.parse(text) as { runId?: unknown };
    return typeof value.runId === 'string' ? value.runId : undefined;
  }

  /** Sends one request; a 429 or 503 waits its Retry-After and a reset connection a backoff, then retries (bounded). */
  private async send(method: 'POST' | 'DELETE', path: string, query: Record<string, string>, body: { text: string; type: string } | undefined, what: string, opts: { withoutKey?: boolean } = {}): Promise<string> {
    const qs = new URLSearchParams(query).toString();
    const url = `${this.base}${path}${qs ? `?${qs}` : ''}`;
    const headers: Record<string, string> = { 'user-agent': this.userAgent, accept: this.format === 'xml' ? 'application/xml' : 'application/json' };
    if (!opts.withoutKey) headers['ocp-apim-subscription-key'] = this.options.key;
    if (body && !this.faults.has('no-content-type')) headers['content-type'] = body.type;
    const maxRetries = this.faults.has('retry-forever') ? Number.POSITIVE_INFINITY : this.maxRetries;
    const signal = this.options.signal;
    for (let attempt = 0; ; attempt += 1) {
      let status: number;
      let text: string;
      let retryAfter: string | string[] | undefined;
      if (signal?.aborted) throw new Error(`${what}: cancelled`);
      try {
        this.sent += 1;
        const res = await request(url, { method, headers, body: body?.text, dispatcher: this.agent, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
        status = res.statusCode;
        retryAfter = res.headers['retry-after'];
        text = await res.body.text();
      } catch (e) {
        if (attempt >= maxRetries) throw e;
        // A reset connection: back off a little (a faulty client retries at once).
        await sleep(this.faults.has('retry-forever') ? 0 : 200 * 2 ** attempt, signal);
        continue;
      }
      if ((status === 429 || status === 503) && attempt < maxRetries) {
        await sleep(this.faults.has('retry-too-soon') ? FIXED_BACKOFF_MS : retryAfterMs(retryAfter), signal);
        continue;
      }
      if (status >= 400) throw new ApiError(status, text, what);
      return text;
    }
  }
}
