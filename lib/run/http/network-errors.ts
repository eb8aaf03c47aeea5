import { STATUS_CODES } from 'node:http';
import type { TransportError } from '../../contract/exchange.ts';

/**
 * Failures of the path between the harness and the target, each a TransportError with a stable code
 * and a message that says what to do: a proxy that cannot be reached or refuses (PROXY), a certificate
 * the machine does not trust (TLS). Both leave nothing of the target to judge, so they count toward the
 * circuit breaker like a refused connection.
 */

export interface ProxyInUse {
  /** scheme://host:port, never the credentials. */
  readonly shown: string;
  readonly uri: string;
  readonly mode: 'connect' | 'absolute-form';
}

/** Errors of opening a TCP connection: with a proxy, every connection the client opens goes to the proxy. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

/** undici's words for a proxy's answer other than 200 to CONNECT, and for a 407 to an absolute-form request. */
const TUNNEL_REFUSED = /Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/;
const AUTH_REQUIRED = /Proxy Authentication Required \(407\)/;

function refusalHint(status: number, proxy: ProxyInUse, target: string): string {
  if (status === 407) {
    return new URL(proxy.uri).password !== ''
      ? ': the credentials in the proxy URL were not accepted'
      : ': give its credentials in the proxy URL (HTTPS_PROXY=http://user:password@host:port; percent-encode special characters)';
  }
  if (status === 403) return `: the proxy does not allow ${target}`;
  if (status === 502 || status === 503 || status === 504) return `: it could not reach ${target}`;
  return '';
}

/**
 * The proxy's failure, when an error through a proxy is one: the proxy could not be reached, or it
 * answered the CONNECT (or an absolute-form request) with a refusal. `code` and `message` are the
 * error's (undici's code, or the system's).
 */
export function proxyFailure(code: string | undefined, message: string, proxy: ProxyInUse, targetOrigin: string): TransportError | undefined {
  const target = new URL(targetOrigin).host;
  const tunnel = TUNNEL_REFUSED.exec(message);
  const status = tunnel?.[1] !== undefined ? Number(tunnel[1]) : AUTH_REQUIRED.test(message) ? 407 : undefined;
  if (status !== undefined) {
    const reason = STATUS_CODES[status];
    return { code: 'PROXY', message: `the proxy at ${proxy.shown} refused the connection to ${target} (${status}${reason ? ` ${reason}` : ''})${refusalHint(status, proxy, target)}` };
  }
  if (code === 'UND_ERR_PRX_TLS') return { code: 'PROXY', message: `the TLS certificate of the proxy at ${proxy.shown} was not accepted (${message})` };
  if (code !== undefined && CONNECT_CODES.has(code)) {
    return { code: 'PROXY', message: `could not connect to the proxy at ${proxy.shown} (${code}: ${message}); check HTTPS_PROXY / HTTP_PROXY, or list ${target} in NO_PROXY if it is reached without the proxy` };
  }
  return undefined;
}

/** A signer the machine does not know: a company CA, or a proxy that inspects TLS. */
const UNKNOWN_ISSUER = new Set(['UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_UNTRUSTED', 'CERT_CHAIN_TOO_LONG']);
const WRONG_NAME = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);
const OUT_OF_DATE = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

/** The certificate failure, when the error is one (the handshake itself failing stays PROTOCOL). */
export function tlsFailure(code: string | undefined, message: string, targetOrigin: string, proxy?: ProxyInUse): TransportError | undefined {
  if (code === undefined || !(UNKNOWN_ISSUER.has(code) || WRONG_NAME.has(code) || OUT_OF_DATE.has(code) || /^(CERT_|UNABLE_TO_)/.test(code))) return undefined;
  const whose = proxy && proxy.uri.startsWith('https:') ? `${targetOrigin} (or of the proxy at ${proxy.shown})` : targetOrigin;
  const head = `the TLS certificate of ${whose} was not accepted (${code}: ${message})`;
  if (UNKNOWN_ISSUER.has(code)) {
    return {
      code: 'TLS',
      message: `${head}: it is signed by a certificate authority this machine does not trust. If that is your company's own CA (or a proxy that inspects TLS), give the CA as a PEM file in NODE_EXTRA_CA_CERTS when you start the run (Node reads it only at start); never turn verification off`,
    };
  }
  if (WRONG_NAME.has(code)) return { code: 'TLS', message: `${head}: the certificate names another host; check the host of the base URL` };
  if (OUT_OF_DATE.has(code)) return { code: 'TLS', message: `${head}: the certificate is out of its validity dates (or this machine's clock is wrong)` };
  return { code: 'TLS', message: head };
}
