/**
 * npm run selfcheck:sweep [-- --count N --seed S …]: the self-check over random servers instead of the
 * named choice sets alone. Draws N combinations of compatible legitimate choices of the reference server
 * (server/choice-space.ts), runs the whole suite, strict, against each (any failure is a false alarm), and
 * tries faults of the catalogue behind each (a fault no check catches is a miss). Every finding not already
 * accounted for by tests/expectations/choice-regressions.json is shrunk to the fewest choices that
 * reproduce it; --record keeps those as named regression sets.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scriptArgs } from './args.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { fromRoot } from '../lib/foundation/paths.ts';
import { SELFCHECK_TIMEOUT_MS } from '../lib/selfcheck/selfcheck.ts';
import { runInChildren, serveJobs } from '../lib/sweep/pool.ts';
import { explainingRegression, readRegressions, REGRESSIONS_FILE, writeRegressions } from '../lib/sweep/regressions.ts';
import type { ChoiceRegression } from '../lib/sweep/regressions.ts';
import { findingsOf, findingSubject, isFalseAlarm, planSweep, runSweepJob } from '../lib/sweep/sweep.ts';
import type { CombinationResult, Finding, Shrunk, SweepJob, SweepJobResult } from '../lib/sweep/sweep.ts';
import { CLEAN_TIMEOUT_MS } from '../lib/sweep/trial.ts';
import type { TrialOptions } from '../lib/sweep/trial.ts';
import { EMBEDDED_KEY, FAULTS } from '../server/index.ts';

const USAGE = `Usage: npm run selfcheck:sweep -- [--count N] [--seed S] [--faults K] [--max-choices M] [--jobs J] [--no-shrink] [--record] [--json FILE]

Draws N random combinations of compatible legitimate choices of the reference server (server/choice-space.ts:
exclusive groups, the profile settings each choice needs), runs the whole suite, strict, against each (a
failure is a false alarm), and tries K faults of the catalogue behind each, dealt so that every fault is
tried about as often (a fault no check catches is a miss; declared exclusions leave out the choices that
hide a fault by right). Each finding that no regression set of tests/expectations/choice-regressions.json
accounts for is shrunk to the fewest choices that reproduce it.

  --count N        combinations to draw (default 20)
  --seed S         seed of the draw (default: a random one, printed; pass it again to replay the sweep)
  --faults K       faults tried behind each combination (default 8; 0: false alarms only)
  --max-choices M  most choices in one combination (default 40)
  --jobs J         child processes sharing the work (default: the number of cores, at most 2)
  --only I         run combination #I of the seed alone (as a sweep with the same options drew it)
  --no-shrink      report findings as found, without shrinking them
  --record         append each shrunk finding to tests/expectations/choice-regressions.json as a named
                   regression set (npm test then runs it: fix it, or mark it "known" with the reason)
  --json FILE      write every result and finding to FILE

Exit status: 0 when no combination fails and every fault is caught (findings of a regression set marked
"known" are listed and do not count), 1 otherwise, 2 on a usage error.`;

const args = scriptArgs(USAGE, {
  count: { type: 'string' },
  seed: { type: 'string' },
  faults: { type: 'string' },
  'max-choices': { type: 'string' },
  jobs: { type: 'string' },
  only: { type: 'string' },
  'no-shrink': { type: 'boolean' },
  record: { type: 'boolean' },
  json: { type: 'string' },
  child: { type: 'boolean' },
});

const trialOptions: TrialOptions = { key: EMBEDDED_KEY, profile: loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')), timeoutMs: SELFCHECK_TIMEOUT_MS, cleanTimeoutMs: CLEAN_TIMEOUT_MS };

if (args.child) {
  await serveJobs<SweepJob, SweepJobResult>((job) => runSweepJob(job, trialOptions));
} else {
  await main();
}

function count(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  if (!/^[0-9]+$/.test(text.trim()) || Number(text) < min || !Number.isSafeInteger(Number(text))) {
    process.stderr.write(`--${name} must be a whole number of at least ${min}, got "${text}"\n\n${USAGE}\n`);
    process.exit(2);
  }
  return Number(text);
}

async function main(): Promise<void> {
  const seed = args.seed !== undefined ? count('seed', args.seed, 0, 0) : Math.floor(Math.random() * 2 ** 31);
  const plan = {
    seed,
    count: count('count', args.count, 20, 1),
    faultsPerCombination: count('faults', args.faults, 8, 0),
    maxChoices: count('max-choices', args['max-choices'], 40, 1),
  };
  const jobs = count('jobs', args.jobs, Math.max(1, Math.min(2, os.availableParallelism())), 1);
  const replay = `npm run selfcheck:sweep -- --seed ${seed} --count ${plan.count} --faults ${plan.faultsPerCombination} --max-choices ${plan.maxChoices}`;
  const regressions = readRegressions();
  const started = Date.now();
  const results: CombinationResult[] = [];
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
  log(`Sweep, seed ${seed}: ${plan.count} combinations of up to ${plan.maxChoices} compatible choices, ${plan.faultsPerCombination} faults behind each, ${jobs} job${jobs > 1 ? 's' : ''}.`);
  log(`Replay: ${replay}`);
  // Ctrl-C reaches the children too (one process group); the parent says where it stopped, without a stack.
  process.once('SIGINT', () => {
    log(`\nInterrupted after ${results.length} of ${plan.count} combinations. Replay: ${replay}`);
    process.exit(130);
  });

  const only = args.only !== undefined ? count('only', args.only, 0, 0) : undefined;
  if (only !== undefined && only >= plan.count) {
    process.stderr.write(`--only ${only}: the sweep draws combinations #0 to #${plan.count - 1} (raise --count)\n`);
    process.exit(2);
  }
  const planned = planSweep(plan, FAULTS).filter((c) => only === undefined || c.index === only);
  await runJobs(
    planned.map((c): SweepJob => ({ kind: 'combination', ...c })),
    jobs,
    (result) => {
      if (result.kind !== 'combination') return;
      const r = result.result;
      results.push(r);
      const missed = r.faults.filter((t) => t.caughtBy.length === 0).map((t) => t.fault);
      const clean = isFalseAlarm(r.clean) ? `FALSE ALARM (${r.clean.failures[0]?.checkId ?? r.clean.halt?.reason ?? '?'})` : 'clean ok';
      const faults = r.faults.length === 0 ? '' : missed.length === 0 ? `, ${r.faults.length} faults caught` : `, MISSED ${missed.join(', ')}`;
      const ms = r.clean.ms + r.faults.reduce((sum, t) => sum + t.ms, 0);
      log(`  #${String(r.index).padEnd(4)} ${String(r.choices.length).padStart(2)} choices  ${clean}${faults}  (${(ms / 1000).toFixed(1)} s)`);
    },
  );
  results.sort((a, b) => a.index - b.index);
  const sweptMs = Date.now() - started;

  const findings = results.flatMap((r) => findingsOf(r, regressions));
  const found = args['no-shrink'] ? [] : await shrinkFindings(findings.filter((f) => !f.explainedBy), jobs, seed, plan, log);
  report(results, findings, found, { seed, replay, sweptMs, totalMs: Date.now() - started, log });
  if (args.record && found.length > 0) {
    const same = (a: ChoiceRegression, b: ChoiceRegression): boolean => a.fault === b.fault && (a.fault !== undefined || a.finding.split(' ')[0] === b.finding.split(' ')[0]) && a.choices.join() === b.choices.join();
    const fresh = found.filter((f) => !regressions.some((r) => same(r, f)));
    for (const f of found.filter((x) => !fresh.includes(x))) log(`Already a regression set: ${regressions.find((r) => same(r, f))?.name ?? '?'} (${f.choices.join(' ')}), which fails again.`);
    writeRegressions([...regressions, ...fresh]);
    if (fresh.length > 0) log(`Recorded ${fresh.length} regression set${fresh.length > 1 ? 's' : ''} in ${path.relative(process.cwd(), REGRESSIONS_FILE)}: npm test runs them; fix each, or mark it "known" with the reason.`);
  }
  if (args.json) {
    writeFileSync(args.json, `${JSON.stringify({ seed, plan, results, findings, shrunk: found }, null, 2)}\n`);
    log(`Results: ${args.json}`);
  }
  const failing = findings.filter((f) => !f.explainedBy?.known);
  process.exitCode = failing.length > 0 ? 1 : 0;
}

async function runJobs(jobs: readonly SweepJob[], parallel: number, onResult: (result: SweepJobResult, job: SweepJob) => void): Promise<void> {
  if (parallel <= 1) {
    for (const job of jobs) onResult(await runSweepJob(job, trialOptions), job);
    return;
  }
  await runInChildren<SweepJob, SweepJobResult>('scripts/selfcheck-sweep.ts', jobs, parallel, (job, result) => onResult(result, job));
}

/**
 * Shrinks the findings in rounds: in each round, the smallest combination of every subject (a fault
 * missed, a check failing on a case) still unaccounted for; each shrunk result then accounts for the other
 * findings of its subject whose combinations hold it. Returns the shrunk findings as regression sets.
 */
async function shrinkFindings(open: Finding[], parallel: number, seed: number, plan: { count: number; faultsPerCombination: number; maxChoices: number }, log: (line: string) => void): Promise<ChoiceRegression[]> {
  const made: ChoiceRegression[] = [];
  let pending = [...open];
  if (pending.length > 0) log(`Shrinking ${pending.length} finding${pending.length > 1 ? 's' : ''} to the fewest choices that reproduce each…`);
  while (pending.length > 0) {
    const bySubject = new Map<string, Finding>();
    for (const f of [...pending].sort((a, b) => a.choices.length - b.choices.length)) if (!bySubject.has(findingSubject(f))) bySubject.set(findingSubject(f), f);
    const round = [...bySubject.values()];
    const jobs = round.map((f): SweepJob => (f.kind === 'miss' ? { kind: 'shrink-miss', choices: f.choices, fault: f.fault ?? '' } : { kind: 'shrink-false-alarm', choices: f.choices, target: f.target ?? 'halt' }));
    await runJobs(jobs, parallel, (result, job) => {
      if (result.kind !== 'shrunk') return;
      const f = round[jobs.indexOf(job)];
      if (!f) return;
      f.shrunk = result.result;
      const entry = regressionOf(f, result.result, seed, plan);
      made.push(entry);
      log(`  ${findingSubject(f)} (#${f.index}, ${f.choices.length} choices) <= ${result.result.choices.join(' ') || '(no choice: the reference server itself)'}  [${result.result.tries} runs${result.result.capped ? ', capped' : ''}]`);
    });
    pending = pending.filter((f) => !round.includes(f) && !explainingRegression(made, { ...(f.fault !== undefined ? { fault: f.fault } : {}), ...(f.target && f.target !== 'halt' ? { checkId: f.target.checkId } : {}), choices: f.choices }));
  }
  return made;
}

function regressionOf(f: Finding, shrunk: Shrunk, seed: number, plan: { count: number; faultsPerCombination: number; maxChoices: number }): ChoiceRegression {
  const subject = f.kind === 'miss' ? `miss-${f.fault ?? ''}` : `alarm-${f.target && f.target !== 'halt' ? f.target.checkId : 'halt'}`;
  const target = f.target && f.target !== 'halt' ? (shrunk.failures.find((x) => x.checkId === (f.target as { checkId: string }).checkId) ?? f.target) : undefined;
  return {
    name: `sweep-${seed}-${f.index}-${subject}`.replace(/[^A-Za-z0-9.-]+/g, '-'),
    choices: shrunk.choices,
    ...(f.fault !== undefined ? { fault: f.fault } : {}),
    finding: f.kind === 'miss' ? `${f.fault ?? ''} is caught by no check` : target ? `${target.checkId} ${target.caseId} ${target.step}: ${target.received ?? ''}` : 'the run found the target unusable',
    found: `npm run selfcheck:sweep -- --seed ${seed} --count ${plan.count} --faults ${plan.faultsPerCombination} --max-choices ${plan.maxChoices} (combination #${f.index})`,
  };
}

function report(results: readonly CombinationResult[], findings: readonly Finding[], shrunk: readonly ChoiceRegression[], info: { seed: number; replay: string; sweptMs: number; totalMs: number; log: (line: string) => void }): void {
  const { log } = info;
  const trials = results.flatMap((r) => r.faults);
  const perFault = new Map<string, { tried: number; caught: number; excluded: number }>();
  for (const t of trials) {
    const s = perFault.get(t.fault) ?? { tried: 0, caught: 0, excluded: 0 };
    s.tried += 1;
    if (t.caughtBy.length > 0) s.caught += 1;
    if (t.dropped.length > 0) s.excluded += 1;
    perFault.set(t.fault, s);
  }
  const exclusions = new Map<string, number>();
  for (const t of trials) for (const d of t.dropped) exclusions.set(`${t.fault} behind ${d.exclusion.behind.join(' + ')} (${d.exclusion.kind})`, (exclusions.get(`${t.fault} behind ${d.exclusion.behind.join(' + ')} (${d.exclusion.kind})`) ?? 0) + 1);
  const falseAlarms = findings.filter((f) => f.kind === 'false-alarm');
  const misses = findings.filter((f) => f.kind === 'miss');
  const known = findings.filter((f) => f.explainedBy?.known);
  const tried = [...perFault.values()].map((s) => s.tried);
  log('');
  if (exclusions.size > 0) {
    log('Declared exclusions applied (the fault was tried without the last choice named):');
    for (const [what, n] of [...exclusions].sort()) log(`  ${what}: ${n}`);
  }
  for (const f of findings) {
    const by = f.explainedBy ? ` [regression set ${f.explainedBy.name}${f.explainedBy.known ? `, known: ${f.explainedBy.known}` : ''}]` : '';
    log(`${f.kind === 'miss' ? 'MISS' : 'FALSE ALARM'} #${f.index}: ${findingSubject(f)}${by}`);
    if (f.shrunk) log(`  shrunk to: ${f.shrunk.choices.join(' ') || '(no choice)'}`);
  }
  if (shrunk.length > 0 && !args.record) log(`${shrunk.length} new regression set${shrunk.length > 1 ? 's' : ''} (run again with --record to keep them).`);
  log('');
  log(`Seed ${info.seed}: ${results.length} combinations, ${falseAlarms.length} false alarm${falseAlarms.length === 1 ? '' : 's'}; ${trials.length} fault trials (${perFault.size} faults, each tried ${tried.length ? Math.min(...tried) : 0} to ${tried.length ? Math.max(...tried) : 0} times), ${misses.length} missed${known.length > 0 ? `; ${known.length} of the findings known (marked in their regression set)` : ''}.`);
  const mean = (list: readonly number[]): string => (list.length === 0 ? '-' : `${(list.reduce((a, b) => a + b, 0) / list.length / 1000).toFixed(2)} s`);
  const byProof = trials.filter((t) => t.by === 'proof');
  const smoke = trials.filter((t) => t.by === 'smoke');
  const full = trials.filter((t) => t.by === 'full');
  log(`Faults caught by their proof alone: ${byProof.length}/${trials.length}, by the smoke plan: ${smoke.length}. Mean run: clean ${mean(results.map((r) => r.clean.ms))}, fault ${mean(byProof.map((t) => t.ms))} (proof), ${mean(smoke.map((t) => t.ms))} (proof, then the smoke plan), ${mean(full.map((t) => t.ms))} (then the whole suite).`);
  log(`Time: ${(info.sweptMs / 1000).toFixed(0)} s sweeping, ${(info.totalMs / 1000).toFixed(0)} s in all (${(info.sweptMs / 1000 / Math.max(results.length, 1)).toFixed(1)} s per combination, wall clock).`);
  if (findings.length > 0) log(`Replay: ${info.replay}`);
}
