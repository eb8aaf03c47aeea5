/**
 * A certificate authority of the test's own, made with openssl in a temporary directory at test time
 * (no key is ever committed), and servers whose certificate it signed: an HTTPS echo server, and a TLS
 * front that terminates TLS for a plain HTTP server on this machine (the embedded reference server).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { listen } from '../../server/hostile/servers.ts';
import type { TestServer } from '../../server/hostile/servers.ts';

/** True when openssl can be run (the tests that need a CA skip, saying so, without it). */
export function hasOpenssl(): boolean {
  return spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;
}

export interface TestPki {
  dir: string;
  /** The CA's certificate (PEM): what NODE_EXTRA_CA_CERTS names. */
  caFile: string;
  /** The server's key and certificate (for 127.0.0.1 and localhost), signed by the CA. */
  key: Buffer;
  cert: Buffer;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  const run = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`openssl ${args[0] ?? ''} failed: ${run.stderr}`);
}

/** A CA and a server certificate it signed, valid for a day, in a fresh temporary directory. */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-pki-'));
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=iswc-conformance test CA'], dir);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.ext'], dir);
  return {
    dir,
    caFile: path.join(dir, 'ca.pem'),
    key: readFileSync(path.join(dir, 'server.key')),
    cert: readFileSync(path.join(dir, 'server.pem')),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** https://127.0.0.1:PORT in front of a plain HTTP server of this machine: TLS ends here, bytes go on as they are. */
export async function tlsFront(pki: TestPki, backendPort: number): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const server = createTlsServer({ key: pki.key, cert: pki.cert }, (secure) => {
    const backend = netConnect(backendPort, '127.0.0.1');
    sockets.add(backend);
    backend.on('close', () => {
      sockets.delete(backend);
      secure.destroy();
    });
    backend.on('error', () => secure.destroy());
    secure.on('error', () => backend.destroy());
    secure.on('close', () => backend.destroy());
    secure.pipe(backend);
    backend.pipe(secure);
  });
  // TLS sockets are tracked through the TCP connections they wrap.
  const front = await listen(server, sockets);
  return { ...front, url: `https://127.0.0.1:${front.port}` };
}
