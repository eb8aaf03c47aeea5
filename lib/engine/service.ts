import { randomBytes } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { GroupVerdict } from './protocol.ts';

/**
 * The run's engine as a tiny local service: the global setup starts it on 127.0.0.1 next to the engine,
 * and each Playwright test posts the keys of its cases and gets its verdict. A random token, handed to
 * the workers in the run context, keeps other local processes from driving it.
 */
export interface EngineService {
  url: string;
  token: string;
  close(): Promise<void>;
}

export interface GroupRunner {
  runGroup(keys: readonly string[]): Promise<GroupVerdict>;
}

const TOKEN_HEADER = 'x-iswc-engine-token';

export async function startEngineService(engine: GroupRunner): Promise<EngineService> {
  const token = randomBytes(16).toString('hex');
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const answer = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/group') return answer(404, { error: 'POST /group' });
    if (req.headers[TOKEN_HEADER] !== token) return answer(403, { error: 'wrong engine token' });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let keys: string[];
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { keys?: unknown };
        if (!Array.isArray(parsed.keys) || !parsed.keys.every((k) => typeof k === 'string')) throw new Error('keys must be an array of case keys');
        keys = parsed.keys;
      } catch (e) {
        return answer(400, { error: (e as Error).message });
      }
      engine.runGroup(keys).then(
        (verdict) => answer(200, verdict),
        (e: unknown) => answer(500, { error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
      );
    });
  });
  // A paced group may take minutes (10 requests per minute against a remote target).
  server.timeout = 0;
  server.requestTimeout = 0;
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/** Asks the run's engine to run the cases of one test (worker side: node:http only, nothing of the harness). */
export function askEngine(url: string, token: string, keys: readonly string[]): Promise<GroupVerdict> {
  const body = JSON.stringify({ keys });
  return new Promise<GroupVerdict>((resolve, reject) => {
    const req = request(`${url}/group`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), [TOKEN_HEADER]: token } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) {
          let message = text;
          try {
            message = (JSON.parse(text) as { error?: string }).error ?? text;
          } catch {
            // not JSON: the text as it came
          }
          reject(new Error(`the run's engine answered ${res.statusCode}: ${message}`));
          return;
        }
        try {
          resolve(JSON.parse(text) as GroupVerdict);
        } catch (e) {
          reject(new Error(`the run's engine answered something that is not JSON: ${(e as Error).message}`));
        }
      });
    });
    req.on('error', (e) => reject(new Error(`the run's engine at ${url} is unreachable (${e.message}); it lives in the process of the global setup`)));
    req.end(body);
  });
}
