/**
 * Whole targets that are broken: every request gets the same hostile treatment. What a run against a
 * broken deployment meets (a proxy resetting connections, a port that speaks another protocol, a login
 * page redirecting elsewhere, a compression bomb). The unit tests run the suite against each in-process;
 * `npm run bench` runs the full Playwright conformance run against each and times it.
 *
 * Every server listens on 127.0.0.1, port 0, counts the connections and requests it saw, and ends its
 * timers and sockets on close.
 */
import { gzipSync } from 'node:zlib';
import type { Socket } from 'node:net';
import { closedPort, httpServer, rawServer } from './servers.ts';
import type { TestServer } from './servers.ts';

export interface HostileTarget extends TestServer {
  /** Requests (or raw connections, for servers that do not speak HTTP) the target saw. */
  hits(): number;
}

export interface HostileKind {
  id: string;
  /** What the target does to every request. */
  description: string;
  /** The transport error code, or the answer, the client reports for each request. */
  symptom: string;
  /**
   * The response size limit (ISWC_MAX_BODY) a run needs for this kind's answers to meet the limit the kind
   * is about rather than the size limit; unset: the default does.
   */
  maxBodyBytes?: number;
  start(): Promise<HostileTarget>;
}

/** A gzip body of about 100 KiB that would inflate to 100 MiB: made when such a target first starts (half a second of CPU, which every process importing this module paid). */
let gzipBombMemo: Buffer | undefined;
function gzipBomb(): Buffer {
  gzipBombMemo ??= gzipSync(Buffer.alloc(100 * 1024 * 1024), { level: 9 });
  return gzipBombMemo;
}

function raw(onData: (socket: Socket, timers: Set<NodeJS.Timeout>) => void, onConnect = false): Promise<HostileTarget> {
  let count = 0;
  const timers = new Set<NodeJS.Timeout>();
  return rawServer(
    (socket) => {
      if (onConnect) {
        count += 1;
        onData(socket, timers);
        return;
      }
      // One request per connection: each of these servers closes, resets or keeps the connection for good.
      socket.once('data', () => {
        count += 1;
        onData(socket, timers);
      });
    },
    () => timers.forEach((t) => clearInterval(t)),
  ).then((server) => Object.assign(server, { hits: () => count }));
}

/** A well-formed body nested `depth` levels deep: `[[…]]` or `<a><a>…</a></a>`. */
function deepBody(format: 'json' | 'xml', depth: number): Buffer {
  return Buffer.from(format === 'json' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`);
}

/** A target answering every request 200 with a body nested `depth` levels deep. */
function deepKind(format: 'json' | 'xml', depth: number, label: string): HostileKind {
  const bytes = depth * (format === 'json' ? 2 : 7);
  return {
    id: `deep-${format}-${label}`,
    description: `answers ${format === 'json' ? 'JSON arrays in arrays' : 'XML elements in elements'} ${depth.toLocaleString('en')} levels deep (${bytes.toLocaleString('en')} bytes)`,
    symptom: 'TOO_DEEP',
    ...(bytes > 1024 * 1024 ? { maxBodyBytes: 2 ** Math.ceil(Math.log2(bytes)) } : {}),
    start: async () => {
      const body = deepBody(format, depth);
      const server = await httpServer((_req, res) => {
        res.writeHead(200, { 'content-type': format === 'json' ? 'application/json' : 'application/xml', 'content-length': String(body.length) });
        res.end(body);
      });
      return Object.assign(server, { hits: () => server.seen.length });
    },
  };
}

/** The fourteen kinds of broken target. */
export const HOSTILE_KINDS: readonly HostileKind[] = [
  {
    id: 'silent',
    description: 'accepts connections and never answers',
    symptom: 'TIMEOUT',
    start: () => raw(() => undefined),
  },
  {
    id: 'reset',
    description: 'resets every connection as soon as a request arrives',
    symptom: 'CONNECTION_RESET',
    start: () => raw((socket) => socket.resetAndDestroy()),
  },
  {
    id: 'reset-mid-headers',
    description: 'starts the status line and headers, then resets the connection',
    symptom: 'CONNECTION_RESET',
    start: () => raw((socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Type: appl', () => socket.resetAndDestroy())),
  },
  {
    id: 'not-http',
    description: 'answers bytes that are not HTTP (an SSH banner)',
    symptom: 'PROTOCOL',
    start: () => raw((socket) => socket.end('SSH-2.0-OpenSSH_9.6 not http at all\r\n\r\n')),
  },
  {
    id: 'truncated',
    description: 'announces 1,000 bytes of body, sends 10 and closes',
    symptom: 'PROTOCOL',
    start: () => raw((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"runId":"')),
  },
  {
    id: 'oversized',
    description: 'answers a body far over the size limit, as fast as it can',
    symptom: 'BODY_TOO_LARGE',
    start: async () => {
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      const server = await httpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        let sent = 0;
        const pump = (): void => {
          while (sent < 64 && !res.destroyed) {
            sent += 1;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          if (!res.destroyed) res.end();
        };
        pump();
      });
      return Object.assign(server, { hits: () => server.seen.length });
    },
  },
  {
    id: 'gzip-bomb',
    description: 'answers a 100 KiB gzip body that would inflate to 100 MiB, although the harness asks for identity',
    symptom: 'a body in a content coding not asked for',
    start: async () => {
      const bomb = gzipBomb();
      const server = await httpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
        res.end(bomb);
      });
      return Object.assign(server, { hits: () => server.seen.length });
    },
  },
  {
    id: 'drip',
    description: 'sends the headers, then one byte of body per second',
    symptom: 'TIMEOUT',
    start: () =>
      raw((socket, timers) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 600\r\n\r\n{');
        const t = setInterval(() => {
          if (socket.destroyed) clearInterval(t);
          else socket.write(' ');
        }, 1000);
        timers.add(t);
        socket.on('close', () => {
          clearInterval(t);
          timers.delete(t);
        });
      }),
  },
  {
    id: 'redirect-elsewhere',
    description: 'redirects every request to another host (302)',
    symptom: 'a redirect to another origin',
    start: async () => {
      const server = await httpServer((_req, res) => {
        res.writeHead(302, { location: 'http://login.example.invalid/sso?next=%2F', 'content-length': '0' });
        res.end();
      });
      return Object.assign(server, { hits: () => server.seen.length });
    },
  },
  {
    id: 'refused',
    description: 'has nothing listening on its port',
    symptom: 'CONNECTION_REFUSED',
    start: async () => {
      const port = await closedPort();
      return { url: `http://127.0.0.1:${port}`, port, hits: () => 0, close: () => Promise.resolve() };
    },
  },
  deepKind('json', 10_000, '10k'),
  deepKind('xml', 10_000, '10k'),
  // 2 MB and 7 MB: over the default ISWC_MAX_BODY, so these runs raise it to meet the depth, not the size.
  deepKind('json', 1_000_000, '1m'),
  deepKind('xml', 1_000_000, '1m'),
];
