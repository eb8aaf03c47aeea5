import { request } from 'node:http';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { startReferenceServer } from '../../server/index.ts';
import { httpServer } from '../../server/hostile/servers.ts';
import type { SeenRequest, TestServer } from '../../server/hostile/servers.ts';

/** What the gateway answers itself instead of passing the request on. */
export interface GatewayAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Gateway extends TestServer {
  /** Every request that reached the gateway, in order, with when it came (Date.now()). */
  arrivals: Array<{ at: number; method: string; url: string; answeredBy: 'gateway' | 'server' }>;
}

/**
 * A gateway in front of the reference server, on 127.0.0.1, as API Management stands in front of
 * production: `answer` decides, for the n-th request (1-based), whether the gateway answers it itself
 * (throttling, maintenance) or passes it to the server. It counts every request that reaches it.
 */
export async function startGateway(options: { key: string; answer: (n: number, seen: SeenRequest) => GatewayAnswer | undefined }): Promise<Gateway> {
  const upstream = await startReferenceServer({ profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), key: options.key });
  const arrivals: Gateway['arrivals'] = [];
  const front = await httpServer((seen, res) => {
    const own = options.answer(arrivals.length + 1, seen);
    arrivals.push({ at: Date.now(), method: seen.method, url: seen.url, answeredBy: own ? 'gateway' : 'server' });
    if (own) {
      const body = own.body ?? '';
      res.writeHead(own.status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...own.headers });
      res.end(body);
      return;
    }
    const forward = request(`${upstream.url}${seen.url}`, { method: seen.method, headers: { ...seen.headers, host: new URL(upstream.url).host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    forward.end(seen.body);
  });
  return {
    url: front.url,
    port: front.port,
    arrivals,
    async close(): Promise<void> {
      await front.close();
      await upstream.close();
    },
  };
}
