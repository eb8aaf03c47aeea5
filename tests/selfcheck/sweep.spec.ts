import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { SELFCHECK_TIMEOUT_MS } from '../../lib/selfcheck/selfcheck.ts';
import { readRegressions } from '../../lib/sweep/regressions.ts';
import { faultTrial, findingsOf, findingSubject, isFalseAlarm, planSweep, runCombination } from '../../lib/sweep/sweep.ts';
import { trial } from '../../lib/sweep/trial.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';
import type { TrialOptions } from '../../lib/sweep/trial.ts';
import { choicesAroundFault } from '../../server/choice-space.ts';
import { EMBEDDED_KEY, FAULTS } from '../../server/index.ts';

test.describe.configure({ timeout: 8 * 60_000 });

/** The random part's seed in npm test: fixed, so that a red test is replayed by the command it prints. */
const SEED = 20261127;
/** At most this many combinations, each with this many faults… */
const COMBINATIONS = 4;
const FAULTS_EACH = 3;
/** …and no combination starts after this long (the sweep script runs many: npm run selfcheck:sweep). */
const TIME_BOUND_MS = 45_000;

const options: TrialOptions = { key: EMBEDDED_KEY, profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), timeoutMs: SELFCHECK_TIMEOUT_MS, cleanTimeoutMs: REQUEST_TIMEOUT_MS };

/**
 * Principles 1 and 3 over the space of legitimate servers, not only the named sets: each combination the
 * sweep once found failing, shrunk to the fewest choices that reproduce it
 * (tests/expectations/choice-regressions.json), must stay fixed: the suite green against it (strict), or
 * its fault caught behind it. One still marked `known` must still fail, so the mark goes once it is fixed.
 */
// One test a regression set, so that workers share them.
for (const r of readRegressions()) {
  test(`regression set ${r.name} stays fixed: green, or its fault caught behind its choices @selfcheck`, async () => {
    let failing: boolean;
    let what: string;
    if (r.fault !== undefined) {
      const fault = FAULTS.find((f) => f.id === r.fault);
      if (!fault) throw new Error(`regression set ${r.name}: unknown fault ${r.fault}`);
      const caught = await faultTrial(choicesAroundFault(fault.id, r.choices).kept, fault, options, new Set(), r.proof);
      failing = caught.caughtBy.length === 0;
      what = `${r.fault} is caught by no check behind ${r.choices.join(' ')}`;
    } else {
      const clean = await trial(r.choices, null, { ...options, plan: 'full' });
      failing = isFalseAlarm(clean);
      what = `the suite fails a server making ${r.choices.join(' ')}: ${clean.failures.slice(0, 3).map((f) => `${f.checkId} ${f.caseId} ${f.step}: ${f.received ?? ''}`).join('; ') || clean.halt?.reason}`;
    }
    if (r.known === undefined) expect(failing ? [`regression set ${r.name}: ${what}`] : []).toEqual([]);
    else expect(failing, `regression set ${r.name} now passes: remove its "known" mark in tests/expectations/choice-regressions.json`).toBe(true);
  });
}

/**
 * Random servers: combinations of compatible legitimate choices drawn from a fixed seed (printed), the
 * whole suite strict against each, and faults of the catalogue dealt among them, each to be caught behind
 * the choices that do not hide it by right (server/choice-space.ts). A few, within a time bound: the sweep
 * script draws many (npm run selfcheck:sweep -- --count 200), and shrinks what fails.
 */
test('random combinations of compatible choices: no false alarm, and every fault dealt is caught behind them @selfcheck', async ({}, testInfo) => {
  const replay = `npm run selfcheck:sweep -- --seed ${SEED} --count ${COMBINATIONS} --faults ${FAULTS_EACH}`;
  process.stdout.write(`\nSweep in npm test: seed ${SEED}, up to ${COMBINATIONS} combinations with ${FAULTS_EACH} faults each (replay and shrink: ${replay})\n`);
  const regressions = readRegressions();
  const started = Date.now();
  const lines: string[] = [];
  const problems: string[] = [];
  for (const c of planSweep({ seed: SEED, count: COMBINATIONS, faultsPerCombination: FAULTS_EACH })) {
    if (c.index > 0 && Date.now() - started > TIME_BOUND_MS) break;
    const result = await runCombination(c.index, c.choices, c.faults, options);
    lines.push(`#${c.index} (${c.choices.join(' ')}): clean ${isFalseAlarm(result.clean) ? 'FAILS' : 'ok'}; ${result.faults.map((t) => `${t.fault} ${t.caughtBy.length > 0 ? 'caught' : 'MISSED'}`).join(', ')}`);
    for (const f of findingsOf(result, regressions)) {
      if (f.explainedBy?.known) continue;
      problems.push(`#${f.index}: ${findingSubject(f)} behind ${f.choices.join(' ')}`);
    }
  }
  const text = `${lines.join('\n')}\n(${Math.round((Date.now() - started) / 1000)} s)`;
  process.stdout.write(`${text}\n`);
  await testInfo.attach('sweep.txt', { body: text, contentType: 'text/plain' });
  expect(problems, `shrink and keep each with: ${replay} --record`).toEqual([]);
});
