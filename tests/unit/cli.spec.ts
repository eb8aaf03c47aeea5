import { expect, test } from '@playwright/test';
import { HELP, UsageError, parseCli } from '../../lib/cli.ts';

const withKey = { ISWC_SUBSCRIPTION_KEY: 'k-123456' };

test('--help explains every flag', () => {
  expect(parseCli(['--help'], '/w', {}).help).toBe(true);
  for (const flag of ['--base-url', '--target', '--strict', '--rate', '--budget', '--destructive', '--grep', '--shard', '--report-dir', '--plan']) expect(HELP).toContain(flag);
});

const refused: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
  ['a key flag', ['--key', 'abc'], withKey, /never taken from a flag/],
  ['a non-http base URL', ['--base-url', 'ftp://h/x'], withKey, /http:\/\/ or https:\/\//],
  ['credentials in the base URL', ['--base-url', 'https://u:p@h.example'], withKey, /credentials/],
  ['a remote base URL without a key', ['--base-url', 'https://h.example'], {}, /ISWC_SUBSCRIPTION_KEY is not set/],
  ['a bad rate', ['--rate', 'fast'], {}, /--rate/],
  ['a bad budget', ['--budget', '-3'], {}, /--budget/],
  ['a bad shard', ['--shard', '2'], {}, /--shard/],
  ['an unknown flag', ['--frobnicate'], {}, /frobnicate/],
];
for (const [label, argv, env, message] of refused) {
  test(`refuses ${label} before sending anything`, () => {
    expect(() => parseCli(argv, '/w', env)).toThrow(UsageError);
    expect(() => parseCli(argv, '/w', env)).toThrow(message);
  });
}

test('flags become the documented environment and Playwright arguments', () => {
  const plan = parseCli(['--base-url', 'https://staging.example/iswc/', '--target', 't.json', '--strict', '--rate', '10/min', '--budget', '50', '--destructive', '--smoke', '--grep', '@smoke', '--shard', '1/3', '--report-dir', 'out'], '/w', withKey);
  expect(plan.env).toMatchObject({
    ISWC_BASE_URL: 'https://staging.example/iswc',
    ISWC_TARGET: '/w/t.json',
    ISWC_STRICT: '1',
    ISWC_RATE: '10/min',
    ISWC_BUDGET: '50',
    ISWC_DESTRUCTIVE: '1',
    ISWC_PLAN: 'smoke',
    ISWC_REPORT_DIR: '/w/out',
  });
  expect(plan.playwrightArgs).toEqual(['--grep=@smoke', '--shard=1/3']);
  expect(JSON.stringify(plan)).not.toContain('k-123456');
});
