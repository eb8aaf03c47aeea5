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
  /** The variable it came from (HTTPS_PROXY, http_proxy, …), for the replay lines. */
  readonly variable?: string;
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

/** What a proxy said of why it could not reach the target: a DNS failure, a refused connection, a timeout, a refusal of its own. */
export type ProxyFailureKind = 'dns' | 'refused' | 'timeout' | 'denied' | 'other';

/** RFC 9209 Proxy-Status error types, by what they mean here. */
const PROXY_STATUS_KINDS: Record<string, ProxyFailureKind> = {
  dns_timeout: 'dns',
  dns_error: 'dns',
  destination_not_found: 'dns',
  connection_refused: 'refused',
  destination_unavailable: 'refused',
  destination_ip_unroutable: 'refused',
  connection_timeout: 'timeout',
  connection_read_timeout: 'timeout',
  http_request_denied: 'denied',
  destination_ip_prohibited: 'denied',
};

/** Squid's X-Squid-Error codes, by what they mean here. */
const SQUID_KINDS: Record<string, ProxyFailureKind> = {
  ERR_DNS_FAIL: 'dns',
  ERR_CONNECT_FAIL: 'refused',
  ERR_READ_TIMEOUT: 'timeout',
  ERR_LIFETIME_EXP: 'timeout',
  ERR_ACCESS_DENIED: 'denied',
  ERR_CANNOT_FORWARD: 'other',
  ERR_GATEWAY_FAILURE: 'other',
};

/** Words of a proxy's error page that say the host name did not resolve. */
const DNS_WORDS = /unable to determine ip address|could not resolve|name or service not known|nxdomain|no such host|unknown host/i;

export interface ProxyVerdict {
  kind: ProxyFailureKind;
  /** The header or words it was read from, to show: `X-Squid-Error: ERR_DNS_FAIL 0`. */
  evidence: string;
}

/**
 * Why a proxy says it could not serve a request, from its own answer: a Proxy-Status header naming an
 * error (RFC 9209), squid's X-Squid-Error, or an error page that says the name did not resolve.
 * Undefined when the answer carries none of these (then it cannot be told from the target's own).
 */
export function proxyVerdict(headers: Readonly<Record<string, string | undefined>>, body = ''): ProxyVerdict | undefined {
  const status = headers['proxy-status'];
  const error = status === undefined ? undefined : /;\s*error=("?)([a-z_]+)\1/i.exec(status)?.[2]?.toLowerCase();
  if (error !== undefined) return { kind: PROXY_STATUS_KINDS[error] ?? 'other', evidence: `Proxy-Status: ${status?.trim()}` };
  const squid = headers['x-squid-error']?.trim();
  if (squid) return { kind: SQUID_KINDS[squid.split(/\s/)[0] ?? ''] ?? 'other', evidence: `X-Squid-Error: ${squid}` };
  const words = DNS_WORDS.exec(body.slice(0, 8192));
  if (words) return { kind: 'dns', evidence: `its answer says "${words[0]}"` };
  return undefined;
}

/** The failure a proxy's verdict stands for, in words that say what to do. */
export function proxyVerdictFailure(verdict: ProxyVerdict, status: number, proxy: ProxyInUse, targetOrigin: string): TransportError {
  const host = new URL(targetOrigin).hostname;
  const head = `the proxy at ${proxy.shown} answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''} (${verdict.evidence})`;
  switch (verdict.kind) {
    case 'dns':
      return { code: 'PROXY', message: `DNS: the proxy at ${proxy.shown} could not resolve the host ${host} (${status}, ${verdict.evidence}): check the host of the base URL` };
    case 'refused':
      return { code: 'PROXY', message: `${head}: it could not connect to ${new URL(targetOrigin).host} (nothing listens there, or a firewall refuses): check the base URL` };
    case 'timeout':
      return { code: 'PROXY', message: `${head}: it got no answer from ${new URL(targetOrigin).host} in time` };
    case 'denied':
      return { code: 'PROXY', message: `${head}: the proxy does not allow ${new URL(targetOrigin).host}` };
    default:
      return { code: 'PROXY', message: `${head}: it could not reach ${new URL(targetOrigin).host}` };
  }
}

/** A name that does not resolve, reached directly: said as DNS, never as a refused connection. */
export function dnsFailure(code: string | undefined, targetOrigin: string): TransportError | undefined {
  if (code !== 'ENOTFOUND' && code !== 'EAI_AGAIN' && code !== 'EAI_NONAME') return undefined;
  const host = new URL(targetOrigin).hostname;
  const why = code === 'EAI_AGAIN' ? 'the name server did not answer in time' : 'no such host';
  return { code: 'CONNECTION_REFUSED', message: `DNS: the host ${host} could not be resolved (${code}: ${why}): check the host of the base URL, or the machine's DNS` };
}

/** A connection the target's host refused or could not be routed to, reached directly: said with what to check. */
export function connectFailure(code: string | undefined, targetOrigin: string): TransportError | undefined {
  const host = new URL(targetOrigin).host;
  if (code === 'ECONNREFUSED') return { code: 'CONNECTION_REFUSED', message: `the connection to ${host} was refused (ECONNREFUSED): nothing listens there` };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { code: 'CONNECTION_REFUSED', message: `${host} cannot be reached from this machine (${code}: no route)` };
  return undefined;
}
