/**
 * npm run expectations:update: runs the self-check (the suite against each fault of the reference
 * server's catalogue) and rewrites tests/expectations/faults.json, the checks that catch each fault, and
 * tests/expectations/fault-proofs.json, the fewest cases that show them. Run it after a deliberate change
 * to a check, a case or a fault; the diff of faults.json is the review.
 */
import { scriptArgs } from './args.ts';
import { expectationDiff, expectationsOf, readExpectations, writeExpectations } from '../lib/selfcheck/fault-expectations.ts';
import { SELFCHECK_TIMEOUT_MS, selfCheck } from '../lib/selfcheck/selfcheck.ts';
import type { FaultResult } from '../lib/selfcheck/selfcheck.ts';
import { acrossFormats, allCatching, caseFormats, PROOFS_FILE, proofCover, readProofs, writeProofs } from '../lib/selfcheck/fault-proofs.ts';
import type { FaultProofs } from '../lib/selfcheck/fault-proofs.ts';
import { measuredCatchers } from '../lib/selfcheck/targeted.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { fromRoot } from '../lib/foundation/paths.ts';
import { existsSync } from 'node:fs';
import { EMBEDDED_KEY, FAULTS, startReferenceServer } from '../server/index.ts';
import { choicesAroundFault, isBlind } from '../server/choice-space.ts';
import { faultTrial } from '../lib/sweep/sweep.ts';
import { trial } from '../lib/sweep/trial.ts';
import type { TrialOptions } from '../lib/sweep/trial.ts';
import { readRegressions, REGRESSIONS_FILE, writeRegressions } from '../lib/sweep/regressions.ts';

const args = scriptArgs(
  `Usage: npm run expectations:update [-- --proofs]

Runs the self-check (the suite against each fault of the reference server's catalogue; the lenient
families with the smoke plan) and rewrites
tests/expectations/faults.json with the checks that catch each fault. Run it after a deliberate change to a
check, a case or a fault; the diff of that file is the review. It also rewrites
tests/expectations/fault-proofs.json: for each fault the fewest cases that show its checks, each proof run
alone before it is written (npm test runs each fault with its proof), and the proof of each regression set
of tests/expectations/choice-regressions.json whose fault that proof does not catch behind its choices.

--proofs  rewrites the proofs only, from runs of each fault with the cases the committed
          measurement says catch it (its whole plan where those do not show the pinned checks), in
          about three minutes; faults.json is left as it is. For a change that renames or moves cases,
          not what they catch.`,
  { proofs: { type: 'boolean', default: false } },
);
const file = fromRoot('tests', 'expectations', 'faults.json');
const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const start = (faultId: string | null) => startReferenceServer({ profile, key: EMBEDDED_KEY, faults: faultId ? [faultId] : [] });
const options = { key: EMBEDDED_KEY, profile };
const started = Date.now();
const seconds = () => Math.round((Date.now() - started) / 1000);

/** Runs one fault with exactly these cases. */
async function runWith(fault: FaultResult['fault'], cases: readonly string[]): Promise<FaultResult> {
  const set = new Set(cases);
  const { results } = await selfCheck([fault], start, { ...options, skipClean: true, casesOf: () => set });
  const [result] = results;
  if (!result) throw new Error(`no result for ${fault.id}`);
  return result;
}

const sameChecks = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

/** The proof of each fault: the cover of its catching checks, the cover in every body format, else every case that caught it (in every format), else null (its whole plan), each run alone. */
async function proofsOf(results: readonly FaultResult[]): Promise<FaultProofs> {
  const proofs: FaultProofs = {};
  const formats = caseFormats(profile);
  const formatsOf = (id: string) => formats(id) ?? [];
  for (const r of results) {
    if (r.caughtBy.length === 0) {
      proofs[r.fault.id] = [];
      continue;
    }
    proofs[r.fault.id] = null;
    const cover = proofCover(r.caughtIn);
    for (const candidate of [cover, acrossFormats(cover, formatsOf), allCatching(r.caughtIn), acrossFormats(allCatching(r.caughtIn), formatsOf)]) {
      if (sameChecks((await runWith(r.fault, candidate)).caughtBy, r.caughtBy)) {
        proofs[r.fault.id] = candidate;
        break;
      }
    }
  }
  return proofs;
}

/**
 * The proof of each regression set with a fault, where the fault's own proof does not catch it behind the
 * set's choices: the cover of what the whole suite catches there, run alone before it is kept.
 */
async function proveRegressions(): Promise<void> {
  const list = readRegressions();
  const trialOptions: TrialOptions = { key: EMBEDDED_KEY, profile, timeoutMs: SELFCHECK_TIMEOUT_MS, cleanTimeoutMs: 30_000 };
  const proven: string[] = [];
  for (const r of list) {
    delete r.proof;
    const fault = FAULTS.find((f) => f.id === r.fault);
    if (!fault || r.known !== undefined) continue;
    const choices = choicesAroundFault(fault.id, r.choices).kept;
    if ((await faultTrial(choices, fault, trialOptions)).by === 'proof') continue;
    const whole = await trial(choices, fault, { ...trialOptions, plan: 'full' });
    const caughtIn: Record<string, string[]> = {};
    for (const f of whole.failures) if (!(caughtIn[f.checkId] ??= []).includes(f.key)) caughtIn[f.checkId]?.push(f.key);
    for (const candidate of [proofCover(caughtIn), allCatching(caughtIn)]) {
      if (candidate.length > 0 && (await faultTrial(choices, fault, trialOptions, new Set(), candidate)).by === 'proof') {
        r.proof = candidate;
        proven.push(r.name);
        break;
      }
    }
  }
  writeRegressions(list);
  console.log(`${REGRESSIONS_FILE}: proofs of their own for ${proven.length > 0 ? proven.join(', ') : 'no regression set'} (${seconds()} s)`);
}

function reportProofs(proofs: FaultProofs): void {
  const lists = Object.values(proofs);
  const whole = Object.entries(proofs).filter(([, p]) => p === null).map(([id]) => id);
  const cases = lists.reduce((n, p) => n + (p?.length ?? 0), 0);
  console.log(`${PROOFS_FILE}: ${lists.length} faults, ${cases} cases in all${whole.length > 0 ? `; shown by their whole plan only: ${whole.join(', ')}` : ''} (${seconds()} s)`);
}

if (args.proofs) {
  const pinned = readExpectations(file);
  const catchers = measuredCatchers();
  const before = readProofs();
  const results: FaultResult[] = [];
  const stale: string[] = [];
  for (const fault of FAULTS) {
    const expected = pinned[fault.id]?.caughtBy ?? [];
    const targeted = await runWith(fault, [...(catchers.get(fault.id) ?? [])]);
    // What the measurement's cases show must be what is pinned; where it is not, the whole plan shows where the checks catch it.
    const shown = sameChecks(targeted.caughtBy, expected) ? targeted : (await selfCheck([fault], start, { ...options, skipClean: true })).results[0];
    if (shown && sameChecks(shown.caughtBy, expected)) results.push(shown);
    else stale.push(fault.id);
  }
  const proofs: FaultProofs = { ...(await proofsOf(results)) };
  for (const id of stale) proofs[id] = before[id] ?? null;
  writeProofs(proofs);
  reportProofs(proofs);
  await proveRegressions();
  if (stale.length > 0) console.log(`  not as pinned in faults.json, even with the whole plan: ${stale.join(', ')}; their proofs are kept as they were: npm run expectations:update pins and proves them anew`);
} else {
  const { results } = await selfCheck(FAULTS, start, options);
  const actual = expectationsOf(results);
  const changes = existsSync(file) ? expectationDiff(readExpectations(file), actual) : ['(no pinned file yet)'];
  writeExpectations(file, actual);
  const missed = results.filter((r) => r.caughtBy.length === 0 && !isBlind(r.fault.id)).map((r) => r.fault.id);
  console.log(`${file}: ${results.length} faults, ${changes.length === 0 ? 'unchanged' : `${changes.length} change(s)`} (${seconds()} s)`);
  for (const line of changes) console.log(`  ${line}`);
  writeProofs(await proofsOf(results));
  reportProofs(readProofs());
  await proveRegressions();
  if (missed.length > 0) {
    console.log(`faults no check catches: ${missed.join(', ')}`);
    process.exitCode = 1;
  }
}
