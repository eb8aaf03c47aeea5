/**
 * Extra headers (`--header 'Name: value'`, ISWC_HEADERS): parsing, the names the harness refuses, how
 * the client sends and records them, the curl line that replays them from $ISWC_HEADER_<NAME>, and the
 * redaction of their values everywhere the key is redacted.
 */
import { execFile, spawnSync } from 'node:child_process';
import { expect, _baseTest as test } from '@playwright/test';
import { ConfigError, readConfig } from '../../lib/config/config.ts';
import { checkExtraHeaders, headerPlaceholder, parseHeaderArgument, parseHeadersVariable } from '../../lib/config/headers.ts';
import { parseRunArgs } from '../../lib/cli/run-args.ts';
import { subscriptionKeyHeader } from '../../lib/contract/openapi.ts';
import { KEY_PLACEHOLDER, createRedactor, REDACTED, redactorFromEnv } from '../../lib/foundation/redact.ts';
import { createHttpClient } from '../../lib/run/http/client.ts';
import { cliInProcess } from '../support/cli.ts';
import { Cleanup, httpServer } from '../../server/hostile/servers.ts';

const KEY = 'extra-headers-key-51c0ffee9a7b';
const SECRET = 'Bearer eyJhbGciOi.gateway-9d8c7b6a';

const cleanup = new Cleanup();
test.afterEach(async () => {
  await cleanup.run();
});

/** What a ConfigError says, or undefined when nothing is thrown. */
function refusal(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
}

test('--header: Name: value as curl takes it, trimmed; an empty value is a header too', () => {
  expect(parseHeaderArgument('X-Correlation-Id: abc')).toEqual({ name: 'X-Correlation-Id', value: 'abc' });
  expect(parseHeaderArgument('Authorization:Bearer a:b:c  ')).toEqual({ name: 'Authorization', value: 'Bearer a:b:c' });
  expect(parseHeaderArgument("X-Quote: it's \"1\", $HOME")).toEqual({ name: 'X-Quote', value: `it's "1", $HOME` });
  expect(parseHeaderArgument('X-Empty:')).toEqual({ name: 'X-Empty', value: '' });
  expect(parseHeaderArgument('X-Latin: café')).toEqual({ name: 'X-Latin', value: 'café' });
});

test('malformed headers are refused with what is wrong, never the value', () => {
  const cases: Array<[string, string]> = [
    ['no colon at all', "--header needs 'Name: value', got no colon"],
    [': value-without-name', '--header: a header needs a name before the colon'],
    ['X Trace: secret-value-1', `--header: header name "X Trace" is not an HTTP token (the character " " is not allowed`],
    ['X-Trace : secret-value-1', `--header: header name "X-Trace " is not an HTTP token`],
    ['X-Ünicode: secret-value-1', 'is not an HTTP token (the character "Ü" is not allowed'],
    ['X-Split: secret-value-1\r\nInjected: 1', 'the value of X-Split contains the character U+000D, which an HTTP header cannot carry'],
    ['X-Nul: secret\u0000value-1', 'contains the character U+0000'],
    ['X-Emoji: secret-value-1 \u{1F600}', 'contains the character U+1F600'],
  ];
  for (const [text, message] of cases) {
    const said = refusal(() => parseHeaderArgument(text));
    expect(said, text).toContain(message);
    expect(said).not.toContain('secret');
  }
});

test('ISWC_HEADERS: one JSON object of strings; anything else is refused without quoting it', () => {
  expect(parseHeadersVariable('{"X-A": "1", "X-B": " two "}')).toEqual([
    { name: 'X-A', value: '1' },
    { name: 'X-B', value: 'two' },
  ]);
  const cases: Array<[string, string]> = [
    ['{"X-A": "secret-value-1"', 'ISWC_HEADERS is not valid JSON; give one object of header names and string values'],
    ['["X-A: secret-value-1"]', 'ISWC_HEADERS must be one JSON object'],
    ['"secret-value-1"', 'ISWC_HEADERS must be one JSON object'],
    ['{"X-A": 12345678}', 'ISWC_HEADERS: the value of "X-A" must be a string'],
    ['{"X-A": "secret-value-1\\n"}', 'the value of X-A contains the character U+000A'],
  ];
  for (const [text, message] of cases) {
    const said = refusal(() => parseHeadersVariable(text));
    expect(said, text).toContain(message);
    expect(said).not.toContain('secret');
    expect(said).not.toContain('12345678');
  }
});

test('headers the harness or HTTP framing owns are refused, whatever their case, and so is a name given twice', () => {
  const owned = ['Host', 'content-length', 'Content-Type', 'TRANSFER-ENCODING', 'Accept', 'Accept-Encoding', 'User-Agent', 'Connection', 'Keep-Alive', 'Upgrade', 'TE', 'Trailer', 'Expect', 'Proxy-Connection', 'Proxy-Authorization'];
  for (const name of owned) expect(refusal(() => checkExtraHeaders([{ name, value: 'x' }], '--header')), name).toMatch(new RegExp(`^--header: ${name} cannot be set: `));
  expect(refusal(() => checkExtraHeaders([{ name: 'Proxy-Authorization', value: 'x' }], '--header'))).toContain('proxy credentials go in the proxy URL');
  const keyHeader = subscriptionKeyHeader();
  expect(refusal(() => checkExtraHeaders([{ name: keyHeader.toUpperCase(), value: 'x' }], '--header', { [keyHeader]: 'the key is read from ISWC_SUBSCRIPTION_KEY only' }))).toBe(
    `--header: ${keyHeader.toUpperCase()} cannot be set: the key is read from ISWC_SUBSCRIPTION_KEY only`,
  );
  expect(refusal(() => checkExtraHeaders([{ name: 'X-A', value: '1' }, { name: 'x-a', value: '2' }], 'ISWC_HEADERS'))).toBe('ISWC_HEADERS: x-a is given twice (header names are case-insensitive: X-A and x-a)');
  expect(refusal(() => checkExtraHeaders([{ name: 'X-A.B', value: '1' }, { name: 'X-A_B', value: '2' }], '--header'))).toContain('X-A.B and X-A_B would both be written as $ISWC_HEADER_X_A_B');
  // The configuration refuses them too (a direct Playwright run reads ISWC_HEADERS).
  expect(refusal(() => readConfig({ ISWC_HEADERS: '{"Host": "evil.example"}' }))).toContain('ISWC_HEADERS: Host cannot be set');
  expect(headerPlaceholder('X-Trace-Id')).toBe('$ISWC_HEADER_X_TRACE_ID');
});

test('the run command: --header is repeatable and adds to ISWC_HEADERS, a flag replacing a header of the same name', () => {
  const env = { ISWC_HEADERS: JSON.stringify({ 'X-Gateway-Token': SECRET, 'X-Env': 'from-env' }) };
  const plan = parseRunArgs({ header: ['x-env: from-flag', 'X-Trace: t-1'] }, process.cwd(), env);
  expect(JSON.parse(plan.env.ISWC_HEADERS ?? '')).toEqual({ 'X-Gateway-Token': SECRET, 'x-env': 'from-flag', 'X-Trace': 't-1' });
  expect(parseRunArgs({}, process.cwd(), {}).env.ISWC_HEADERS).toBeUndefined();
});

test('the run command refuses an owned or malformed header before anything is sent (exit 2), and never prints its value', async () => {
  const keyHeader = subscriptionKeyHeader();
  const cases: Array<[string[], Record<string, string>, string]> = [
    [['--header', `${keyHeader}: ${SECRET}`], {}, `--header: ${keyHeader} cannot be set: the subscription key is read from ISWC_SUBSCRIPTION_KEY only`],
    [['--header', `Host: ${SECRET}`], {}, '--header: Host cannot be set'],
    [['--header', `Content-Length: 5`], {}, '--header: Content-Length cannot be set'],
    [['--header', `Transfer-Encoding: chunked`], {}, '--header: Transfer-Encoding cannot be set'],
    [['--header', `Content-Type: text/plain`], {}, '--header: Content-Type cannot be set'],
    [['--header', `X-Bad\tName: ${SECRET}`], {}, 'is not an HTTP token'],
    [['--header', `${SECRET}`], {}, 'no colon'],
    [[], { ISWC_HEADERS: JSON.stringify({ [keyHeader.toLowerCase()]: SECRET }) }, `ISWC_HEADERS: ${keyHeader.toLowerCase()} cannot be set`],
  ];
  for (const [args, env, message] of cases) {
    const run = await cliInProcess(['run', ...args], { env });
    expect(run.code, args.join(' ')).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.out).not.toContain('eyJhbGciOi');
  }
});

test('the client sends extra headers to the base origin, lets a case set its own, and records only their placeholders', async () => {
  const server = cleanup.add(
    await httpServer((req, res) => {
      // A hostile target that echoes what it got, the extra header included.
      res.writeHead(200, { 'content-type': 'application/json', 'x-echo': String(req.headers['authorization'] ?? '') });
      res.end(JSON.stringify({ got: req.headers['authorization'], b64: Buffer.from(String(req.headers['authorization'])).toString('base64') }));
    }),
  );
  const headers = [
    { name: 'Authorization', value: SECRET },
    { name: 'X-Env', value: 'qa' },
  ];
  const c = cleanup.add(createHttpClient({ baseUrl: server.url, key: KEY, headers }));
  const ex = await c.send({ method: 'GET', path: '/agent/run' });
  expect(server.seen[0]?.headers.authorization).toBe(SECRET);
  expect(server.seen[0]?.headers['x-env']).toBe('qa');
  expect(ex.request.headers).toMatchObject({ Authorization: '$ISWC_HEADER_AUTHORIZATION', 'X-Env': '$ISWC_HEADER_X_ENV' });
  // The echoed value, in any form, becomes the placeholder.
  expect(ex.response?.headers['x-echo']).toBe('$ISWC_HEADER_AUTHORIZATION');
  expect(JSON.parse(ex.response?.body ?? '{}')).toEqual({ got: '$ISWC_HEADER_AUTHORIZATION', b64: '$ISWC_HEADER_AUTHORIZATION' });
  expect(JSON.stringify(ex)).not.toContain('eyJhbGciOi');
  // A case's own header of the same name wins, and is recorded as it is (it is the case's, not a secret).
  const own = await c.send({ method: 'GET', path: '/x', headers: { 'x-env': 'staging' } });
  expect(server.seen[1]?.headers['x-env']).toBe('staging');
  expect(own.request.headers['x-env']).toBe('staging');
  expect(own.request.headers['X-Env']).toBeUndefined();
  // Extra headers go with every kind of authentication.
  await c.send({ method: 'GET', path: '/x', auth: 'none' });
  expect(server.seen[2]?.headers.authorization).toBe(SECRET);
  // The owned names are refused by the client as well.
  expect(() => createHttpClient({ baseUrl: server.url, key: KEY, headers: [{ name: subscriptionKeyHeader(), value: 'x' }] })).toThrow(/cannot be set: the harness sends the subscription key itself/);
});

const hasCurl = spawnSync('curl', ['--version']).status === 0;

test('the curl line reads each extra header from $ISWC_HEADER_<NAME> and replays it exactly', async () => {
  test.skip(!hasCurl, 'curl is not installed');
  const server = cleanup.add(
    await httpServer((_req, res) => {
      res.end('ok');
    }),
  );
  const headers = [
    { name: 'Authorization', value: SECRET },
    { name: "X-Odd$'`", value: `it's "$HOME"` },
    { name: 'X-Empty', value: '' },
  ];
  const c = cleanup.add(createHttpClient({ baseUrl: server.url, key: KEY, headers }));
  const spec = { method: 'GET', path: '/agent/run' };
  await c.send(spec);
  const line = c.curl(spec);
  expect(line).toContain(`-H "Authorization: $ISWC_HEADER_AUTHORIZATION"`);
  expect(line).toContain(`-H 'X-Odd$'\\''\`: '"$ISWC_HEADER_X_ODD___"`);
  expect(line).toContain(`-H 'X-Empty;'`);
  expect(line).not.toContain('eyJhbGciOi');
  const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
    const env = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', ISWC_SUBSCRIPTION_KEY: KEY, ISWC_HEADER_AUTHORIZATION: SECRET, ISWC_HEADER_X_ODD___: `it's "$HOME"` };
    execFile('sh', ['-c', line], { env, timeout: 5000 }, (err, _stdout, stderr) => resolve({ code: err ? 1 : 0, stderr: String(stderr) }));
  });
  expect(run.code, run.stderr).toBe(0);
  for (const name of ['authorization', "x-odd$'`", 'x-empty']) expect(server.seen[1]?.headers[name], name).toBe(server.seen[0]?.headers[name]);
});

test("the run's redactor: header values from 8 characters on and proxy credentials, each with its own placeholder", () => {
  const red = redactorFromEnv({
    ISWC_SUBSCRIPTION_KEY: KEY,
    ISWC_HEADERS: JSON.stringify({ 'X-Gateway-Token': SECRET, 'Ocp-Apim-Trace': 'true' }),
    HTTPS_PROXY: 'http://jane:pr%40xy-secret-1@proxy.corp.example:3128',
  });
  expect(red.text(`key ${KEY}, token ${SECRET} (${encodeURIComponent(SECRET)}), ${Buffer.from(SECRET).toString('base64')}`)).toBe(
    `key ${KEY_PLACEHOLDER}, token $ISWC_HEADER_X_GATEWAY_TOKEN ($ISWC_HEADER_X_GATEWAY_TOKEN), $ISWC_HEADER_X_GATEWAY_TOKEN`,
  );
  // A short value would replace common words: it is recorded as its placeholder where the harness writes it, never searched for.
  const report = JSON.stringify({ strict: true, verdict: 'pass', note: 'true' });
  expect(red.text(report)).toBe(report);
  expect(red.text(`proxy said pr@xy-secret-1 and ${Buffer.from('jane:pr@xy-secret-1').toString('base64')}`)).toBe(`proxy said ${REDACTED} and ${REDACTED}`);
  // Placeholders are kept where secret-looking names would otherwise blank a value.
  expect(red.headers({ Authorization: '$ISWC_HEADER_AUTHORIZATION', 'X-Api-Token': 'other' })).toEqual({ Authorization: '$ISWC_HEADER_AUTHORIZATION', 'X-Api-Token': REDACTED });
  // Settings that cannot be read add nothing and never throw: the redactor is what reports that very error.
  expect(redactorFromEnv({ ISWC_SUBSCRIPTION_KEY: KEY, ISWC_HEADERS: '{broken', HTTPS_PROXY: 'socks5://[' }).text(KEY)).toBe(KEY_PLACEHOLDER);
  expect(createRedactor([{ value: SECRET, placeholder: '$ISWC_HEADER_A' }, KEY]).text(`${SECRET} ${KEY}`)).toBe(`$ISWC_HEADER_A ${KEY_PLACEHOLDER}`);
});

test('a setting that cannot be read is a usage error (exit 2), not a stack trace', async () => {
  const run = await cliInProcess(['run'], { env: { ISWC_SEED: 'abc' } });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('ISWC_SEED must be an integer');
  expect(run.stderr).not.toMatch(/\n\s+at /);
});
