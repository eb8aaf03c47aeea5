/**
 * npm run plan:power [-- --plan smoke|full] [--budget N] [--safe] [--seed S] [--table]
 *
 * What a plan buys: how many faults of the reference server's catalogue its requests catch. Each plan
 * is run in-process against the reference server with each fault (strict for http-level faults, as the
 * self-check does) and clean against every set of legitimate choices (where nothing may fail); requests
 * are the clean run's, counted on the wire.
 *
 * Without --plan or --budget it prints the table of issue 11: the smoke plan, budgets of 15, 30, 60 and
 * 100 requests and the full run, destructive and not, with the targets (a 60-request destructive budget
 * catches at least 90% of the spec faults; the non-destructive smoke plan catches every fault the full
 * non-destructive run catches).
 */
import { subscribe } from 'node:diagnostics_channel';
import { scriptArgs } from './args.ts';
import { gating } from '../lib/check/gating.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { fromRoot } from '../lib/foundation/paths.ts';
import { runSuiteInProcess } from '../lib/engine/pipeline.ts';
import type { PlanName } from '../lib/run/budget.ts';
import { CHOICE_SETS, EMBEDDED_KEY, FAULTS, profileForChoiceSet, startReferenceServer } from '../server/index.ts';
import type { ChoiceSetName } from '../server/index.ts';
import { SETS_RED_IN_SELFCHECK } from './plans.ts';

const values = scriptArgs(
  `Usage: npm run plan:power [-- --plan smoke|full] [--budget N] [--safe] [--seed S] [--table]

What a plan buys: how many faults of the reference server's catalogue its requests catch, each plan run
in-process against the reference server with each fault and clean against every set of legitimate
choices. Without --plan or --budget: the smoke plan, budgets of 15, 30, 60 and 100 requests and the full
run, destructive and not (--safe: non-destructive only for a single plan). --table lists each fault.
Exit 1 on a false alarm against a clean server or a choice set, 2 on bad usage.`,
  {
    plan: { type: 'string' },
    budget: { type: 'string' },
    safe: { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
    table: { type: 'boolean', default: false },
  },
);
const seed = Number(values.seed);
if (!Number.isSafeInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

let sent = 0;
subscribe('undici:request:create', () => {
  sent += 1;
});

interface Plan {
  label: string;
  plan: PlanName;
  budget?: number;
  destructive: boolean;
}

interface Power {
  plan: Plan;
  requests: number;
  caught: string[];
  missed: string[];
  falseAlarms: string[];
  /** Failures against a set the self-check declares red until the harness is fixed (scripts/plans.ts). */
  knownRed: string[];
  table: Array<{ fault: string; caughtBy: string[] }>;
}

async function runPlan(plan: Plan, fault: string | undefined, strict: boolean, choices?: ChoiceSetName): Promise<{ requests: number; caughtBy: string[]; failures: string[] }> {
  const p = profileForChoiceSet(profile, choices);
  const server = await startReferenceServer({ profile: p, key: EMBEDDED_KEY, faults: fault ? [fault] : [], ...(choices ? { choices } : {}) });
  const before = sent;
  try {
    const executions = await runSuiteInProcess({
      baseUrl: server.url,
      key: EMBEDDED_KEY,
      profile: p,
      destructive: plan.destructive,
      // Far above the server's answer time: a loaded machine must not turn a slow answer into a false alarm.
      timeoutMs: 10_000,
      // ISWC_RUNS as a default run has it: a budget sizes generated cases from it.
      settings: { seed, strict, runs: 100 },
      plan: plan.plan,
      ...(plan.budget !== undefined ? { budget: plan.budget } : {}),
    });
    const failing = executions.filter((e) => e.verdict === 'fail' && gating(e.level, strict));
    return { requests: sent - before, caughtBy: [...new Set(failing.map((e) => e.checkId))].sort(), failures: failing.map((e) => `${e.checkId} ${e.caseId}@${e.format}: ${e.received ?? ''}`) };
  } finally {
    await server.close();
  }
}

async function power(plan: Plan): Promise<Power> {
  const clean = await runPlan(plan, undefined, true);
  const falseAlarms = [...clean.failures];
  const knownRed: string[] = [];
  for (const set of Object.keys(CHOICE_SETS).filter((s) => s !== 'reference') as ChoiceSetName[]) {
    const failures = (await runPlan(plan, undefined, true, set)).failures.map((f) => `${set}: ${f}`);
    (SETS_RED_IN_SELFCHECK.includes(set) ? knownRed : falseAlarms).push(...failures);
  }
  const table: Power['table'] = [];
  for (const fault of FAULTS) table.push({ fault: fault.id, caughtBy: (await runPlan(plan, fault.id, fault.level === 'http')).caughtBy });
  return {
    plan,
    requests: clean.requests,
    caught: table.filter((r) => r.caughtBy.length > 0).map((r) => r.fault),
    missed: table.filter((r) => r.caughtBy.length === 0).map((r) => r.fault),
    falseAlarms,
    knownRed,
    table,
  };
}

const SPEC_FAULTS = FAULTS.filter((f) => f.level === 'spec').map((f) => f.id);
const pct = (n: number, of: number): string => `${n}/${of} (${of === 0 ? 0 : Math.round((n / of) * 100)}%)`;

function line(r: Power): string {
  const spec = r.caught.filter((f) => SPEC_FAULTS.includes(f)).length;
  return `${r.plan.label.padEnd(12)} ${(r.plan.destructive ? 'destructive' : 'non-destructive').padEnd(16)} ${String(r.requests).padStart(6)}   ${pct(r.caught.length, FAULTS.length).padEnd(13)} ${pct(spec, SPEC_FAULTS.length).padEnd(13)} ${(r.caught.length / Math.max(1, r.requests)).toFixed(3)}`;
}

function printDetails(r: Power): void {
  if (values.table) for (const row of r.table) console.log(`  ${row.caughtBy.length > 0 ? 'caught' : 'MISSED'}  ${row.fault.padEnd(28)} ${row.caughtBy.join(', ') || '-'}`);
  if (r.missed.length > 0) console.log(`  missed: ${r.missed.join(', ')}`);
  if (r.knownRed.length > 0) console.log(`  (${r.knownRed.length} failure(s) against ${SETS_RED_IN_SELFCHECK.join(', ')}, red in the self-check until the harness is fixed)`);
  if (r.falseAlarms.length > 0) console.log(`  ✗ FALSE ALARMS against the clean server or a legitimate choice set:\n${r.falseAlarms.slice(0, 10).map((f) => `    ${f}`).join('\n')}`);
}

const header = `${'plan'.padEnd(12)} ${'mode'.padEnd(16)} ${'requests'.padStart(6)}   ${'faults'.padEnd(13)} ${'spec faults'.padEnd(13)} faults/request`;

if (values.plan !== undefined || values.budget !== undefined) {
  const plan = (values.plan ?? 'full') as PlanName;
  if (plan !== 'full' && plan !== 'smoke') throw new Error(`--plan must be full or smoke, got ${String(values.plan)}`);
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  const label = `${plan === 'smoke' ? 'smoke' : 'full'}${budget !== undefined ? ` ≤${budget}` : ''}`;
  const r = await power({ label, plan, destructive: !values.safe, ...(budget !== undefined ? { budget } : {}) });
  console.log(`seed ${seed}; ${FAULTS.length} faults (${SPEC_FAULTS.length} spec); requests of the clean run`);
  console.log(header);
  console.log(line(r));
  printDetails(r);
  process.exitCode = r.falseAlarms.length > 0 ? 1 : 0;
} else {
  console.log(`seed ${seed}; ${FAULTS.length} faults (${SPEC_FAULTS.length} spec); requests of the clean run; every plan also run against each set of legitimate choices`);
  console.log(header);
  const results: Power[] = [];
  for (const destructive of [true, false]) {
    for (const plan of [
      { label: 'smoke', plan: 'smoke' as const },
      ...[15, 30, 60, 100].map((budget) => ({ label: `budget ${budget}`, plan: 'full' as const, budget })),
      { label: 'full', plan: 'full' as const },
    ]) {
      const r = await power({ ...plan, destructive });
      results.push(r);
      console.log(line(r));
      printDetails(r);
    }
  }
  const find = (label: string, destructive: boolean) => results.find((r) => r.plan.label === label && r.plan.destructive === destructive);
  const b60 = find('budget 60', true);
  const spec60 = b60 ? b60.caught.filter((f) => SPEC_FAULTS.includes(f)).length / SPEC_FAULTS.length : 0;
  console.log('\ntargets (issue 11)');
  console.log(`  a 60-request destructive budget catches ≥ 90% of the spec faults: ${spec60 >= 0.9 ? 'met' : 'NOT met'} (${Math.round(spec60 * 100)}%)`);
  const smokeSafe = find('smoke', false);
  const fullSafe = find('full', false);
  const notInSmoke = (fullSafe?.caught ?? []).filter((f) => !(smokeSafe?.caught ?? []).includes(f));
  console.log(
    `  the non-destructive smoke plan catches every fault the full non-destructive run catches: ${notInSmoke.length === 0 ? 'met' : 'NOT met'} (${smokeSafe?.caught.length ?? 0} of ${fullSafe?.caught.length ?? 0} in ${smokeSafe?.requests ?? 0} requests${notInSmoke.length > 0 ? `; missing ${notInSmoke.join(', ')}` : ''})`,
  );
  const full = find('full', true);
  console.log(`  the full run catches every fault: ${full && full.missed.length === 0 ? 'met' : 'NOT met'}`);
  process.exitCode = results.some((r) => r.falseAlarms.length > 0) ? 1 : 0;
}
