import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { credentialsOf } from '../../config/proxy.ts';
import type { ProxyInUse } from './network-errors.ts';

/**
 * A proxy's answer to CONNECT, read whole: undici keeps only the status of a refused tunnel, while the
 * reason (a name that did not resolve, a host it may not reach) is in the headers and the page that came
 * with it. One CONNECT to the proxy, never a request to the target: it goes no further than the proxy.
 */
export interface TunnelAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The first bytes of the page, as text. */
  body: string;
}

const KEEP_BYTES = 16 * 1024;

/** Sends CONNECT host:port to the proxy and reads its answer; undefined when it cannot be read (or the tunnel opens now). */
export function readTunnelAnswer(proxy: ProxyInUse, targetOrigin: string, timeoutMs: number): Promise<TunnelAnswer | undefined> {
  const proxyUrl = new URL(proxy.uri);
  const target = new URL(targetOrigin);
  const authority = `${target.hostname}:${target.port || (target.protocol === 'https:' ? '443' : '80')}`;
  const credentials = credentialsOf(proxyUrl);
  const head = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`, ...(credentials ? [`Proxy-Authorization: Basic ${Buffer.from(credentials.userPassword).toString('base64')}`] : []), '', ''].join('\r\n');
  const port = Number(proxyUrl.port || (proxyUrl.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    const socket: Socket =
      proxyUrl.protocol === 'https:'
        ? tlsConnect({ host: proxyUrl.hostname, port, servername: proxyUrl.hostname }, () => socket.write(head))
        : netConnect({ host: proxyUrl.hostname, port }, () => socket.write(head));
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(Buffer.concat(chunks).toString('latin1')));
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      // A tunnel that opens now says nothing of the refusal: closed at once, nothing sent through it.
      if (end >= 0 && /^HTTP\/1\.[01] 2\d\d/.test(text)) finish();
      else if (end >= 0) {
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end))?.[1];
        if ((length !== undefined && size >= end + 4 + Number(length)) || size >= KEEP_BYTES) finish();
      }
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

function parse(text: string): TunnelAnswer | undefined {
  const end = text.indexOf('\r\n\r\n');
  const headText = end >= 0 ? text.slice(0, end) : text;
  const [statusLine = '', ...lines] = headText.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  if (!Number.isInteger(status) || (status >= 200 && status < 300)) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: end >= 0 ? text.slice(end + 4, end + 4 + KEEP_BYTES) : '' };
}
