import { expect, _baseTest as test } from '@playwright/test';
import { parseCommandArgs, UsageError } from '../../lib/cli/command.ts';
import { runCommand } from '../../lib/cli/commands/run.ts';
import { parseRunArgs } from '../../lib/cli/run-args.ts';
import { ConfigError, parseDuration, readConfig } from '../../lib/config/config.ts';
import { parseRate } from '../../lib/config/rate.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { planSuite, suiteOptionsFrom } from '../../lib/run/plan.ts';
import { humanDuration, longRunNotice } from '../../lib/run/estimate.ts';

/**
 * A number without a unit, where the unit decides what happens (--rate 10: a second or a minute, sixty
 * times apart; --max-duration 20: seconds or minutes), is refused before a request, saying what to write;
 * every form the tool itself prints is taken back.
 */

const args = (argv: string[]) => parseRunArgs(parseCommandArgs(runCommand, argv).values, '/w', {});

test('--rate 10 and ISWC_RATE=10 are refused (exit 2) with the forms to write; 0 still means no limit', () => {
  expect(() => args(['--rate', '10'])).toThrow(UsageError);
  expect(() => args(['--rate', '10'])).toThrow('--rate: Invalid rate "10": a number without a unit; write 10/min (10 requests a minute; staging publishes 10/min) or 10/s (10 a second); 0 for no limit');
  expect(() => readConfig({ ISWC_RATE: '10' })).toThrow(ConfigError);
  expect(() => readConfig({ ISWC_RATE: '10' })).toThrow(/^ISWC_RATE: Invalid rate "10": a number without a unit; write 10\/min/);
  expect(args(['--rate', '10/min']).env.ISWC_RATE).toBe('10/min');
  expect(args(['--rate', '0']).env.ISWC_RATE).toBe('0');
  expect(parseRate('0')).toBeNull();
});

test('--max-duration 20 and ISWC_MAX_DURATION=20 are refused (exit 2) with the forms to write', () => {
  expect(() => args(['--max-duration', '20'])).toThrow(UsageError);
  expect(() => args(['--max-duration', '20'])).toThrow('--max-duration "20" is a number without a unit: write 20m for 20 minutes or 20s for 20 seconds (also 1.5h, 1h30m)');
  expect(() => readConfig({ ISWC_MAX_DURATION: '20' })).toThrow(ConfigError);
});

test('every duration and rate the tool prints is taken back: the long-run notice of a paced plan, humanDuration, "requests/s"', async () => {
  const profile = loadProfile(fromRoot('fixtures/targets/staging-example.json'));
  const cfg = readConfig({ ISWC_RATE: '10/min' });
  const planned = await planSuite(profile, suiteOptionsFrom(cfg));
  const notice = longRunNotice(planned, { plan: 'full', budget: undefined, runs: cfg.runs, destructive: false, rate: parseRate('10/min') });
  expect(notice.length).toBeGreaterThan(0);
  const duration = /--max-duration (\S+)/.exec(notice.join('\n'))?.[1];
  expect(duration).toBeDefined();
  expect(args(['--max-duration', duration as string]).env.ISWC_MAX_DURATION).toBe(duration);
  const rate = /at (\S+ requests\/s)/.exec(notice[0] ?? '')?.[1];
  expect(rate).toBeDefined();
  expect(parseRate(rate)).toBeCloseTo(10 / 60, 2);
  for (const seconds of [40, 720, 14_000]) expect(parseDuration(humanDuration(seconds))).toBeGreaterThan(0);
});
