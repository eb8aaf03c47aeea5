/**
 * Target profiles (schemas/target-profile.schema.json, lib/contract/profile/load.ts): what a profile must
 * have (an agency, one existing and one unknown ISWC), what it may leave out, and how a bad one is
 * refused: the file, the JSON path, what to change, no stack trace, exit 2.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile, parseProfile, ProfileError } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { cliInProcess } from '../support/cli.ts';
import { childEnv, runPlaywright } from '../support/run-playwright.ts';

const MINIMAL = { agency: '128', iswcs: ['T0345246801'], unknownIswcs: ['T9999999994'] };
/** A stack frame as Node prints it. */
const STACK_FRAME = /\n\s+at .*[(/].*:\d+/;

test('a profile needs only an agency, one existing and one unknown ISWC; the rest has defaults', () => {
  const profile = parseProfile(MINIMAL, 'profiles/staging-128.json');
  expect(profile).toEqual({ ...MINIMAL, name: 'staging-128', merges: [], demerges: [], submissions: [], reasonCode: 'EdiV1', xmlArrays: 'unwrapped', runIds: 'server', openRuns: 'many', formats: ['json', 'xml'] });
  expect(parseProfile({ ...MINIMAL, name: 'mine' }, 'x.json').name).toBe('mine');
  // A merge entry's lists default to empty, so a scenario's ${entry.merges[0].iswcs} is always a list.
  const merges = parseProfile({ ...MINIMAL, merges: [{ preferredIswc: 'T3100000004', agencyWorks: [{ agencyCode: '128', agencyWorkCode: 'W1' }] }] }, 'x.json').merges;
  expect(merges[0]?.iswcs).toEqual([]);
  for (const file of ['minimal.json', 'three-entries.json', 'readme-example.json', 'embedded.json']) expect(() => loadProfile(fromRoot('fixtures', 'targets', file)), file).not.toThrow();
});

/** What is wrong, and the line the error must have for it. */
const problems: Array<[string, unknown, RegExp]> = [
  ['a misspelt required field: named once, with the field meant', { agency: '128', iswcs: ['T0345246801'], unknownIswc: ['T9999999994'] }, /\n {2}unknownIswc: unknown field; did you mean "unknownIswcs" \(a required field\)\?\n/],
  ['an unknown field without a near name: the fields there are', { ...MINIMAL, colour: 'blue' }, /\n {2}colour: unknown field; the fields of a target profile are name, agency, .*submissions\n/],
  ['a misspelt field inside an agency work', { ...MINIMAL, merges: [{ preferredIswc: 'T3100000004', agencyWorks: [{ agencyCode: '128', agencyWorkcode: 'W' }] }] }, /\n {2}merges\[0\]\.agencyWorks\[0\]\.agencyWorkcode: unknown field; did you mean "agencyWorkCode" \(a required field\)\?\n/],
  ['a missing agency, with what it is', { iswcs: ['T0345246801'], unknownIswcs: ['T9999999994'] }, /\n {2}agency: missing \(the agency the subscription key acts for, 3 characters, e\.g\. "128"\)\n/],
  ['an agency code of the wrong length', { ...MINIMAL, agency: '12' }, /\n {2}agency: "12" has 2 characters; it must have exactly 3\n/],
  ['a malformed ISWC', { ...MINIMAL, iswcs: ['T-034.524.680-1'] }, /\n {2}iswcs\[0\]: "T-034\.524\.680-1" is not an ISWC: the letter T and 10 digits, no separators, e\.g\. T0345246801\n/],
  ['no existing ISWC', { ...MINIMAL, iswcs: [] }, /\n {2}iswcs: must list at least 1 item; it is empty\n/],
  ['an ISWC listed twice', { ...MINIMAL, unknownIswcs: ['T9999999994', 'T9999999994'] }, /\n {2}unknownIswcs\[1\]: repeats unknownIswcs\[0\] \("T9999999994"\); list each once\n/],
  ['a merge entry that carries nothing', { ...MINIMAL, merges: [{ preferredIswc: 'T3100000004' }] }, /\n {2}merges\[0\]: has neither "iswcs" nor "agencyWorks"/],
  ['a number written as text', { ...MINIMAL, submissions: [{ preferredIswc: 'T3300000000', agency: '128', workcode: 'W', sourceDb: '128' }] }, /\n {2}submissions\[0\]\.sourceDb: must be a whole number \(no quotes\), not the text "128"\n/],
  ['a sourceDb past 32 bits', { ...MINIMAL, submissions: [{ preferredIswc: 'T3300000000', agency: '128', workcode: 'W', sourceDb: 2 ** 31 }] }, /\n {2}submissions\[0\]\.sourceDb: 2147483648 is above 2147483647, the most a 32-bit integer can be\n/],
  ['a list given as one value', { ...MINIMAL, demerges: { preferredIswc: 'T3200000002' } }, /\n {2}demerges: must be a list \[ … \], not an object\n/],
  ['an unknown xmlArrays', { ...MINIMAL, xmlArrays: 'nested' }, /\n {2}xmlArrays: "nested" is not one of "unwrapped", "wrapped"\n/],
  ['a blank reasonCode', { ...MINIMAL, reasonCode: '  ' }, /\n {2}reasonCode: must not be blank\n/],
  ['an ISWC that both exists and does not', { ...MINIMAL, unknownIswcs: ['T0345246801'] }, /\n {2}unknownIswcs\[0\]: T0345246801 is also listed in iswcs: an ISWC either exists in the target or does not/],
];
for (const [what, value, line] of problems) {
  test(`a bad profile names the file and the path: ${what}`, () => {
    let error: unknown;
    try {
      parseProfile(value, 'targets/mine.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProfileError);
    const message = (error as ProfileError).message;
    expect(message).toMatch(/^Target profile targets\/mine\.json is not valid:\n/);
    expect(message).toMatch(line);
    expect(message).not.toMatch(/must NOT have|must have required property|must match/);
    expect((error as ProfileError).problems.length).toBeGreaterThan(0);
    // No stack: whoever prints it (the CLI, Playwright's global setup) prints the message alone.
    expect((error as ProfileError).stack).toBe(`ProfileError: ${message}`);
  });
}

test('a file that cannot be read, or is not JSON, is named with what is wrong and where', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-profile-'));
  try {
    expect(() => loadProfile(path.join(dir, 'none.json'), 'none.json')).toThrow(/^Cannot read target profile none\.json: no such file$/);
    mkdirSync(path.join(dir, 'folder.json'));
    expect(() => loadProfile(path.join(dir, 'folder.json'), 'folder.json')).toThrow(/^Cannot read target profile folder\.json: it is a directory$/);
    writeFileSync(path.join(dir, 'comma.json'), '{\n  "agency": "128",\n  "iswcs": ["T0345246801"],\n}\n');
    expect(() => loadProfile(path.join(dir, 'comma.json'), 'comma.json')).toThrow(/^Target profile comma\.json is not valid JSON \(line 4, column 1\): /);
    // A file cut short has no position in the parser's message: the end of the file is where it stopped.
    writeFileSync(path.join(dir, 'cut.json'), '{\n  "agency": "128",\n  "iswcs": ["T0345246801"');
    expect(() => loadProfile(path.join(dir, 'cut.json'), 'cut.json')).toThrow(/^Target profile cut\.json is not valid JSON \(line 3, column 2[0-9]\): /);
    writeFileSync(path.join(dir, 'empty.json'), '');
    expect(() => loadProfile(path.join(dir, 'empty.json'), 'empty.json')).toThrow(/^Target profile empty\.json is not valid JSON \(line 1, column 1\): Unexpected end of JSON input$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad profile on the command line: the message, exit 2, no stack trace (run, plan, profile check, server)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-profile-'));
  try {
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ agency: '128', iswcs: ['T0345246801'], unknownIswc: ['T9999999994'] }));
    for (const argv of [['run', '--target', 'bad.json'], ['plan', '--target', 'bad.json'], ['profile', 'check', 'bad.json'], ['server', '--target', 'bad.json']]) {
      const result = await cliInProcess(argv, { cwd: dir });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toContain('unknownIswc: unknown field; did you mean "unknownIswcs" (a required field)?');
      expect(result.out, argv.join(' ')).not.toMatch(STACK_FRAME);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad profile through plain Playwright (ISWC_TARGET): its global setup prints the message without a stack', { tag: '@e2e' }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-profile-'));
  try {
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ agency: '12', iswcs: ['T0345246801'], unknownIswcs: ['T9999999994'] }));
    const run = await runPlaywright(['test', '--project=json', '--reporter=list'], childEnv({ ISWC_TARGET: file, ISWC_REPORT_DIR: path.join(dir, 'reports'), ISWC_BASE_URL: undefined }), { timeoutMs: 120_000 });
    const out = `${run.stdout}${run.stderr}`;
    expect(run.code).not.toBe(0);
    expect(out).toContain(`Target profile ${file} is not valid:\n  agency: "12" has 2 characters; it must have exactly 3`);
    expect(out).not.toMatch(STACK_FRAME);
    expect(out).not.toContain('load.ts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the example profile of docs/target-profile.md is fixtures/targets/readme-example.json, which loads as it is', () => {
  const doc = readFileSync(fromRoot('docs', 'target-profile.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## A profile'));
  const example = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  expect(example, 'a JSON example in the section "A profile" of docs/target-profile.md').toBeDefined();
  expect(JSON.parse(example ?? '')).toEqual(JSON.parse(readFileSync(fromRoot('fixtures', 'targets', 'readme-example.json'), 'utf8')));
  expect(loadProfile(fromRoot('fixtures', 'targets', 'readme-example.json')).name).toBe('staging-imro');
});
