/**
 * Which proxy a run goes through (lib/config/proxy.ts): HTTPS_PROXY, HTTP_PROXY and NO_PROXY as undici's
 * EnvHttpProxyAgent reads them, decided once for the base URL. The table is checked against
 * EnvHttpProxyAgent itself, through a recording proxy on loopback.
 */
import { expect, _baseTest as test } from '@playwright/test';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { EnvHttpProxyAgent } from 'undici';
import { ConfigError, readConfig } from '../../lib/config/config.ts';
import { describeRoute, proxyCredentials, resolveNetworkRoute } from '../../lib/config/proxy.ts';
import { cliInProcess } from '../support/cli.ts';
import { forwardProxy } from '../support/forward-proxy.ts';
import { Cleanup } from '../../server/hostile/servers.ts';

const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

const P = 'http://proxy.corp.example:3128';
const Q = 'http://other-proxy.corp.example:8080';

interface Case {
  name: string;
  url: string;
  env: Record<string, string>;
  /** The variable whose proxy is used, or null for a direct connection. */
  via: string | null;
}

const CASES: Case[] = [
  { name: 'no variable: direct', url: 'https://api.example/iswc', env: {}, via: null },
  { name: 'https target, HTTPS_PROXY', url: 'https://api.example/iswc', env: { HTTPS_PROXY: P }, via: 'HTTPS_PROXY' },
  { name: 'https target, only HTTP_PROXY: undici falls back to it', url: 'https://api.example/iswc', env: { HTTP_PROXY: P }, via: 'HTTP_PROXY' },
  { name: 'http target, only HTTPS_PROXY: direct', url: 'http://api.example/iswc', env: { HTTPS_PROXY: P }, via: null },
  { name: 'http target, HTTP_PROXY', url: 'http://api.example/iswc', env: { HTTP_PROXY: P, HTTPS_PROXY: Q }, via: 'HTTP_PROXY' },
  { name: 'lower case wins over upper case', url: 'https://api.example/', env: { https_proxy: Q, HTTPS_PROXY: P }, via: 'https_proxy' },
  { name: 'an empty lower-case variable turns the proxy off, as in undici', url: 'http://api.example/', env: { http_proxy: '', HTTP_PROXY: P }, via: null },
  { name: 'NO_PROXY: exact host', url: 'https://api.example/', env: { HTTPS_PROXY: P, NO_PROXY: 'localhost,api.example' }, via: null },
  { name: 'NO_PROXY: a domain covers its subdomains', url: 'https://staging.api.example/', env: { HTTPS_PROXY: P, NO_PROXY: 'api.example' }, via: null },
  { name: 'NO_PROXY: leading dot', url: 'https://staging.api.example/', env: { HTTPS_PROXY: P, NO_PROXY: '.api.example' }, via: null },
  { name: 'NO_PROXY: leading *.', url: 'https://staging.api.example/', env: { HTTPS_PROXY: P, NO_PROXY: '*.api.example' }, via: null },
  { name: 'NO_PROXY: a suffix that is not a domain boundary does not match', url: 'https://badapi.example/', env: { HTTPS_PROXY: P, NO_PROXY: 'api.example' }, via: 'HTTPS_PROXY' },
  { name: 'NO_PROXY: host:port matching', url: 'https://api.example:8443/', env: { HTTPS_PROXY: P, NO_PROXY: 'api.example:8443' }, via: null },
  { name: 'NO_PROXY: host:port on another port', url: 'https://api.example/', env: { HTTPS_PROXY: P, NO_PROXY: 'api.example:8443' }, via: 'HTTPS_PROXY' },
  { name: 'NO_PROXY: *', url: 'https://api.example/', env: { HTTPS_PROXY: P, NO_PROXY: '*' }, via: null },
  { name: 'NO_PROXY: entries split on spaces too, case-insensitive', url: 'https://API.example/', env: { HTTPS_PROXY: P, NO_PROXY: 'foo.example API.EXAMPLE' }, via: null },
  { name: 'no_proxy wins over NO_PROXY', url: 'https://api.example/', env: { HTTPS_PROXY: P, no_proxy: 'other.example', NO_PROXY: 'api.example' }, via: 'HTTPS_PROXY' },
  { name: 'loopback is proxied unless listed', url: 'http://127.0.0.1:8080/', env: { HTTP_PROXY: P }, via: 'HTTP_PROXY' },
  { name: 'NO_PROXY: a loopback address', url: 'http://127.0.0.1:8080/', env: { HTTP_PROXY: P, NO_PROXY: 'localhost,127.0.0.1' }, via: null },
  { name: 'NO_PROXY: localhost', url: 'http://localhost:8080/', env: { HTTP_PROXY: P, NO_PROXY: 'localhost' }, via: null },
  { name: 'NO_PROXY: IPv6 loopback in brackets', url: 'http://[::1]:8080/', env: { HTTP_PROXY: P, NO_PROXY: '[::1]' }, via: null },
];

for (const c of CASES) {
  test(`route: ${c.name}`, () => {
    const route = resolveNetworkRoute(c.url, c.env);
    expect(route.proxy?.variable ?? null).toBe(c.via);
  });
}

test('the route names the proxy without its credentials, and how requests go through it', () => {
  const https = resolveNetworkRoute('https://api.example/iswc', { HTTPS_PROXY: 'http://jane:s3cr%40t-pass@proxy.corp.example:3128' });
  expect(https.proxy).toEqual({ uri: 'http://jane:s3cr%40t-pass@proxy.corp.example:3128/', shown: 'http://proxy.corp.example:3128', variable: 'HTTPS_PROXY', mode: 'connect' });
  expect(describeRoute(https)).toBe('through the proxy http://proxy.corp.example:3128 (HTTPS_PROXY; CONNECT tunnel: the proxy sees host and port only)');
  const http = resolveNetworkRoute('http://api.example/iswc', { http_proxy: 'proxy.corp.example:3128' });
  // A value without a scheme is an http:// proxy, as curl reads it.
  expect(http.proxy).toMatchObject({ shown: 'http://proxy.corp.example:3128', variable: 'http_proxy', mode: 'absolute-form' });
  expect(describeRoute(http)).toContain('absolute-form requests: the proxy sees every request');
  // undici tunnels an http:// target through an https:// proxy.
  expect(resolveNetworkRoute('http://api.example/', { HTTP_PROXY: 'https://proxy.corp.example' }).proxy?.mode).toBe('connect');
});

test('a direct connection says why when a proxy variable is set; the embedded server is never proxied', () => {
  const bypassed = resolveNetworkRoute('http://127.0.0.1:8080/', { HTTP_PROXY: P, NO_PROXY: '127.0.0.1' });
  expect(describeRoute(bypassed)).toBe('no proxy: NO_PROXY entry "127.0.0.1" matches 127.0.0.1:8080 (HTTP_PROXY is not used for it)');
  const embedded = resolveNetworkRoute(undefined, { HTTPS_PROXY: P });
  expect(embedded.proxy).toBeNull();
  expect(describeRoute(embedded)).toBe('no proxy: the embedded reference server runs in this process (HTTPS_PROXY is not used for it)');
  expect(describeRoute(resolveNetworkRoute('https://api.example/', {}))).toBeUndefined();
});

test('proxy URLs that cannot be used are configuration errors, without the credentials in the message', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ HTTPS_PROXY: 'socks5://u:pw-9f8e7d6c@proxy:1080' }, /HTTPS_PROXY: a proxy at socks5:\/\/ is not supported/],
    [{ HTTPS_PROXY: 'http://u:pw-9f8e7d6c@[bad' }, /HTTPS_PROXY is not a proxy URL/],
  ];
  for (const [env, message] of cases) {
    let error: unknown;
    try {
      readConfig({ ISWC_BASE_URL: 'https://api.example/iswc', ISWC_SUBSCRIPTION_KEY: 'target-key-0001', ...env });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('pw-9f8e7d6c');
  }
  // A variable that does not apply to the run is not read at all.
  expect(readConfig({ ISWC_BASE_URL: 'https://api.example/iswc', ISWC_SUBSCRIPTION_KEY: 'target-key-0001', HTTPS_PROXY: P, HTTP_PROXY: 'socks5://x' }).network.proxy?.shown).toBe(P);
});

test('proxyCredentials: every proxy variable with a password, decoded as undici decodes it', () => {
  expect(proxyCredentials({ HTTPS_PROXY: 'http://jane:s3cr%40t@proxy:3128', http_proxy: 'http://proxy:3128', HTTP_PROXY: 'http://bob:pw@proxy:3128' })).toEqual([
    { password: 'pw', userPassword: 'bob:pw' },
    { password: 's3cr@t', userPassword: 'jane:s3cr@t' },
  ]);
});

test("the route table agrees with undici's EnvHttpProxyAgent, through a recording proxy", async () => {
  const proxy = cleanup.add(await forwardProxy());
  // Every host name of the table resolves to 127.0.0.1, so that a direct attempt fails at once instead of asking DNS.
  const lookup: LookupFunction = (_host, options, callback) => {
    if (options.all) (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  };
  const saved = { ...process.env };
  try {
    for (const c of CASES) {
      for (const name of Object.keys(process.env)) if (/^(https?|no)_proxy$/i.test(name)) delete process.env[name];
      // Every proxy variable points at the recording proxy: whether it sees the request is undici's decision.
      for (const [name, value] of Object.entries(c.env)) process.env[name] = /^https?_proxy$/i.test(name) && value !== '' ? proxy.url : value;
      const agent = new EnvHttpProxyAgent({ connect: { lookup, timeout: 2000 } });
      const before = proxy.log.length;
      const url = new URL(c.url);
      try {
        await agent
          .request({ origin: `${url.protocol}//${url.host}`, path: '/', method: 'GET', headersTimeout: 2000, bodyTimeout: 2000 })
          .then((r) => r.body.dump())
          .catch(() => undefined);
      } finally {
        await agent.destroy();
      }
      expect(proxy.log.length > before, c.name).toBe(c.via !== null);
    }
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
});

test('the plan says which way a run would go, without the proxy credentials', async () => {
  const env = { ISWC_SUBSCRIPTION_KEY: 'k-plan-route', HTTPS_PROXY: 'http://jane:pl4n-pa55word@proxy.corp.example:3128' };
  const plan = await cliInProcess(['plan', '--base-url', 'https://staging.example/iswc', '--budget', '5'], { env });
  expect(plan.code, plan.out).toBe(0);
  expect(plan.stdout.split('\n')[1]).toBe('through the proxy http://proxy.corp.example:3128 (HTTPS_PROXY; CONNECT tunnel: the proxy sees host and port only)');
  expect(plan.out).not.toContain('pl4n-pa55word');
  const direct = await cliInProcess(['plan', '--base-url', 'https://staging.example/iswc', '--budget', '5'], { env: { ...env, NO_PROXY: '.example' } });
  expect(direct.stdout.split('\n')[1]).toBe('no proxy: NO_PROXY entry ".example" matches staging.example (HTTPS_PROXY is not used for it)');
});
