/**
 * npm run generate:plans [-- --jobs 2] (and `npm run generate`, when the plans are stale): measures what
 * every case catches and writes the ranked plans, lib/run/plans.generated.ts.
 *
 * Each case in each format is run against the reference server with each fault of its catalogue, at
 * every seed of PLAN_SEEDS (a fault counts as caught by a case when the case catches it at every seed; a
 * generated case records the most runs it needed), and clean against every set of legitimate choices,
 * where nothing may fail: a case that fails there stops the generation. The ranking itself is
 * lib/run/plan-rank.ts. tests/unit/plans.spec.ts fails when the committed data no longer matches the
 * cases, the catalogue or the choice sets (the fingerprint), or the ranking its measurements give.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { scriptArgs } from './args.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { fromRoot, repoRoot } from '../lib/foundation/paths.ts';
import { planSuite } from '../lib/run/plan.ts';
import type { PlannedCase } from '../lib/run/planned.ts';
import { closure } from '../lib/run/parts.ts';
import { gatingCatches, planFingerprint, rankPlan } from '../lib/run/plan-rank.ts';
import type { Catches, PartCatches, PlanData, PlanMode, RankedPlan } from '../lib/run/plan-rank.ts';
import { CHOICE_SETS, FAULTS } from '../server/index.ts';
import { lenientFault } from '../server/lenient.ts';
import type { ChoiceSetName } from '../server/index.ts';
import type { FalseAlarm } from './plans/false-alarms.ts';
import { choicesBehind, falseAlarmMessage } from './plans/false-alarms.ts';
import { attributedPart, attributionToVerify, MEASURED_RUNS, measure, measuredPlan } from './plans/measure.ts';
import type { CaseResult, Target } from './plans/measure.ts';
import type { Delta, MeasuredWith } from './plans/incremental.ts';
import { measurementDelta, measurementFingerprint, mergeCatches, mergeFalseAlarms } from './plans/incremental.ts';

export const PLAN_FILE = 'lib/run/plans.generated.ts';
/** Seeds every case is measured at: a fault counts as caught by a case only when it is caught at all of them. */
export const PLAN_SEEDS: readonly number[] = [1];
/**
 * Choice sets the self-check declares red until the harness is fixed (server/choices.ts: `review2`
 * collects legitimate behaviours of the second review the harness still fails). Their false alarms are
 * printed and recorded in the data, not refused; every other set must stay green under every case, at
 * every seed, or the generation stops. Take a set out of this list once tests/selfcheck/choices.spec.ts
 * passes against it.
 */
export const SETS_RED_IN_SELFCHECK: readonly string[] = [];
const TARGET_FILE = fromRoot('fixtures', 'targets', 'embedded.json');
/** False alarms whose choices are searched before the generation stops (each search runs its case a few times). */
const FALSE_ALARMS_SEARCHED = 5;

export interface PlanInputs {
  /** Every case in every format, destructive (what the measurement runs). */
  planned: PlannedCase[];
  /** The cases each mode can run on the embedded profile. */
  runnable: { destructive: PlannedCase[]; safe: PlannedCase[] };
  faults: Record<string, 'spec' | 'http'>;
  choiceSets: string[];
  fingerprint: string;
}

export async function planInputs(): Promise<PlanInputs> {
  const profile = loadProfile(TARGET_FILE);
  const planned = await measuredPlan(profile);
  const destructive = (await planSuite(profile, { destructive: true })).filter((p) => !p.skipReason);
  const safe = (await planSuite(profile, { destructive: false })).filter((p) => !p.skipReason);
  const faults = Object.fromEntries(FAULTS.map((f) => [f.id, f.level])) as Record<string, 'spec' | 'http'>;
  const choiceSets = Object.keys(CHOICE_SETS);
  return { planned, runnable: { destructive, safe }, faults, choiceSets, fingerprint: planFingerprint(planned, faults, choiceSets, PLAN_SEEDS, MEASURED_RUNS) };
}

export type ModeCatches = Record<PlanMode, Record<string, Catches>>;
export type ModePartCatches = Record<PlanMode, Record<string, PartCatches>>;

export interface Measured {
  catches: ModeCatches;
  /** Of cases with parts: which part caught each fault ('' for the core). */
  partCatches: ModePartCatches;
  /** Choice set → case keys that failed against it (sets of SETS_RED_IN_SELFCHECK only; any other set stops the generation). */
  falseAlarms: Record<string, string[]>;
}

/** The plans as data, from the measured catches. */
export function buildPlanData(
  inputs: PlanInputs,
  catches: Readonly<Record<PlanMode, Readonly<Record<string, Catches>>>>,
  falseAlarms: Readonly<Record<string, readonly string[]>> = {},
  partCatches: Readonly<Record<PlanMode, Readonly<Record<string, PartCatches>>>> = { destructive: {}, safe: {} },
  measuredWith?: MeasuredWith,
): PlanData {
  const sorted = <T>(c: Readonly<Record<string, Readonly<Record<string, T>>>>) => Object.fromEntries(Object.keys(c).sort().map((k) => [k, Object.fromEntries(Object.entries(c[k] ?? {}).sort())]));
  const destructive = sorted(catches.destructive);
  const safe = sorted(catches.safe);
  const parts = { destructive: sorted(partCatches.destructive), safe: sorted(partCatches.safe) };
  const withParts = Object.keys(parts.destructive).length + Object.keys(parts.safe).length > 0;
  return {
    fingerprint: inputs.fingerprint,
    seeds: PLAN_SEEDS,
    runs: MEASURED_RUNS,
    faults: inputs.faults,
    choiceSets: inputs.choiceSets,
    falseAlarms: Object.fromEntries(Object.keys(falseAlarms).sort().map((set) => [set, [...new Set(falseAlarms[set])].sort()])),
    catches: { destructive, safe },
    ...(withParts ? { partCatches: parts } : {}),
    ...(measuredWith ? { measuredWith: { harness: measuredWith.harness, cases: Object.fromEntries(Object.entries(measuredWith.cases).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) } } : {}),
    destructive: ranked(inputs.runnable.destructive, destructive, parts.destructive),
    safe: ranked(inputs.runnable.safe, safe, parts.safe),
  };
  /** A mode's ranking for a strict run, and for a run without --strict (only the faults it fails on count). */
  function ranked(runnable: readonly PlannedCase[], caught: Readonly<Record<string, Catches>>, attributed: Readonly<Record<string, PartCatches>>): RankedPlan {
    const strict = rankPlan(runnable, caught, MEASURED_RUNS, attributed);
    return { ...strict, nonStrict: rankPlan(runnable, gatingCatches(caught, inputs.faults), MEASURED_RUNS, gatingCatches(attributed, inputs.faults)).entries };
  }
}

/** The data as TypeScript, one line per case and per ranked entry (readable diffs). */
export function renderPlanData(data: PlanData): string {
  const j = (v: unknown) => JSON.stringify(v);
  const catches = (c: Readonly<Record<string, unknown>>) => Object.entries(c).map(([k, v]) => `      ${j(k)}: ${j(v)},`);
  const leftOut = (mode: PlanMode) => (data[mode].smokeLeftOut ? [`    smokeLeftOut: ${j(data[mode].smokeLeftOut)},`] : []);
  const ranked = (mode: PlanMode) => [`  ${mode}: {`, '    smoke: [', ...data[mode].smoke.map((e) => `      ${j(e)},`), '    ],', ...leftOut(mode), '    entries: [', ...data[mode].entries.map((e) => `      ${j(e)},`), '    ],', ...nonStrict(mode), '  },'];
  const nonStrict = (mode: PlanMode) => {
    const entries = data[mode].nonStrict;
    return entries ? ['    nonStrict: [', ...entries.map((e) => `      ${j(e)},`), '    ],'] : [];
  };
  return [
    '// Generated by `npm run generate` (scripts/plans.ts) from a measurement against the reference server; do not edit by hand.',
    "import type { PlanData } from './plan-rank.ts';",
    '',
    '/** What each case catches of the fault catalogue, and the plans ranked from it (lib/run/plan-rank.ts). */',
    'export const PLAN_DATA: PlanData = {',
    `  fingerprint: ${j(data.fingerprint)},`,
    `  seeds: ${j(data.seeds)},`,
    `  runs: ${data.runs},`,
    `  faults: ${j(data.faults)},`,
    `  choiceSets: ${j(data.choiceSets)},`,
    '  falseAlarms: {',
    ...Object.entries(data.falseAlarms).map(([set, keys]) => `    ${j(set)}: ${j(keys)},`),
    '  },',
    '  catches: {',
    '    destructive: {',
    ...catches(data.catches.destructive),
    '    },',
    '    safe: {',
    ...catches(data.catches.safe),
    '    },',
    '  },',
    ...(data.partCatches
      ? ['  partCatches: {', '    destructive: {', ...catches(data.partCatches.destructive), '    },', '    safe: {', ...catches(data.partCatches.safe), '    },', '  },']
      : []),
    ...(data.measuredWith ? ['  measuredWith: {', `    harness: ${j(data.measuredWith.harness)},`, '    cases: {', ...catches(data.measuredWith.cases), '    },', '  },'] : []),
    ...ranked('destructive'),
    ...ranked('safe'),
    '};',
    '',
  ].join('\n');
}

/** The committed data's fingerprint, or undefined when there is no readable file. */
export function committedFingerprint(): string | undefined {
  try {
    return /fingerprint: "([0-9a-f]+)"/.exec(readFileSync(fromRoot(PLAN_FILE), 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/**
 * A measurement: one target, one seed, every case or `only` these (a measurement of what changed); with
 * `selections`, those cases run those of their parts only (a catch verified, attributionToVerify).
 */
type Job = { target: Target; seed: number; label: string; only?: string[]; selections?: Record<string, string[]> };

/** Every case against every fault and choice set; with a delta, only the changed cases, and the new faults against every case. */
export function jobsOf(inputs: Pick<PlanInputs, 'faults' | 'choiceSets'>, delta?: Delta): Job[] {
  const jobs: Job[] = [];
  const changed = delta ? { only: delta.cases } : {};
  const anyChanged = !delta || delta.cases.length > 0;
  for (const destructive of [true, false]) {
    for (const seed of PLAN_SEEDS) {
      if (anyChanged) for (const set of inputs.choiceSets) jobs.push({ target: { destructive, strict: true, choices: set as ChoiceSetName }, seed, label: `choices ${set}`, ...changed });
      for (const [fault, level] of Object.entries(inputs.faults)) {
        const whole = !delta || delta.faults.includes(fault);
        if (!whole && !anyChanged) continue;
        // A lenient family fault of one operation: only the cases that judge it can show it (measured faster).
        const family = lenientFault(fault);
        const operation = family?.family === 'field' ? family.constraint.operation : family?.family === 'list' ? family.operation : undefined;
        jobs.push({ target: { destructive, fault, strict: level === 'http', ...(operation ? { operation } : {}) }, seed, label: `fault ${fault}`, ...(whole ? {} : changed) });
      }
    }
  }
  return jobs;
}

/** Runs jobs in this process; one line of JSON per job on stdout when `emit` (a child of --jobs). */
async function runJobs(jobs: readonly Job[], emit: (job: Job, result: Map<string, CaseResult>) => void): Promise<void> {
  const profile = loadProfile(TARGET_FILE);
  for (const job of jobs) {
    const only = job.only ? new Set(job.only) : undefined;
    emit(job, await measure(profile, job.target, job.seed, { ...(only ? { only: (key) => only.has(key) } : {}), ...(job.selections ? { selections: job.selections } : {}) }));
  }
}

/** Runs the jobs over `parallel` child processes (the reference server and the harness share one core in each). */
async function runJobsInChildren(jobs: readonly Job[], parallel: number, onResult: (job: Job, result: Map<string, CaseResult>) => void): Promise<void> {
  const slices = Array.from({ length: parallel }, (_v, i) => jobs.filter((_j, k) => k % parallel === i));
  await Promise.all(
    slices.map(
      (slice) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/plans.ts', '--child'], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
          let buffer = '';
          child.stdout.on('data', (chunk: Buffer) => {
            buffer += chunk.toString('utf8');
            let nl: number;
            while ((nl = buffer.indexOf('\n')) >= 0) {
              const line = buffer.slice(0, nl);
              buffer = buffer.slice(nl + 1);
              if (!line.startsWith('{')) continue;
              const { index, result } = JSON.parse(line) as { index: number; result: Array<[string, CaseResult]> };
              const job = slice[index];
              if (job) onResult(job, new Map(result));
            }
          });
          child.on('error', reject);
          child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`a measuring child exited with ${code}`))));
          child.stdin.end(JSON.stringify(slice));
        }),
    ),
  );
}

/** The mode and fault a job measures, as the measurement keys what it found. */
function slotOf(job: Job): string {
  return `${job.target.destructive ? 'destructive' : 'safe'}\u0001${job.target.fault ?? ''}`;
}

/** A catch to verify: in a mode, against a fault, a case run with one part alone ('' its core alone), as that selection of its parts. */
interface ToVerify {
  slot: string;
  key: string;
  part: string;
  selection: string[];
}

/**
 * Runs that verify catches (attributionToVerify): per mode, fault and seed, rounds in which each case runs one
 * of the selections it has to verify (the part with what it comes after, or its core alone).
 */
function verifyJobs(pending: readonly ToVerify[], faults: PlanInputs['faults']): Job[] {
  const bySlot = new Map<string, Map<string, string[][]>>();
  for (const { slot, key, selection } of pending) {
    const perKey = bySlot.get(slot) ?? new Map<string, string[][]>();
    bySlot.set(slot, perKey);
    perKey.set(key, [...(perKey.get(key) ?? []), selection]);
  }
  const jobs: Job[] = [];
  for (const [slot, perKey] of bySlot) {
    const [mode, fault] = slot.split('\u0001') as [PlanMode, string];
    const rounds = Math.max(...[...perKey.values()].map((sels) => sels.length));
    for (let round = 0; round < rounds; round += 1) {
      const selections: Record<string, string[]> = {};
      for (const [key, sels] of perKey) {
        const selection = sels[round];
        if (selection !== undefined) selections[key] = selection;
      }
      for (const seed of PLAN_SEEDS) jobs.push({ target: { destructive: mode === 'destructive', fault, strict: faults[fault] === 'http' }, seed, label: `verify, fault ${fault}`, only: Object.keys(selections), selections });
    }
  }
  return jobs;
}

/** Measures every case against every fault and choice set; throws when a case fails against a legitimate choice set. */
export async function measureCatches(inputs: PlanInputs, options: { jobs: number; log: (line: string) => void; delta?: Delta }): Promise<Measured> {
  const jobs = jobsOf(inputs, options.delta);
  const byKey = new Map(inputs.planned.map((p) => [p.key, p]));
  /** mode and fault → key → runs needed at each seed where it was caught. */
  const found = new Map<string, Map<string, number[]>>();
  /** mode and fault → key → the parts whose steps caught it, over the seeds. */
  const foundParts = new Map<string, Map<string, Set<string>>>();
  const falseAlarms: FalseAlarm[] = [];
  const knownRed: Record<string, string[]> = {};
  let done = 0;
  const started = performance.now();
  const onResult = (job: Job, result: Map<string, CaseResult>): void => {
    done += 1;
    if (done % 25 === 0 || done === jobs.length) options.log(`  ${done}/${jobs.length} runs measured (${Math.round((performance.now() - started) / 1000)} s)`);
    if (job.target.choices) {
      // The jobs name sets; a false alarm's search names choices (scripts/plans/false-alarms.ts).
      const set = job.target.choices as ChoiceSetName;
      for (const [key, r] of result) {
        if (!r.caught) continue;
        if (SETS_RED_IN_SELFCHECK.includes(set)) (knownRed[set] ??= []).push(key);
        else falseAlarms.push({ set, destructive: job.target.destructive, seed: job.seed, key, failures: r.failures });
      }
      return;
    }
    const slot = slotOf(job);
    const perKey = found.get(slot) ?? new Map<string, number[]>();
    found.set(slot, perKey);
    for (const [key, r] of result) {
      if (!r.caught) continue;
      const p = byKey.get(key);
      if (!p) continue;
      // A generated case stops at its first failing input: the requests it sent say how many runs it needed.
      const needed = p.shape.generated ? Math.max(1, Math.ceil((r.requests - p.shape.fixedRequests) / Math.max(p.shape.requestsPerRun, 1e-9))) : 1;
      perKey.set(key, [...(perKey.get(key) ?? []), Math.min(needed, MEASURED_RUNS)]);
      if (r.parts) {
        const partsOf = foundParts.get(slot) ?? new Map<string, Set<string>>();
        foundParts.set(slot, partsOf);
        partsOf.set(key, new Set([...(partsOf.get(key) ?? []), ...r.parts]));
      }
    }
  };
  if (options.jobs > 1) await runJobsInChildren(jobs, options.jobs, onResult);
  else await runJobs(jobs, onResult);
  if (falseAlarms.length > 0) {
    // Named by the choices behind them, the fewest of the set that still make the case fail (the first ones: each search runs the case again).
    options.log(`  ${falseAlarms.length} case(s) fail against legitimate choices: finding the choice behind each`);
    const profile = loadProfile(TARGET_FILE);
    const found = [];
    for (const alarm of falseAlarms.slice(0, FALSE_ALARMS_SEARCHED)) found.push({ alarm, choices: await choicesBehind(alarm, profile) });
    const more = falseAlarms.length - found.length;
    throw new Error(`${falseAlarmMessage(found)}${more > 0 ? `\n(${more} more false alarm(s) not searched: fix these first)` : ''}`);
  }
  const catches: ModeCatches = { destructive: {}, safe: {} };
  const partCatches: ModePartCatches = { destructive: {}, safe: {} };
  // A catch of a case with parts: the first part to fail is credited; each other part that failed, and the core
  // when only its steps after the parts failed, are run alone against the fault, and credited when they catch
  // it so at every seed (attributionToVerify).
  const sure = new Map<string, { slot: string; key: string; parts: string[] }>();
  const pending: ToVerify[] = [];
  for (const [slot, perKey] of found) {
    const [mode, fault] = slot.split('\u0001') as [PlanMode, string];
    for (const [key, runs] of perKey) {
      if (runs.length < PLAN_SEEDS.length) continue; // caught at some seeds only: not counted on
      catches[mode][key] = { ...catches[mode][key], [fault]: Math.max(...runs) };
      const parts = foundParts.get(slot)?.get(key);
      if (!parts) continue;
      const { sure: first, verify } = attributionToVerify([...parts]);
      sure.set(`${slot}\u0001${key}`, { slot, key, parts: first === undefined ? [] : [first] });
      const shape = byKey.get(key)?.shape;
      for (const part of verify) pending.push({ slot, key, part, selection: !shape || part === '' ? [] : closure(shape, [part]) });
    }
  }
  const jobsToVerify = verifyJobs(pending, inputs.faults);
  if (jobsToVerify.length > 0) {
    options.log(`  verifying ${pending.length} catch(es) of parts that may rest on other parts: ${jobsToVerify.length} runs`);
    const caughtAlone = new Map<string, number>();
    const onVerified = (job: Job, result: Map<string, CaseResult>): void => {
      for (const [key, r] of result) {
        if (!r.caught) continue;
        const selection = job.selections?.[key] ?? [];
        const at = `${slotOf(job)}\u0001${key}\u0001${selection.join(',')}`;
        caughtAlone.set(at, (caughtAlone.get(at) ?? 0) + 1);
      }
    };
    if (options.jobs > 1) await runJobsInChildren(jobsToVerify, options.jobs, onVerified);
    else await runJobs(jobsToVerify, onVerified);
    for (const { slot, key, part, selection } of pending) {
      if ((caughtAlone.get(`${slot}\u0001${key}\u0001${selection.join(',')}`) ?? 0) >= PLAN_SEEDS.length) sure.get(`${slot}\u0001${key}`)?.parts.push(part);
    }
  }
  for (const { slot, key, parts } of sure.values()) {
    const [mode, fault] = slot.split('\u0001') as [PlanMode, string];
    const part = attributedPart(byKey.get(key)?.shape.parts ?? [], new Set(parts));
    if (part !== undefined) partCatches[mode][key] = { ...partCatches[mode][key], [fault]: part };
  }
  for (const [set, keys] of Object.entries(knownRed)) options.log(`  ${set} is red in the self-check (SETS_RED_IN_SELFCHECK): ${new Set(keys).size} case(s) fail against it, recorded in the data`);
  return { catches, partCatches, falseAlarms: knownRed };
}

/** The committed plan data, or undefined when there is none that loads. */
async function committedData(): Promise<PlanData | undefined> {
  try {
    return (await import('../lib/run/plans.generated.ts')).PLAN_DATA;
  } catch {
    return undefined;
  }
}

/**
 * Measures and writes the plans; returns the file's path. Only what changed since the committed measurement
 * (scripts/plans/incremental.ts), unless `full` or the harness itself changed.
 */
export async function generatePlans(options: { jobs?: number; log?: (line: string) => void; full?: boolean } = {}): Promise<string> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const started = performance.now();
  const inputs = await planInputs();
  const measuredWith: MeasuredWith = { harness: measurementFingerprint(), cases: Object.fromEntries(inputs.planned.map((p) => [p.key, p.shape.digest ?? ''])) };
  const committed = options.full ? undefined : await committedData();
  const delta = options.full ? { full: 'asked for (--full)' } : measurementDelta(committed, { measuredWith, seeds: PLAN_SEEDS, runs: MEASURED_RUNS, faults: inputs.faults, choiceSets: inputs.choiceSets });
  const jobs = options.jobs ?? Math.min(2, os.availableParallelism());
  const processes = `${jobs} process${jobs === 1 ? '' : 'es'}`;
  let data: PlanData;
  if ('full' in delta || !committed) {
    log(`measuring everything (${'full' in delta ? delta.full : 'no committed data'}): ${inputs.planned.length} cases against ${Object.keys(inputs.faults).length} faults and ${inputs.choiceSets.length} choice sets at ${PLAN_SEEDS.length} seeds, destructive and not (${processes})`);
    const { catches, partCatches, falseAlarms } = await measureCatches(inputs, { jobs, log });
    data = buildPlanData(inputs, catches, falseAlarms, partCatches, measuredWith);
  } else {
    log(`measuring what changed since the committed measurement: ${delta.cases.length} case(s) against every fault and choice set, ${delta.faults.length} new or changed fault(s) against every case (${processes}; --full measures everything)`);
    for (const key of delta.cases.slice(0, 20)) log(`  case ${key}`);
    if (delta.cases.length > 20) log(`  … and ${delta.cases.length - 20} more`);
    for (const fault of delta.faults) log(`  fault ${fault}`);
    const measured = delta.cases.length + delta.faults.length > 0 ? await measureCatches(inputs, { jobs, log, delta }) : { catches: { destructive: {}, safe: {} }, partCatches: { destructive: {}, safe: {} }, falseAlarms: {} };
    const keys = new Set(inputs.planned.map((p) => p.key));
    const faults = new Set(Object.keys(inputs.faults));
    const catches = mergeCatches(committed.catches, measured.catches, delta, keys, faults);
    const partCatches = mergeCatches(committed.partCatches ?? { destructive: {}, safe: {} }, measured.partCatches, delta, keys, faults);
    data = buildPlanData(inputs, catches, mergeFalseAlarms(committed.falseAlarms, measured.falseAlarms, delta, keys), partCatches, measuredWith);
  }
  writeFileSync(fromRoot(PLAN_FILE), renderPlanData(data));
  log(`measured in ${Math.round((performance.now() - started) / 1000)} s`);
  return PLAN_FILE;
}

/**
 * For `npm run generate`: measures only when the committed plans are stale; when only the ranking changed
 * (lib/run/plan-rank.ts), ranks the committed measurement again, in a second.
 */
export async function ensurePlans(log: (line: string) => void): Promise<void> {
  const inputs = await planInputs();
  if (committedFingerprint() === inputs.fingerprint) {
    const { PLAN_DATA } = await import('../lib/run/plans.generated.ts');
    const ranked = renderPlanData(buildPlanData(inputs, PLAN_DATA.catches, PLAN_DATA.falseAlarms, PLAN_DATA.partCatches, PLAN_DATA.measuredWith));
    if (ranked !== readFileSync(fromRoot(PLAN_FILE), 'utf8')) {
      writeFileSync(fromRoot(PLAN_FILE), ranked);
      log(`wrote ${PLAN_FILE} (ranked again from the committed measurement)`);
    }
    return;
  }
  log(`${PLAN_FILE} is stale (the cases, the fault catalogue or the choice sets changed): measuring again what changed`);
  log(`wrote ${await generatePlans({ log })}`);
}

if (process.argv[1]?.endsWith('plans.ts')) {
  const values = scriptArgs(
    `Usage: npm run generate:plans [-- --jobs N] [--full]

Measures what each case catches of the fault catalogue (against the reference server with each fault,
destructive and not, at the seeds of PLAN_SEEDS), runs every case against every choice set (where nothing
may fail) and rewrites lib/run/plans.generated.ts with the ranking. Only the cases whose requests changed
(their dry-run digest) and the new faults are measured again, when the harness, the reference server and
the fixtures are those the committed data was measured with; else, or with --full, everything (minutes
of CPU). --jobs: parallel measurements (1 to 8, default 2).`,
    { jobs: { type: 'string' }, full: { type: 'boolean', default: false }, child: { type: 'boolean', default: false } },
  );
  if (values.child) {
    const jobs = JSON.parse(readFileSync(0, 'utf8')) as Job[];
    let index = 0;
    await runJobs(jobs, (_job, result) => {
      process.stdout.write(`${JSON.stringify({ index, result: [...result] })}\n`);
      index += 1;
    });
  } else {
    const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
    if (jobs !== undefined && (!Number.isInteger(jobs) || jobs < 1 || jobs > 8)) {
      process.stderr.write('--jobs must be an integer from 1 to 8\n');
      process.exit(2);
    }
    console.log(`wrote ${await generatePlans({ ...(jobs === undefined ? {} : { jobs }), full: values.full === true })}`);
  }
}
