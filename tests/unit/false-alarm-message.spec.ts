/**
 * A check that a legitimate choice of the reference server fails is rejected by `npm run generate` (the
 * plans' measurement runs every case against every choice set) with a message that names the choice, not
 * its set, says what the choice does, and says what to fix: the check. Here a check of the test's own,
 * "no answer is application/problem+json", plays a new http check with a false alarm; the production set
 * (twenty choices) makes it fail, and the search finds the one choice behind it.
 */
import { expect, _baseTest as test } from '@playwright/test';
import { createJudge } from '../../lib/check/judge.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { Judge } from '../../lib/run/execution.ts';
import { choicesBehind, falseAlarmMessage } from '../../scripts/plans/false-alarms.ts';
import type { FalseAlarm } from '../../scripts/plans/false-alarms.ts';
import { measure } from '../../scripts/plans/measure.ts';

const CASE = 'limit.notifyAgentRun.body.agencyCode.below-min@json';

test('a false alarm names the choice behind it, what it does, and says to fix the check', async () => {
  test.setTimeout(300_000);
  const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
  const judgeOf = (strict: boolean): Judge => {
    const judge = createJudge({ strict, agency: profile.agency });
    return (step, exchange, format) => {
      const type = exchange.response?.headers['content-type'] ?? '';
      const mine = { checkId: 'http.no-problem-json', level: 'http' as const, sections: ['RFC 9457'], verdict: type.includes('problem+json') ? ('fail' as const) : ('pass' as const), expected: 'no problem+json', received: type, gating: type.includes('problem+json') };
      return [...judge(step, exchange, format), mine];
    };
  };
  const judge = judgeOf(true);
  // What the measurement finds against the set: the case fails.
  const measured = await measure(profile, { destructive: true, strict: true, choices: 'production' }, 1, { only: (key) => key === CASE, judge });
  const result = measured.get(CASE);
  expect(result?.caught).toBe(true);
  const alarm: FalseAlarm = { set: 'production', destructive: true, seed: 1, key: CASE, failures: result?.failures ?? [] };
  expect(alarm.failures[0]).toMatch(/^http\.no-problem-json /);

  const choices = await choicesBehind(alarm, profile, { judge });
  expect(choices).toEqual(['problem-json']);
  const message = falseAlarmMessage([{ alarm, choices }]);
  expect(message).toContain('a false alarm: a check fails against a legitimate choice of the reference server');
  expect(message).toContain('Fix the check: its judge, or the reading it applies');
  expect(message).toContain('http.no-problem-json fails against the choice problem-json (of the set production; destructive, seed 1):');
  expect(message).toMatch(/\n {2}problem-json: .+/);
  expect(message).not.toMatch(/fix the case/i);
});
