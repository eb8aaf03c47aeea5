import { request as httpRequest } from 'node:http';
import type { AnswerSeen } from '../check/client/types.ts';
import type { TargetProfile } from '../contract/profile/types.ts';
import type { RunningServer } from '../../server/index.ts';
import { profileForChoiceSet, startReferenceServer } from '../../server/index.ts';

/**
 * Production as built beside the sandbox: a second reference server playing the model production-as-built
 * (its legitimate choices and its deviations from the document, server/models.ts), sent every request the
 * sandbox's own server answered, in the order it answered them, with the client's headers and body as sent.
 * Its answers say where production would answer the client otherwise (client.production-as-built),
 * whatever choices the sandbox makes. Its runIds are its own: a run the client ends with the sandbox's
 * runId is ended there with production's runId of the same start.
 */

export const PRODUCTION_MODEL = 'production-as-built';

/** How long one forwarded request may take (loopback, in-process state: milliseconds in practice). */
const FORWARD_TIMEOUT_MS = 10_000;
/** The start of an answer's body kept for the comparison. */
const BODY_KEPT = 2000;
/** runIds remembered (the sandbox's → production's): the oldest forgotten first. */
const MAX_RUNS = 1000;

/** Headers a forwarding hop does not pass on (RFC 9110 §7.6.1), and those it sets itself. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length', 'expect']);

export interface ForwardedRequest {
  method: string;
  /** Path and query, as the client sent them. */
  path: string;
  rawQuery: string;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

export class ProductionShadow {
  private chain: Promise<unknown> = Promise.resolve();
  private readonly runIds = new Map<string, string>();
  private closed = false;

  private constructor(private readonly server: RunningServer) {}

  /** Starts production as built on a free loopback port, holding what `profile` says and taking `key`. */
  static async start(profile: TargetProfile, key: string): Promise<ProductionShadow> {
    const server = await startReferenceServer({ profile: profileForChoiceSet(profile, PRODUCTION_MODEL), key, model: PRODUCTION_MODEL, host: '127.0.0.1', port: 0 });
    return new ProductionShadow(server);
  }

  /**
   * Sends a request the sandbox answered to production as built, after those sent before it; resolves with
   * production's answer. `runIdOf` reads the runId of a run start's success answer: given the sandbox's, the
   * two are paired, so that the client's end of that run reaches production's run.
   */
  forward(request: ForwardedRequest, sandboxRunId: string | undefined, runIdOf: (answer: AnswerSeen) => string | undefined): Promise<AnswerSeen> {
    const sent = this.chain.then(async () => {
      const answer = await this.send(request);
      const productionRunId = sandboxRunId === undefined ? undefined : runIdOf(answer);
      if (sandboxRunId !== undefined && productionRunId !== undefined) {
        this.runIds.set(sandboxRunId, productionRunId);
        if (this.runIds.size > MAX_RUNS) this.runIds.delete(this.runIds.keys().next().value as string);
      }
      return answer;
    });
    this.chain = sent.catch(() => undefined);
    return sent;
  }

  /** Resolves once every request forwarded so far is answered. */
  settled(): Promise<void> {
    return this.chain.then(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.server.close();
  }

  /** The body with the sandbox's runIds the client named replaced by production's of the same runs. */
  private bodyFor(body: Buffer): Buffer {
    if (body.length === 0 || this.runIds.size === 0) return body;
    let text = body.toString('utf8');
    let changed = false;
    for (const [sandbox, production] of this.runIds) {
      if (!text.includes(sandbox)) continue;
      text = text.split(sandbox).join(production);
      changed = true;
    }
    return changed ? Buffer.from(text, 'utf8') : body;
  }

  private send(request: ForwardedRequest): Promise<AnswerSeen> {
    if (this.closed) return Promise.resolve({ status: 'none', contentType: undefined, body: '' });
    const body = this.bodyFor(request.body);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    if (body.length > 0) headers['content-length'] = String(body.length);
    return new Promise((resolve) => {
      const req = httpRequest(
        `${this.server.url}${request.path}${request.rawQuery !== '' ? `?${request.rawQuery}` : ''}`,
        { method: request.method, headers, agent: false, timeout: FORWARD_TIMEOUT_MS },
        (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          res.on('data', (chunk: Buffer) => {
            if (kept < BODY_KEPT) chunks.push(chunk);
            kept += chunk.length;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8').slice(0, BODY_KEPT) }));
          res.on('error', () => resolve({ status: 'reset', contentType: undefined, body: '' }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) => resolve({ status: e.message === 'timeout' ? 'none' : 'reset', contentType: undefined, body: '' }));
      req.end(body.length > 0 ? body : undefined);
    });
  }
}
