import { _baseTest as test, expect } from '@playwright/test';
import { readConfig } from '../../lib/config/config.ts';
import { MAX_RECORD_DEPTH } from '../../lib/config/limits.ts';
import { createRedactor, DEEPER_THAN_RECORDED, redactorFor, REDACTED } from '../../lib/foundation/redact.ts';
import { KEY_PLACEHOLDER, WRONG_KEY } from '../../lib/contract/exchange.ts';

/** A key with characters that every encoding treats differently. */
const KEY = 'k3y/+= &<>"\'é~!*()4f2a';
const r = createRedactor([KEY]);

const html = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const forms: Array<[string, string]> = [
  ['raw', KEY],
  ['encodeURIComponent', encodeURIComponent(KEY)],
  ['encodeURIComponent, lower-case hex', encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
  ['form encoding (+ for space)', encodeURIComponent(KEY).replace(/%20/g, '+')],
  ['URLSearchParams', new URLSearchParams([['k', KEY]]).toString().slice(2)],
  ['JSON-escaped', JSON.stringify(KEY).slice(1, -1)],
  ['base64', Buffer.from(KEY).toString('base64')],
  ['base64 without padding', Buffer.from(KEY).toString('base64').replace(/=+$/, '')],
  ['base64url', Buffer.from(KEY).toString('base64url')],
  ['HTML &#39;', html(KEY).replace(/'/g, '&#39;')],
  ['HTML &#x27;', html(KEY).replace(/'/g, '&#x27;')],
];

for (const [name, form] of forms) {
  test(`text() removes the ${name} form`, () => {
    const planted = `before ${form} middle ${form}after`;
    const out = r.text(planted);
    expect(out).toBe(`before ${KEY_PLACEHOLDER} middle ${KEY_PLACEHOLDER}after`);
    expect(out).not.toContain(form);
    // Stable: redacting again changes nothing.
    expect(r.text(out)).toBe(out);
  });
}

test('a simple hex key is removed in JSON bodies, query strings and headers', () => {
  const key = '0123456789abcdef0123456789abcdef';
  const red = createRedactor([key]);
  expect(red.text(`{"message":"key ${key} is invalid"}`)).toBe(`{"message":"key ${KEY_PLACEHOLDER} is invalid"}`);
  expect(red.url(`https://h/x?subscription-key=${key}&a=1`)).toBe(`https://h/x?subscription-key=${KEY_PLACEHOLDER}&a=1`);
  expect(red.url(`https://h/x?subscription-key=other&a=1`)).toBe(`https://h/x?subscription-key=${REDACTED}&a=1`);
  expect(red.url(`https://h/x?a=${key}`)).toBe(`https://h/x?a=${KEY_PLACEHOLDER}`);
});

test('secrets shorter than 4 characters are ignored', () => {
  const red = createRedactor(['abc', '', 'x']);
  expect(red.text('abc x abcabc')).toBe('abc x abcabc');
});

const headerCases: Array<[string, string, string]> = [
  ['Ocp-Apim-Subscription-Key', KEY_PLACEHOLDER, KEY_PLACEHOLDER],
  ['Ocp-Apim-Subscription-Key', WRONG_KEY, WRONG_KEY],
  ['Ocp-Apim-Subscription-Key', 'some-other-key', REDACTED],
  ['Ocp-Apim-Subscription-Key', KEY, KEY_PLACEHOLDER],
  ['Authorization', 'Bearer abc.def', REDACTED],
  ['X-Api-Token', 'tok', REDACTED],
  ['Set-Cookie', 'session=1', REDACTED],
  ['X-Client-Secret', 's', REDACTED],
  ['X-Signature', 'sig', REDACTED],
  ['X-Password', 'p', REDACTED],
  ['Content-Type', 'application/json', 'application/json'],
  ['X-Echo', `got ${KEY}`, `got ${KEY_PLACEHOLDER}`],
];

test('headers(): secret-looking names are redacted, other values go through text()', () => {
  for (const [name, value, expected] of headerCases) {
    expect(r.headers({ [name]: value }), `${name}: ${value}`).toEqual({ [name]: expected });
  }
});

test('url(): secret-looking query parameters and URL passwords are redacted; the rest stays as written', () => {
  expect(r.url('https://h/api/x?a=%2f%2F&subscription-key=abc&b=+&Token=t&sig=1')).toBe(`https://h/api/x?a=%2f%2F&subscription-key=${REDACTED}&b=+&Token=${REDACTED}&sig=1`);
  expect(r.url(`https://h/x?subscription-key=${encodeURIComponent(KEY_PLACEHOLDER)}`)).toBe(`https://h/x?subscription-key=${encodeURIComponent(KEY_PLACEHOLDER)}`);
  expect(r.url(`https://h/x?api_key=${WRONG_KEY}#frag`)).toBe(`https://h/x?api_key=${WRONG_KEY}#frag`);
  expect(r.url('https://user:hunter22@h/x')).toBe(`https://user:${REDACTED}@h/x`);
  expect(r.url(`https://h/${encodeURIComponent(KEY)}/x`)).toBe(`https://h/${KEY_PLACEHOLDER}/x`);
  expect(r.url('not a url with ' + KEY)).toBe(`not a url with ${KEY_PLACEHOLDER}`);
});

test('deep(): walks report-like objects without changing the input', () => {
  const report = {
    title: 'run',
    checks: [
      {
        id: 'auth.missing-key',
        exchanges: [
          {
            request: {
              url: `https://h/x?subscription-key=${KEY}`,
              headers: { 'Ocp-Apim-Subscription-Key': KEY, Authorization: 'Basic Zm9v', Accept: 'application/json' },
              body: JSON.stringify({ key: KEY }),
            },
            response: { status: 401, headers: { 'www-authenticate': 'x', 'content-type': 'text/plain' }, body: `bad ${encodeURIComponent(KEY)}` },
          },
        ],
        notes: [`curl -H "k: ${KEY}"`, 42, null, true],
      },
    ],
    [`field-${KEY}`]: 1,
  };
  const before = JSON.stringify(report);
  const out = r.deep(report);
  expect(JSON.stringify(report)).toBe(before);
  const json = JSON.stringify(out);
  for (const [, form] of forms) expect(json).not.toContain(form);
  const ex = out.checks[0]?.exchanges[0];
  expect(ex?.request.headers).toEqual({ 'Ocp-Apim-Subscription-Key': KEY_PLACEHOLDER, Authorization: REDACTED, Accept: 'application/json' });
  // The known key becomes the placeholder (kept as the value of a secret-named parameter).
  expect(ex?.request.url).toBe(`https://h/x?subscription-key=${KEY_PLACEHOLDER}`);
  expect(ex?.request.body).toBe(JSON.stringify({ key: KEY_PLACEHOLDER }));
  expect(ex?.response.headers).toEqual({ 'www-authenticate': REDACTED, 'content-type': 'text/plain' });
  expect(ex?.response.body).toBe(`bad ${KEY_PLACEHOLDER}`);
  expect(out.checks[0]?.notes).toEqual([`curl -H "k: ${KEY_PLACEHOLDER}"`, 42, null, true]);
  expect(Object.keys(out)).toContain(`field-${KEY_PLACEHOLDER}`);
  // Stable.
  expect(r.deep(out)).toEqual(out);
});

test('deep(): cycles do not loop forever; non-plain objects are kept as they are', () => {
  const a: { self?: unknown; when: Date; s: string } = { when: new Date(0), s: KEY };
  a.self = a;
  const out = r.deep(a);
  expect(out.s).toBe(KEY_PLACEHOLDER);
  expect(out.self).toBe(out);
  expect(out.when).toBe(a.when);
});

/** A value `depth` levels deep, built without recursion: arrays and objects in turn, `leaf` at the bottom. */
function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { body: value, key: KEY };
  return value;
}

/** How many arrays and objects a value nests, counted without recursion. */
function depthOf(value: unknown): number {
  let depth = 0;
  let at = value;
  while (at !== null && typeof at === 'object') {
    depth += 1;
    at = Array.isArray(at) ? (at as unknown[])[0] : (at as { body?: unknown }).body;
  }
  return depth;
}

test('deep(): a value nested a million levels deep is redacted without a throw, cut at MAX_RECORD_DEPTH, and can be written', () => {
  for (const depth of [10_000, 1_000_000]) {
    const out = r.deep({ executions: [{ observation: nested(depth, KEY) }] });
    const text = JSON.stringify(out);
    expect(text).not.toContain(KEY);
    expect(text).toContain(KEY_PLACEHOLDER);
    expect(text).toContain(DEEPER_THAN_RECORDED);
    expect(depthOf(out.executions[0]?.observation)).toBe(MAX_RECORD_DEPTH - 3);
  }
  // A value within the bound is copied whole.
  const shallow = nested(MAX_RECORD_DEPTH - 1, 'leaf');
  expect(r.deep(shallow)).toEqual(JSON.parse(JSON.stringify(shallow).replaceAll(JSON.stringify(KEY).slice(1, -1), KEY_PLACEHOLDER)));
  expect(JSON.stringify(r.deep(nested(MAX_RECORD_DEPTH + 1, 'leaf')))).toContain(DEEPER_THAN_RECORDED);
});

test('redactorFromEnv reads ISWC_SUBSCRIPTION_KEY', () => {
  const fromEnv = (env: Record<string, string>) => redactorFor(readConfig(env, { requireKey: false }).secretKey);
  expect(fromEnv({ ISWC_SUBSCRIPTION_KEY: 'env-key-1234' }).text('x env-key-1234 y')).toBe(`x ${KEY_PLACEHOLDER} y`);
  expect(fromEnv({ ISWC_SUBSCRIPTION_KEY: '' }).text('x y')).toBe('x y');
  expect(fromEnv({}).text('env-key-1234')).toBe('env-key-1234');
});
