/**
 * A request rate that holds across Playwright workers. The main process starts a tiny pacer on
 * 127.0.0.1; every worker's HTTP client awaits a token from it before each attempt. One shared
 * schedule: grants are spaced by 1/rate seconds, the first one immediate.
 */
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Pool } from 'undici';

export interface Pacer {
  /** Base URL of the pacer, e.g. http://127.0.0.1:41234 (tokens at `${url}/token`). */
  url: string;
  close(): Promise<void>;
  /** Tokens granted so far. */
  granted(): number;
}

/** A gate usable as `beforeSend`; `close()` releases its connections. */
export type Gate = (() => Promise<void>) & { close(): Promise<void> };

function intervalOf(ratePerSecond: number): number {
  if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0) {
    throw new Error(`A pacer needs a positive, finite rate in requests per second, got ${ratePerSecond}`);
  }
  return 1000 / ratePerSecond;
}

/**
 * The shared schedule: a FIFO of waiters released one at a time, each at least intervalMs after the
 * previous release as actually measured (a late timer never lets the next grant come early).
 */
class Spacer {
  private last = -Infinity;
  private readonly queue: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly intervalMs: number) {}

  take(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.stopped) return;
      this.queue.push(resolve);
      this.pump();
    });
  }

  /** Drops the waiters (their promises never settle) and the timer. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pump(): void {
    while (this.timer === undefined && this.queue.length > 0) {
      const now = performance.now();
      const wait = this.last + this.intervalMs - now;
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, Math.ceil(wait));
        return;
      }
      this.last = now;
      const next = this.queue.shift();
      next?.();
    }
  }
}

export async function startPacer(ratePerSecond: number): Promise<Pacer> {
  const intervalMs = intervalOf(ratePerSecond);
  const spacer = new Spacer(intervalMs);
  let granted = 0;
  const sockets = new Set<Socket>();

  const grant = (res: ServerResponse): void => {
    if (res.destroyed) return; // the waiter went away; its slot stays used (conservative)
    granted += 1;
    res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
    res.end('ok\n');
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/token') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('GET /token\n');
      return;
    }
    void spacer.take().then(() => grant(res));
  });
  // Waiters may legitimately wait for minutes (10 requests per minute shared by many workers).
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
    granted: () => granted,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        spacer.stop();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const cause = (err as { cause?: unknown }).cause;
    const causeCode = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
    return [typeof code === 'string' ? code : undefined, typeof causeCode === 'string' ? causeCode : undefined, err.message].filter(Boolean).join(': ');
  }
  return String(err);
}

/**
 * A gate that awaits a token from the pacer at `url` (the value of startPacer().url). If the pacer is
 * unreachable or answers anything but 200, the gate rejects with a clear error: requests are never
 * sent unpaced.
 */
export function pacerGate(url: string): Gate {
  let origin: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:') throw new Error('not http:');
    origin = parsed.origin;
  } catch (e) {
    throw new Error(`Invalid pacer URL ${JSON.stringify(url)} (${describe(e)})`);
  }
  // Dedicated pool, long timeouts: a token may take minutes at 10 requests per minute.
  const pool = new Pool(origin, {
    connections: 64,
    headersTimeout: 0,
    bodyTimeout: 60_000,
    keepAliveTimeout: 30_000,
    connect: { timeout: 10_000 },
  });
  const gate = async (): Promise<void> => {
    let status: number;
    try {
      const res = await pool.request({ method: 'GET', path: '/token' });
      status = res.statusCode;
      await res.body.dump();
    } catch (e) {
      throw new Error(`Rate pacer at ${origin} is unreachable (${describe(e)}); refusing to send requests unpaced`);
    }
    if (status !== 200) throw new Error(`Rate pacer at ${origin} answered ${status} to GET /token; refusing to send requests unpaced`);
  };
  return Object.assign(gate, { close: () => pool.close() });
}

/** The same spacing within one process, without a server. */
export function localGate(ratePerSecond: number): Gate {
  const spacer = new Spacer(intervalOf(ratePerSecond));
  const gate = (): Promise<void> => spacer.take();
  return Object.assign(gate, {
    close: () => {
      spacer.stop();
      return Promise.resolve();
    },
  });
}
