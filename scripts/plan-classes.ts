/**
 * npm run plan:classes [-- --before <git revision>] [--budgets 15,30,60,100,250] [--gates 8] [--strict]
 *
 * What a budget catches by class of fault (issue 37, lib/run/fault-classes.ts), on the committed
 * measurement (lib/run/plans.generated.ts): pure arithmetic, no request is sent, no server started. Gates
 * are walked as a run without --strict walks them, and score the faults such a run fails on (level spec);
 * `--strict` walks and scores them as a strict run.
 *   - class-weighted: each class of fault counts once, its members share its weight (a lenient family of
 *     40 members weighs what the key left unchecked on the merge weighs);
 *   - the share of key, acceptance (a valid body of each format accepted, success) and outcome faults caught;
 *   - the cumulative curve of k rotated gates (ISWC_SLICE 0 … k-1) of one budget: faults and classes tried.
 * `--before REV` reads the measurement and ranking of that revision too (`git show REV:lib/run/plans.generated.ts`)
 * and walks it with today's budget walk, slice 0: the figures of a single gate before this ranking.
 * `--out DIR` also writes the curves: DIR/classes-one-gate.svg (one gate: class-weighted, members and key faults
 * caught against the budget) and DIR/classes-rotation.svg (rotated gates: the same, cumulative, against requests).
 */
import { caughtByPlanned } from '../lib/run/plan-catches.ts';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scriptArgs } from './args.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { fromRoot, repoRoot } from '../lib/foundation/paths.ts';
import { applyChoice, planSuite } from '../lib/run/plan.ts';
import type { PlannedCase } from '../lib/run/plan.ts';
import { choose } from '../lib/run/budget.ts';
import { entryRequests } from '../lib/run/plan-rank.ts';
import type { PlanData, PlanMode } from '../lib/run/plan-rank.ts';
import { PLAN_DATA } from '../lib/run/plans.generated.ts';
import { faultClass } from '../lib/run/fault-classes.ts';
import { curvesSvg } from './plans/plot.ts';
import type { Panel } from './plans/plot.ts';

const values = scriptArgs(
  `Usage: npm run plan:classes [-- --before REV] [--budgets 15,30,60,100,250] [--gates 8] [--gate-budget 60] [--strict] [--out DIR]

Faults caught by class at each budget, destructive and not, on the committed measurement: class-weighted
(each class once, its members sharing its weight), the share of key, acceptance and outcome faults, and
the cumulative curve of rotated gates (--gates of --gate-budget). Gates as a run without --strict walks
them, counting the faults it can fail on (level spec); --strict: as a strict run, every fault. --before REV: the same of that
revision's committed ranking, walked as one gate. --out DIR writes DIR/classes-one-gate.svg (one gate against the
budget) and DIR/classes-rotation.svg (rotated gates against requests). Sends nothing.`,
  { before: { type: 'string' }, strict: { type: 'boolean', default: false }, budgets: { type: 'string', default: '15,30,60,100,250' }, gates: { type: 'string', default: '8' }, 'gate-budget': { type: 'string', default: '60' }, out: { type: 'string' } },
);

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const budgets = values.budgets.split(',').map(Number);
const gates = Number(values.gates);
const gateBudget = Number(values['gate-budget']);
const strict = values.strict;
/** What a gate can fail on: every fault when strict, else those of level spec (an http check fails a strict run only). */
const counts = (f: string): boolean => strict || PLAN_DATA.faults[f] !== 'http';

/** The roles the issue names: the key; a valid body accepted and each operation's success; the outcome. */
const ROLE_OF = (cls: string): 'key' | 'acceptance' | 'outcome' | undefined =>
  cls.startsWith('key/') ? 'key' : cls.startsWith('acceptance/') || cls.startsWith('success/') ? 'acceptance' : cls.startsWith('outcome/') || cls.startsWith('lookup/') ? 'outcome' : undefined;

async function beforeData(rev: string): Promise<PlanData> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iswc-classes-'));
  const file = path.join(dir, 'plans.generated.ts');
  writeFileSync(file, execFileSync('git', ['show', `${rev}:lib/run/plans.generated.ts`], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).replace("from './plan-rank.ts'", `from '${fromRoot('lib', 'run', 'plan-rank.ts')}'`));
  return ((await import(file)) as { PLAN_DATA: PlanData }).PLAN_DATA;
}

const caught = caughtByPlanned;

/** Shares caught, in percent, for the curves: members, class-weighted, key faults. */
interface Shares {
  faults: number;
  classes: number;
  key: number;
}

/** Of the faults a mode can catch: caught, class-weighted and per role. */
function score(got: ReadonlySet<string>, mode: PlanMode): { faults: string; classes: string; roles: string; shares: Shares } {
  const catchable = [...new Set(Object.values(PLAN_DATA.catches[mode]).flatMap((c) => Object.keys(c)))].filter(counts);
  const classes = new Map<string, string[]>();
  for (const f of catchable) classes.set(faultClass(f), [...(classes.get(faultClass(f)) ?? []), f]);
  let weighted = 0;
  for (const members of classes.values()) weighted += members.filter((f) => got.has(f)).length / members.length;
  const roles = (['key', 'acceptance', 'outcome'] as const).map((role) => {
    const of = catchable.filter((f) => ROLE_OF(faultClass(f)) === role);
    return `${role} ${of.filter((f) => got.has(f)).length}/${of.length}`;
  });
  const share = (n: number, d: number): number => (100 * n) / Math.max(1, d);
  const pct = (n: number, d: number) => `${share(n, d).toFixed(1)}%`;
  const keys = catchable.filter((f) => ROLE_OF(faultClass(f)) === 'key');
  const caught = catchable.filter((f) => got.has(f)).length;
  return {
    faults: `${caught}/${catchable.length} (${pct(caught, catchable.length)})`,
    classes: `${weighted.toFixed(1)}/${classes.size} (${pct(weighted, classes.size)})`,
    roles: roles.join(', '),
    shares: { faults: share(caught, catchable.length), classes: share(weighted, classes.size), key: share(keys.filter((f) => got.has(f)).length, keys.length) },
  };
}

async function gate(mode: PlanMode, budget: number, slice: number, data?: PlanData): Promise<{ planned: PlannedCase[]; requests: number }> {
  const planned = await planSuite(profile, { destructive: mode === 'destructive', runs: 100 });
  applyChoice(planned, choose(planned, { plan: 'full', budget, runs: 100, destructive: mode === 'destructive', strict, slice, ...(data ? { data } : {}) }), 'not in the budget');
  return { planned, requests: planned.filter((p) => p.skipReason === undefined).reduce((n, p) => n + entryRequests(p, p.runs, p.parts), 0) };
}

/**
 * Parts an older ranking names that today's cases no longer have (a part renamed or removed since): the
 * budget walk leaves them out of its entries (lib/run/budget.ts), and this says which, so that the "before"
 * figures are read knowing it.
 */
async function sayGoneParts(data: PlanData): Promise<void> {
  const partsOf = new Map<string, Set<string>>();
  for (const destructive of [true, false]) for (const p of await planSuite(profile, { destructive, runs: 100 })) partsOf.set(p.key, new Set((p.shape.parts ?? []).map((part) => part.id)));
  const gone = new Set<string>();
  for (const plan of [data.destructive, data.safe]) for (const e of [...plan.entries, ...plan.smoke]) for (const id of e.parts ?? []) if (partsOf.get(e.key)?.has(id) !== true) gone.add(`${e.key} ${id}`);
  if (gone.size > 0) console.log(`(${values.before ?? ''}: ${gone.size} part(s) of its ranking no longer exist and are left out of its entries: ${[...gone].slice(0, 5).join(', ')}${gone.size > 5 ? ', …' : ''})`);
}

const before = values.before ? await beforeData(values.before) : undefined;
if (before) await sayGoneParts(before);
/** What the curves plot, per mode: one gate at each budget, and the rotated gates cumulatively. */
const curves: Record<PlanMode, { gate: Array<[number, Shares]>; rotation: Array<[number, Shares]> }> = { destructive: { gate: [], rotation: [] }, safe: { gate: [], rotation: [] } };
for (const mode of ['destructive', 'safe'] as const) {
  console.log(`\n${mode === 'safe' ? 'non-destructive' : 'destructive'}${strict ? ', strict' : ''}: one gate (slice 0)`);
  console.log('| budget | faults | class-weighted | key, acceptance, outcome faults |' + (before ? ' before: faults | before: class-weighted | before: key, acceptance, outcome |' : ''));
  console.log('|---|---|---|---|' + (before ? '---|---|---|' : ''));
  for (const budget of budgets) {
    const now = score(caught((await gate(mode, budget, 0)).planned, mode), mode);
    curves[mode].gate.push([budget, now.shares]);
    const then = before ? score(caught((await gate(mode, budget, 0, before)).planned, mode), mode) : undefined;
    console.log(`| ${budget} | ${now.faults} | ${now.classes} | ${now.roles} |${then ? ` ${then.faults} | ${then.classes} | ${then.roles} |` : ''}`);
  }
  console.log(`\n${mode === 'safe' ? 'non-destructive' : 'destructive'}${strict ? ', strict' : ''}: ${gates} rotated gates of ${gateBudget} (ISWC_SLICE 0 to ${gates - 1}), cumulative`);
  console.log('| gates | requests | faults tried | class-weighted | key, acceptance, outcome faults |');
  console.log('|---|---|---|---|---|');
  const union = new Set<string>();
  let requests = 0;
  for (let k = 0; k < gates; k += 1) {
    const g = await gate(mode, gateBudget, k);
    requests += g.requests;
    for (const f of caught(g.planned, mode)) union.add(f);
    const s = score(union, mode);
    curves[mode].rotation.push([requests, s.shares]);
    console.log(`| ${k + 1} | ${requests} | ${s.faults} | ${s.classes} | ${s.roles} |`);
  }
}

if (values.out) {
  const dir = path.resolve(values.out);
  mkdirSync(dir, { recursive: true });
  const panels = (pick: 'gate' | 'rotation'): Panel[] =>
    (['destructive', 'safe'] as const).map((mode) => ({
      title: `${mode === 'safe' ? 'non-destructive' : 'destructive'}${pick === 'rotation' ? `, gates of ${gateBudget}` : ', one gate'}`,
      series: [
        { label: 'class-weighted', color: '#1f5fbf', points: curves[mode][pick].map(([x, s]) => [x, s.classes] as const) },
        { label: 'members of the catalogue', color: '#888', dashed: true, points: curves[mode][pick].map(([x, s]) => [x, s.faults] as const) },
        { label: 'key faults', color: '#1a7f37', points: curves[mode][pick].map(([x, s]) => [x, s.key] as const) },
      ],
    }));
  const note = 'npm run plan:classes -- --out DIR: the committed measurement, lib/run/plans.generated.ts; in-sample';
  writeFileSync(path.join(dir, 'classes-one-gate.svg'), `${curvesSvg('faults caught by one gate (slice 0), against its budget', panels('gate'), { note })}\n`);
  writeFileSync(path.join(dir, 'classes-rotation.svg'), `${curvesSvg(`faults tried by rotated gates of ${gateBudget} (ISWC_SLICE 0, 1, …), cumulative, against the requests of all of them`, panels('rotation'), { note })}\n`);
  console.log(`\nwrote ${path.join(dir, 'classes-one-gate.svg')} and ${path.join(dir, 'classes-rotation.svg')}`);
}
