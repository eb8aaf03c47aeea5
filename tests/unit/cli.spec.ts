import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { parseCommandArgs, UsageError, VERSION_TEXT } from '../../lib/cli/command.ts';
import { COMMANDS } from '../../lib/cli/commands.ts';
import { topHelp } from '../../lib/cli/main.ts';
import { allurePage } from '../../lib/cli/commands/allure.ts';
import { runCommand } from '../../lib/cli/commands/run.ts';
import { parseRunArgs } from '../../lib/cli/run-args.ts';
import type { RunPlan } from '../../lib/cli/run-args.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { importsOf, tsFilesUnder } from '../../lib/foundation/stages.ts';
import { cliInProcess, runCli, runCliAsync } from '../support/cli.ts';
import { inProcessReport } from '../../lib/selfcheck/in-process-report.ts';
import { childEnv, runPlaywright } from '../support/run-playwright.ts';

const withKey = { ISWC_SUBSCRIPTION_KEY: 'k-123456' };

/** `run`'s options as the command line gives them. */
function parseRun(argv: string[], cwd: string, env: NodeJS.ProcessEnv): RunPlan {
  return parseRunArgs(parseCommandArgs(runCommand, argv).values, cwd, env);
}

test('every command answers --help with usage, options, environment where it reads any, and exit codes; exit 0', async () => {
  for (const command of COMMANDS) {
    const result = await cliInProcess([command.name, '--help']);
    expect(result.code, command.name).toBe(0);
    expect(result.stderr).toBe('');
    for (const heading of ['Usage: ', 'Options:', 'Exit codes:']) expect(result.stdout, `${command.name} --help`).toContain(heading);
    if (command.environment) expect(result.stdout).toContain('Environment:');
    for (const [code] of command.exitCodes) expect(result.stdout).toMatch(new RegExp(`\\n  ${code}\\s`));
    for (const name of Object.keys(command.options)) expect(result.stdout, `${command.name} documents --${name}`).toContain(`--${name}`);
  }
});

test('the top-level --help lists every command, every exit code and the default command\'s options', async () => {
  const result = await cliInProcess(['--help']);
  expect(result.code).toBe(0);
  for (const command of COMMANDS) expect(result.stdout).toContain(`  ${command.name} `);
  for (const code of ['0', '1', '2', '3', '4', '130']) expect(result.stdout).toMatch(new RegExp(`\\n  ${code}\\s`));
  for (const flag of ['--base-url', '--target', '--strict', '--rate', '--budget', '--destructive', '--grep', '--shard', '--report-dir', '--plan', '--waivers', '--require-all']) expect(topHelp(COMMANDS)).toContain(flag);
  expect((await cliInProcess(['help', 'verify'])).stdout).toContain('Usage: npx iswc-conformance verify');
});

test('--version prints the version, at the top and after a command', async () => {
  const version = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string }).version;
  expect(VERSION_TEXT).toBe(`iswc-conformance ${version}`);
  for (const argv of [['--version'], ['plan', '--version'], ['-V']]) {
    const result = await cliInProcess(argv);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(VERSION_TEXT);
  }
});

test('a usage mistake prints one line, what is wrong and where, then "see --help": exit 2, never the whole help, no stack trace', async () => {
  for (const command of COMMANDS) {
    const result = await cliInProcess([command.name, '--frobnicate']);
    expect(result.code, command.name).toBe(2);
    const help = command.name === 'run' ? 'npx iswc-conformance --help' : `npx iswc-conformance ${command.name} --help`;
    expect(result.stderr).toBe(`iswc-conformance ${command.name}: unknown option '--frobnicate'; see ${help}\n`);
    expect(result.stdout).toBe('');
  }
  for (const argv of [['--budget', 'x'], ['plan', '--budget'], ['server', '--port', '99999'], ['frobnicate'], ['help', 'frobnicate']]) {
    const result = await cliInProcess(argv);
    expect(result.code, argv.join(' ')).toBe(2);
    expect(result.stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
    expect(result.stderr, argv.join(' ')).toMatch(/; see npx iswc-conformance (\w+ )?--help\n$/);
  }
});

test('the npm scripts are thin aliases of the commands, and the bin answers like the in-process main', () => {
  const scripts = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const aliases: Record<string, string> = { conformance: 'run', server: 'server', plan: 'plan', profile: 'profile', replay: 'replay', certify: 'certify', 'certify:verify': 'verify', verify: 'verify', 'report:diff': 'diff', 'report:baseline': 'baseline', 'report:allure': 'allure' };
  // exec: the shell npm starts the script with gives way to node, so a signal sent to npm reaches the tool (.npmrc).
  for (const [script, command] of Object.entries(aliases)) expect(scripts[script], script).toBe(`exec node bin/iswc-conformance.mjs ${command}`);
  expect(readFileSync(fromRoot('.npmrc'), 'utf8')).toMatch(/^script-shell=bash$/m);
  const version = runCli(['--version']);
  expect(version.code).toBe(0);
  expect(version.stdout.trim()).toBe(VERSION_TEXT);
  const bad = runCli(['plan', '--frobnicate']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toBe("iswc-conformance plan: unknown option '--frobnicate'; see npx iswc-conformance plan --help\n");
});

/** Every file a module reaches through its relative imports (static, type-only and dynamic). */
function closure(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const next of importsOf(file)) if (next.endsWith('.ts')) todo.push(next);
  }
  return seen;
}

test('nothing the commands run imports from tests/; the conformance run starts outside tests/ too', () => {
  const reached = [...closure('lib/cli/entry.ts')];
  expect(reached.filter((f) => f.startsWith('tests/'))).toEqual([]);
  // The run's global setup and test files are named by playwright.config.ts, not imported.
  const config = readFileSync(fromRoot('playwright.config.ts'), 'utf8');
  const globalSetup = /globalSetup:\s*'([^']+)'/.exec(config)?.[1] ?? '';
  expect(globalSetup.startsWith('./tests/')).toBe(false);
  for (const file of [globalSetup.replace(/^\.\//, ''), 'reporters/conformance-reporter.ts']) expect([...closure(file)].filter((f) => f.startsWith('tests/')), file).toEqual([]);
});

test('the reference server has no import cycle', () => {
  const files = tsFilesUnder('server');
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => t.startsWith('server/'))]));
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, stack: string[]): void => {
    state.set(node, 'open');
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next, [...stack, next]);
    }
    state.set(node, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file, [file]);
  expect(cycles).toEqual([]);
});

const refused: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
  ['a key flag', ['--key', 'abc'], withKey, /never taken from a flag/],
  ['a non-http base URL', ['--base-url', 'ftp://h/x'], withKey, /http:\/\/ or https:\/\//],
  ['credentials in the base URL', ['--base-url', 'https://u:p@h.example'], withKey, /credentials/],
  ['a remote base URL without a key', ['--base-url', 'https://h.example'], {}, /ISWC_SUBSCRIPTION_KEY is not set/],
  ['a base URL on this machine without a key', ['--base-url', 'http://127.0.0.1:9'], {}, /ISWC_SUBSCRIPTION_KEY is not set: the base URL http:\/\/127\.0\.0\.1:9 \(even one on this machine\)/],
  ['a bad rate', ['--rate', 'fast'], {}, /--rate/],
  ['a bad budget', ['--budget', '-3'], {}, /--budget/],
  ['a bad shard', ['--shard', '2'], {}, /--shard/],
  ['an unknown flag', ['--frobnicate'], {}, /frobnicate/],
  ['a target profile that does not exist', ['--target', 'no/such/profile.json'], {}, /Cannot read target profile/],
];
for (const [label, argv, env, message] of refused) {
  test(`refuses ${label} before sending anything (exit 2)`, async () => {
    expect(() => parseRun(argv, '/w', env)).toThrow(UsageError);
    expect(() => parseRun(argv, '/w', env)).toThrow(message);
    const result = await cliInProcess(argv, { env, cwd: '/w' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.out).not.toContain('k-123456');
  });
}

test('a sharded run is refused with a profile that lets one agent run be open at a time (exit 2), by the command and by a Playwright run alike', { tag: '@e2e' }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-shard-one-run-'));
  try {
    const one = path.join(dir, 'one-run.json');
    writeFileSync(one, JSON.stringify({ agency: '128', iswcs: ['T0345246801'], unknownIswcs: ['T9999999994'], openRuns: 'one' }));
    const message = /--shard 1\/2: the target profile says openRuns "one" .*shards are runs of their own, so two could each have a run open .*Run unsharded/;
    expect(() => parseRun(['--target', one, '--shard', '1/2'], dir, {})).toThrow(message);
    const result = await cliInProcess(['run', '--target', one, '--shard', '1/2'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    // One shard of one is no sharding; the default profile lets many runs be open.
    expect(parseRun(['--target', one, '--shard', '1/1'], dir, {}).playwrightArgs).toEqual(['--shard=1/1']);
    expect(parseRun(['--shard', '1/2'], dir, {}).playwrightArgs).toEqual(['--shard=1/2']);
    // Playwright run straight (docs/reports.md shards that way): the global setup refuses before it starts anything.
    const direct = await runPlaywright(['test', '--project=json', '--shard=1/2', '--reporter=line'], childEnv({ ISWC_TARGET: one, ISWC_BASE_URL: undefined, ISWC_REPORT_DIR: dir }), { timeoutMs: 120_000 });
    expect(direct.code, direct.stdout + direct.stderr).toBe(2);
    expect(direct.stderr).toMatch(message);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('flags become the documented environment and Playwright arguments', () => {
  const plan = parseRun(['--base-url', 'https://staging.example/iswc/', '--strict', '--rate', '10/min', '--budget', '50', '--destructive', '--smoke', '--grep', '@smoke', '--shard', '1/3', '--report-dir', 'out'], '/w', withKey);
  expect(plan.env).toMatchObject({
    ISWC_BASE_URL: 'https://staging.example/iswc',
    ISWC_STRICT: '1',
    ISWC_RATE: '10/min',
    ISWC_BUDGET: '50',
    ISWC_DESTRUCTIVE: '1',
    ISWC_PLAN: 'smoke',
    ISWC_REPORT_DIR: '/w/out',
  });
  expect(plan.playwrightArgs).toEqual(['--grep=@smoke', '--shard=1/3']);
  expect(JSON.stringify(plan)).not.toContain('k-123456');
  expect(parseRun(['--target', 'fixtures/targets/embedded.json'], fromRoot(), {}).env.ISWC_TARGET).toBe(fromRoot('fixtures', 'targets', 'embedded.json'));
});

test('plan prints what a run would send without a key or a request; --plan on run says the same', async () => {
  const plan = await cliInProcess(['plan', '--budget', '30', '--quiet']);
  expect(plan.code, plan.out).toBe(0);
  expect(plan.stdout).toContain('plan full, budget 30 requests');
  expect(plan.stdout).toMatch(/spec checks: \d+ of \d+ exercised/);
  const dry = await cliInProcess(['--plan', '--budget', '30']);
  expect(dry.code, dry.out).toBe(0);
  expect(dry.stdout).toContain('plan full, budget 30 requests');
  // --plan is the same flag in both: it prints the plan; the smoke plan is --smoke.
  const named = await cliInProcess(['plan', '--plan', 'smoke']);
  expect(named.code).toBe(2);
  expect(named.stderr).toContain('--plan takes no value: it prints the plan and sends nothing (run --plan and the plan command alike); the smoke plan is --smoke');
  expect((await cliInProcess(['plan', '--plan', '--smoke', '--quiet'])).stdout).toContain('plan smoke');
  // A plan that exercises every spec check: what more profile data adds is one optional line, never "needs 3 more merges".
  const covered = await cliInProcess(['plan', '--target', fromRoot('fixtures', 'targets', 'staging-example.json'), '--smoke', '--destructive', '--quiet']);
  expect(covered.stdout).toContain('spec checks: 25 of 25 exercised');
  expect(covered.stdout).not.toMatch(/× needs \d+ more/);
  expect(covered.stdout).toMatch(/\d+ × more profile data would add these cases, not checks: every spec check is exercised/);
  // It says the range a run falls in, and what sets it (the full plan's: the smoke plan may hold no agent run the target could refuse).
  const full = await cliInProcess(['plan', '--target', fromRoot('fixtures', 'targets', 'staging-example.json'), '--destructive', '--quiet']);
  expect(full.stdout).toMatch(/total: \d+ to \d+ requests \(no rate limit\)\nhow a run compares:\n +\d+ when the target accepts every agent run/);
});

test('server: a port that is taken or a host that cannot be used is the caller\'s to change, exit 2 (never 1, "not conformant")', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const port = (taken.address() as AddressInfo).port;
    const busy = await cliInProcess(['server', '--port', String(port)]);
    expect(busy.code, busy.out).toBe(2);
    expect(busy.stderr).toContain(`iswc-conformance server: cannot start on 127.0.0.1:${port}: listen EADDRINUSE`);
    const unknown = await cliInProcess(['server', '--host', 'no-such-host.invalid']);
    expect(unknown.code, unknown.out).toBe(2);
    expect(unknown.stderr).toContain('cannot start on no-such-host.invalid:0');
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  }
});

test('allure: the Allure tool failing is a defect on this side, exit 4 (never 1, "not conformant")', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-allure-'));
  try {
    const results = path.join(dir, 'allure-results');
    mkdirSync(results);
    writeFileSync(path.join(results, 'x-result.json'), '{}');
    const failing = path.join(dir, 'failing-cli.mjs');
    writeFileSync(failing, "process.stderr.write('allure: broken\\n'); process.exit(7);\n");
    let stderr = '';
    const code = allurePage(results, path.join(dir, 'allure-report'), { cwd: dir, env: {}, stdout: () => undefined, stderr: (t) => (stderr += t) }, failing);
    expect(code).toBe(4);
    expect(stderr).toContain('allure generate failed (exit 7)');
    expect(stderr).toContain('allure: broken');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('user mistakes end in exit 2 with one plain line, never a stack trace, an internal error or a hang', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-mistakes-'));
  try {
    const report = path.join(dir, 'conformance.json');
    writeFileSync(report, JSON.stringify(await inProcessReport({ filter: (p) => p.key === 'run.no-content-type@json' })));
    const aFile = path.join(dir, 'a-file');
    writeFileSync(aFile, 'not a directory');
    const aDir = path.join(dir, 'a-dir');
    mkdirSync(aDir);
    const profile = fromRoot('fixtures', 'targets', 'embedded.json');
    const mistakes: Array<[string, string[], Record<string, string>, RegExp]> = [
      ['a shard past the last', ['run', '--shard', '2/1'], {}, /--shard 2\/1: there is no shard 2 of 1/],
      ['a --grep that does not compile', ['run', '--grep', '('], {}, /--grep "\(" is not a regular expression/],
      ['ISWC_RATE that is not a rate (run)', ['run'], { ISWC_RATE: 'abc' }, /ISWC_RATE: Invalid rate "abc"/],
      ['ISWC_RATE that is not a rate (replay)', ['replay', 'abcdef12', '--report', report], { ISWC_RATE: 'abc' }, /ISWC_RATE: Invalid rate "abc"/],
      ['ISWC_RATE that is not a rate (plan)', ['plan'], { ISWC_RATE: 'abc' }, /ISWC_RATE: Invalid rate "abc"/],
      ['ISWC_WORKERS=0', ['run'], { ISWC_WORKERS: '0' }, /ISWC_WORKERS must be a positive integer, got "0"/],
      ['a key too short to redact', ['run', '--base-url', 'http://127.0.0.1:9'], { ISWC_SUBSCRIPTION_KEY: 'wrong' }, /ISWC_SUBSCRIPTION_KEY is 5 characters long: the key is replaced by \$ISWC_SUBSCRIPTION_KEY wherever it occurs .* at least 8 characters/],
      ['a key too short to redact (replay)', ['replay', 'abcdef12', '--report', report], { ISWC_SUBSCRIPTION_KEY: 'test' }, /ISWC_SUBSCRIPTION_KEY is 4 characters long/],
      ['ISWC_WORKERS=abc', ['run'], { ISWC_WORKERS: 'abc' }, /ISWC_WORKERS must be a positive integer, got "abc"/],
      ['a --report-dir that is a file', ['run', '--report-dir', aFile], {}, /--report-dir: cannot write .*a-file: a file is where a directory is needed \(EEXIST\)/],
      ['an ISWC_REPORT_DIR under a file', ['run'], { ISWC_REPORT_DIR: path.join(aFile, 'reports') }, /ISWC_REPORT_DIR: cannot write .*a-file\/reports: part of the path is a file, not a directory \(ENOTDIR\)/],
      ['diff --out a file', ['diff', report, report, '--out', aFile], {}, /cannot write .*a-file: a file is where a directory is needed \(EEXIST\)/],
      ['baseline --out a directory', ['baseline', report, '--out', aDir], {}, /cannot write .*a-dir: it is a directory \(EISDIR\)/],
      ['baseline --out under a file', ['baseline', report, '--out', path.join(aFile, 'base.json')], {}, /cannot write .*a-file(\/base\.json)?: (part of the path is a file|a file is where a directory is needed)/],
      ['certify --out a file', ['certify', '--report', report, '--target', profile, '--out', aFile], {}, /cannot write .*a-file: a file is where a directory is needed \(EEXIST\)/],
    ];
    // The first mistake of each command as a user meets it, a process of its own (what a stack trace or a
    // hang would show); the others through the same main() in this process.
    const spawned = new Set(['run', 'replay', 'plan', 'diff', 'baseline', 'certify'].map((name) => mistakes.findIndex(([, argv]) => argv[0] === name)));
    const results = await Promise.all(
      mistakes.map(([, argv, env], i) => {
        const options = { cwd: dir, env: childEnv({ ISWC_BASE_URL: undefined, ISWC_TARGET: undefined, ISWC_REPORT_DIR: dir, ISWC_RATE: undefined, ISWC_WORKERS: undefined, ...env }) };
        return spawned.has(i) ? runCliAsync(argv, { ...options, timeoutMs: 60_000, refusedBeforeRun: true }) : cliInProcess(argv, options);
      }),
    );
    mistakes.forEach(([label, , , message], i) => {
      const result = results[i];
      expect(result?.code, `${label}: ${result?.out ?? ''}`).toBe(2);
      expect(result?.stderr, label).toMatch(message);
      expect(result?.out, label).not.toMatch(/: internal error:|\n\s+at .*:\d+:\d+\)?\n|SyntaxError|TypeError/);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('playwright.config.ts loads whatever ISWC_WORKERS holds (the global setup refuses a bad one plainly)', { tag: '@e2e' }, () => {
  for (const workers of ['0', 'abc']) {
    const run = spawnSync(process.execPath, [createRequire(import.meta.url).resolve('@playwright/test/cli'), 'test', '--list', '--project=unit', 'tests/unit/pacer.spec.ts'], {
      cwd: fromRoot(),
      env: childEnv({ ISWC_WORKERS: workers }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, `${workers}: ${run.stdout}${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/Total: \d+ tests in 1 file/);
  }
});
