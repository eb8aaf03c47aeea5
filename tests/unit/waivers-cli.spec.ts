import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { parseCommandArgs, renderHelp, UsageError } from '../../lib/cli/command.ts';
import { runCommand } from '../../lib/cli/commands/run.ts';
import { parseRunArgs } from '../../lib/cli/run-args.ts';
import { readConfig } from '../../lib/config/config.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';

const EXAMPLE = fromRoot('fixtures', 'waivers', 'production-deviations.yaml');
const HELP = renderHelp(runCommand);
const parseCli = (argv: string[], cwd: string, env: NodeJS.ProcessEnv) => parseRunArgs(parseCommandArgs(runCommand, argv).values, cwd, env);

test('--help explains --waivers and --require-all', () => {
  expect(HELP).toContain('--waivers FILE');
  expect(HELP).toContain('--require-all');
});

test('ISWC_WAIVERS and ISWC_REQUIRE_ALL are read into the run configuration', () => {
  const saved = { w: process.env.ISWC_WAIVERS, r: process.env.ISWC_REQUIRE_ALL };
  try {
    process.env.ISWC_WAIVERS = 'fixtures/waivers/production-deviations.yaml';
    process.env.ISWC_REQUIRE_ALL = '1';
    const config = readConfig(process.env, { requireKey: false });
    expect(config.waivers).toBe(path.resolve('fixtures/waivers/production-deviations.yaml'));
    expect(config.requireAll).toBe(true);
    delete process.env.ISWC_WAIVERS;
    process.env.ISWC_REQUIRE_ALL = 'maybe';
    expect(() => readConfig(process.env, { requireKey: false })).toThrow(/ISWC_REQUIRE_ALL must be 1 or 0/);
    delete process.env.ISWC_REQUIRE_ALL;
    expect(readConfig(process.env, { requireKey: false })).toMatchObject({ waivers: undefined, requireAll: false });
  } finally {
    for (const [name, value] of [['ISWC_WAIVERS', saved.w], ['ISWC_REQUIRE_ALL', saved.r]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});

test('CLI: --waivers checks the file before anything runs; --require-all sets ISWC_REQUIRE_ALL', () => {
  const plan = parseCli(['--waivers', 'fixtures/waivers/production-deviations.yaml', '--require-all'], fromRoot(), {});
  expect(plan.env.ISWC_WAIVERS).toBe(EXAMPLE);
  expect(plan.env.ISWC_REQUIRE_ALL).toBe('1');
  const dir = mkdtempSync(path.join(tmpdir(), 'iswc-waivers-cli-'));
  try {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, '- check: status.not-found\n  statuses: [400]\n  reason: r\n  until: 2027-02-30\n');
    expect(() => parseCli(['--waivers', bad], dir, {})).toThrow(UsageError);
    expect(() => parseCli(['--waivers', 'bad.yaml'], dir, {})).toThrow(new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:4:10 entry 0 \\(until\\)`));
    // The same file through the environment is refused the same way.
    expect(() => parseCli([], dir, { ISWC_WAIVERS: bad })).toThrow(/entry 0 \(until\): "2027-02-30" is not a date/);
    expect(() => parseCli(['--waivers', path.join(dir, 'missing.yaml')], dir, {})).toThrow(/no such file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
