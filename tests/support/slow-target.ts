import { request } from 'node:http';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { startReferenceServer } from '../../server/index.ts';
import { httpServer } from '../../server/hostile/servers.ts';
import type { TestServer } from '../../server/hostile/servers.ts';

export interface SlowTarget extends TestServer {
  /** When each request arrived (Date.now()). */
  arrivals: number[];
}

/**
 * The reference server behind a proxy that answers each request `delayMs` late: a target slow enough for a
 * run to be mid-way when a test signals it. Both listen on 127.0.0.1 and close together.
 */
export async function startSlowTarget(options: { key: string; delayMs: number }): Promise<SlowTarget> {
  const upstream = await startReferenceServer({ profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), key: options.key });
  const arrivals: number[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const proxy = await httpServer(
    (seen, res) => {
      arrivals.push(Date.now());
      const timer = setTimeout(() => {
        timers.delete(timer);
        const headers = { ...seen.headers, host: new URL(upstream.url).host };
        const forward = request(`${upstream.url}${seen.url}`, { method: seen.method, headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        forward.on('error', () => res.destroy());
        forward.end(seen.body);
      }, options.delayMs);
      timers.add(timer);
    },
    () => timers.forEach((t) => clearTimeout(t)),
  );
  return {
    url: proxy.url,
    port: proxy.port,
    arrivals,
    async close(): Promise<void> {
      await proxy.close();
      await upstream.close();
    },
  };
}
