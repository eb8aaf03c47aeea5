/**
 * Small servers for client tests. Every server listens on 127.0.0.1, port 0, tracks its sockets and
 * destroys them on close, so that nothing is left hanging after a test.
 */
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface TestServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1, port 0; `close` destroys every socket the server accepted. */
export async function listen(server: Server, sockets: Set<Socket>, onClose?: () => void): Promise<TestServer> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined); // resets by the client are expected
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
    port,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        onClose?.();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}

/** A server that hands every raw TCP connection to `onSocket` (for bytes that are not HTTP). */
export function rawServer(onSocket: (socket: Socket) => void, onClose?: () => void): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => onSocket(socket));
  return listen(server, sockets, onClose);
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  rawHeaders: string[];
  body: Buffer;
}

/** An HTTP server that records every request (with its body) before calling `handler`. */
export async function httpServer(
  handler: (req: SeenRequest, res: ServerResponse, raw: IncomingMessage) => void,
  onClose?: () => void,
): Promise<TestServer & { seen: SeenRequest[] }> {
  const sockets = new Set<Socket>();
  const seen: SeenRequest[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) };
      seen.push(record);
      handler(record, res, req);
    });
  });
  const base = await listen(server, sockets, onClose);
  return Object.assign(base, { seen });
}

/**
 * A port with nothing listening on it (bound, then released), taken below the range systems hand out for
 * port 0 (Linux from 32768, macOS and Windows from 49152): a server that another test starts meanwhile is
 * never given it, so nothing answers there in its place (a run against it was once judged against one).
 */
export async function closedPort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = CLOSED_PORTS.from + Math.floor(Math.random() * (CLOSED_PORTS.to - CLOSED_PORTS.from));
    if (await bindsAndReleases(port)) return port;
  }
  throw new Error(`no free port between ${CLOSED_PORTS.from} and ${CLOSED_PORTS.to}`);
}

const CLOSED_PORTS = { from: 20_000, to: 32_000 } as const;

function bindsAndReleases(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Collects closers and runs them all (for afterEach). */
export class Cleanup {
  private readonly closers: Array<() => Promise<void>> = [];
  add<T extends { close(): Promise<void> }>(thing: T): T {
    this.closers.push(() => thing.close());
    return thing;
  }
  defer(fn: () => void): void {
    this.closers.push(() => Promise.resolve(fn()));
  }
  async run(): Promise<void> {
    const closers = this.closers.splice(0).reverse();
    await Promise.allSettled(closers.map((c) => c()));
  }
}
