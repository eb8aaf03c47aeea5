/**
 * A forward proxy for tests, on 127.0.0.1: absolute-form requests (an http:// target) are forwarded and
 * recorded with every header they carry; CONNECT (an https:// target) opens a tunnel and records only
 * what a proxy sees of it (host, port, the CONNECT's own headers). It can demand credentials (407) or
 * refuse every request and tunnel with one status, so that a test sees what a company proxy does.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import { listen } from '../../server/hostile/servers.ts';
import type { TestServer } from '../../server/hostile/servers.ts';

export interface ProxyLogEntry {
  /** 'request': absolute-form; 'connect': a tunnel. */
  kind: 'request' | 'connect';
  method: string;
  /** The request target as received: an absolute URL, or host:port for CONNECT. */
  target: string;
  headers: IncomingHttpHeaders;
  /** The proxy's own answer (407, a refusal, 502 when the target could not be reached), or the target's status. */
  status: number;
}

export interface ForwardProxy extends TestServer {
  log: ProxyLogEntry[];
  /** The proxy's URL with credentials, e.g. http://user:password@127.0.0.1:PORT (or without, when none are set). */
  uri(credentials?: { user: string; password: string }): string;
}

export interface ForwardProxyOptions {
  /** Demand these credentials (Proxy-Authorization: Basic); anything else gets 407. */
  auth?: { user: string; password: string };
  /** Answer every request and CONNECT with this status instead of forwarding. */
  refuse?: number;
  /**
   * Answer as squid does when the target's host does not resolve: 503 with `X-Squid-Error: ERR_DNS_FAIL 0`
   * and its error page (else a bare 502, as for any target it cannot reach).
   */
  squid?: boolean;
}

/** Squid's answer to a host name it cannot resolve (ERR_DNS_FAIL), as it comes on the wire. */
function squidDnsFailure(host: string): { status: number; headers: Record<string, string>; body: string } {
  const body = `<html><body><h1>ERROR</h1><p>The requested URL could not be retrieved</p><p>Unable to determine IP address from host name <q>${host}</q></p><p>The DNS server returned: Name Error: The domain name does not exist.</p></body></html>`;
  return { status: 503, headers: { 'content-type': 'text/html;charset=utf-8', 'x-squid-error': 'ERR_DNS_FAIL 0', 'content-length': String(Buffer.byteLength(body)) }, body };
}

const isDnsFailure = (e: NodeJS.ErrnoException): boolean => e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN';

export async function forwardProxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();
  const expected = options.auth ? `Basic ${Buffer.from(`${options.auth.user}:${options.auth.password}`).toString('base64')}` : undefined;
  /** The proxy's own refusal, if any: 407 without the right credentials, or the configured status. */
  const refusal = (headers: IncomingHttpHeaders): number | undefined => {
    if (expected !== undefined && headers['proxy-authorization'] !== expected) return 407;
    return options.refuse;
  };
  const server = createServer((req, res) => {
    const entry: ProxyLogEntry = { kind: 'request', method: req.method ?? '', target: req.url ?? '', headers: req.headers, status: 0 };
    log.push(entry);
    const refused = refusal(req.headers);
    if (refused !== undefined) {
      entry.status = refused;
      res.writeHead(refused, refused === 407 ? { 'proxy-authenticate': 'Basic realm="test proxy"' } : {});
      res.end(`refused by the test proxy (${refused})`);
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      entry.status = 400;
      res.writeHead(400).end('not an absolute-form request');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = httpRequest({ host: url.hostname, port: url.port, method: req.method, path: `${url.pathname}${url.search}`, headers }, (answer) => {
      entry.status = answer.statusCode ?? 0;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (e: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (options.squid && isDnsFailure(e)) {
        const answer = squidDnsFailure(url.hostname);
        entry.status = answer.status;
        res.writeHead(answer.status, answer.headers).end(answer.body);
        return;
      }
      entry.status = 502;
      res.writeHead(502).end('the test proxy could not reach the target');
    });
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const entry: ProxyLogEntry = { kind: 'connect', method: 'CONNECT', target: req.url ?? '', headers: req.headers, status: 0 };
    log.push(entry);
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    const refused = refusal(req.headers);
    if (refused !== undefined) {
      entry.status = refused;
      client.end(`HTTP/1.1 ${refused} Refused\r\n${refused === 407 ? 'Proxy-Authenticate: Basic realm="test proxy"\r\n' : ''}Content-Length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = netConnect(Number(port), host ?? '', () => {
      entry.status = 200;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', (e: NodeJS.ErrnoException) => {
      if (entry.status === 0 && options.squid && isDnsFailure(e)) {
        const answer = squidDnsFailure(host ?? '');
        entry.status = answer.status;
        client.end(`HTTP/1.1 503 Service Unavailable\r\n${Object.entries(answer.headers).map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n${answer.body}`);
      } else if (entry.status === 0) {
        entry.status = 502;
        client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      } else client.destroy();
    });
    client.on('close', () => upstream.destroy());
  });
  const base = await listen(server, sockets);
  return Object.assign(base, {
    log,
    uri: (credentials?: { user: string; password: string }): string =>
      credentials ? `http://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${base.port}` : base.url,
  });
}
