/**
 * npm run plan:heldout [-- --folds 5 --repeats 20 --budgets 15,30,60,100,150,250 --seed 1 --spec-only --steer --out DIR]
 *
 * How well the ranking generalises to faults it was never measured on (scripts/plans/heldout.ts): each
 * fold of the catalogue ranked from the others and scored on itself, at each budget, next to the ranking
 * measured on the whole catalogue (in-sample). --steer measures the steering of a budget
 * (lib/run/steer.ts) on targets with a trait the run learns. --out writes the curves of faults caught
 * against requests (plans.svg) and the tables (plans.html). Reads the committed measurement
 * (lib/run/plans.generated.ts); sends nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { fromRoot } from '../lib/foundation/paths.ts';
import { PLAN_DATA } from '../lib/run/plans.generated.ts';
import { scriptArgs } from './args.ts';
import { heldoutScores, STEER_TARGETS } from './plans/heldout.ts';
import type { HeldoutRow } from './plans/heldout.ts';
import { curvesSvg } from './plans/plot.ts';
import type { Panel } from './plans/plot.ts';

const values = scriptArgs(
  `Usage: npm run plan:heldout [-- --folds 5 --repeats 20 --budgets 15,30,60,100,150,250 --seed 1 --spec-only --steer --out DIR]

Scores the plan ranking on faults it was never measured on: the catalogue is split into --folds folds
(--repeats shuffles), each fold ranked from the others and scored on itself at each budget, next to the
ranking on the whole catalogue (in-sample). --spec-only scores spec faults only. --steer also scores the
steering of a budget, without and with it: on the reference server (only observations already recorded
steer there), on a target that serves no XML and on one that looks the preferred ISWC up first.
--out DIR writes DIR/plans.svg (faults caught against requests, each mode, held-out and in-sample) and
DIR/plans.html (the plots and the tables; with --steer, DIR/plans-steered-TARGET.svg too). Reads the
committed measurement (lib/run/plans.generated.ts); sends nothing.`,
  {
    folds: { type: 'string', default: '5' },
    repeats: { type: 'string', default: '20' },
    budgets: { type: 'string', default: '15,30,60,100,150,250' },
    seed: { type: 'string', default: '1' },
    'spec-only': { type: 'boolean', default: false },
    steer: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
);

const folds = Number(values.folds);
const repeats = Number(values.repeats);
const budgets = values.budgets.split(',').map(Number);
if (!Number.isInteger(folds) || folds < 2 || !Number.isInteger(repeats) || repeats < 1 || budgets.some((b) => !Number.isInteger(b) || b < 1)) {
  process.stderr.write('--folds must be an integer ≥ 2, --repeats ≥ 1, --budgets positive integers; see npm run plan:heldout -- --help\n');
  process.exit(2);
}

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const targets = values.steer ? STEER_TARGETS : STEER_TARGETS.filter((t) => t.id === 'reference');
const specOnly = values['spec-only'];
const rows = await heldoutScores(profile, PLAN_DATA, { folds, repeats, budgets, seed: Number(values.seed), specOnly, targets });

const pct = (n: { caught: number; total: number }): string => `${n.caught}/${n.total} (${((n.caught / Math.max(1, n.total)) * 100).toFixed(1)}%)`;
const modeName = (mode: HeldoutRow['mode']): string => (mode === 'destructive' ? 'destructive' : 'non-destructive');
const faults = Object.keys(PLAN_DATA.faults).filter((f) => !specOnly || PLAN_DATA.faults[f] === 'spec').length;
console.log(`${faults} faults${specOnly ? ' (spec only)' : ''}, ${folds} folds × ${repeats} shuffles; ranking measured on the other folds, scored on the held-out one`);
for (const target of targets) {
  const ofTarget = rows.filter((r) => r.target === target.id);
  if (values.steer) console.log(`\n${target.label}`);
  if (!values.steer) {
    console.log(`${'mode'.padEnd(16)}${'budget'.padStart(7)}  ${'held-out'.padEnd(20)}${'in-sample'.padEnd(20)}${'requests'.padEnd(10)}spec checks`);
    for (const r of ofTarget) console.log(`${modeName(r.mode).padEnd(16)}${String(r.budget).padStart(7)}  ${pct(r.held).padEnd(20)}${pct(r.inSample).padEnd(20)}${String(r.requests).padEnd(10)}${r.specChecks}`);
  } else {
    console.log(`${'mode'.padEnd(16)}${'budget'.padStart(7)}  ${'held-out'.padEnd(20)}${'steered'.padEnd(20)}${'in-sample'.padEnd(20)}${'steered'.padEnd(20)}spec checks (steered)`);
    for (const r of ofTarget) {
      console.log(
        `${modeName(r.mode).padEnd(16)}${String(r.budget).padStart(7)}  ${pct(r.held).padEnd(20)}${(r.heldSteered ? pct(r.heldSteered) : '-').padEnd(20)}${pct(r.inSample).padEnd(20)}${(r.inSampleSteered ? pct(r.inSampleSteered) : '-').padEnd(20)}${r.specChecks} (${r.specChecksSteered ?? '-'})`,
      );
    }
  }
}

if (values.out !== undefined) {
  const dir = path.resolve(values.out);
  mkdirSync(dir, { recursive: true });
  const share = (n: { caught: number; total: number }): number => (n.caught / Math.max(1, n.total)) * 100;
  const modes: HeldoutRow['mode'][] = ['destructive', 'safe'];
  const reference = rows.filter((r) => r.target === 'reference');
  const panels: Panel[] = modes.map((mode) => ({
    title: `${modeName(mode)} run: of the ${reference.find((r) => r.mode === mode)?.inSample.total ?? 0} ${specOnly ? 'spec faults' : 'faults'} it can catch`,
    series: [
      { label: 'held-out (five folds)', color: '#1f5fbf', points: reference.filter((r) => r.mode === mode).map((r) => [r.budget, share(r.held)] as const) },
      { label: 'in-sample', color: '#888', dashed: true, points: reference.filter((r) => r.mode === mode).map((r) => [r.budget, share(r.inSample)] as const) },
    ],
  }));
  const kind = specOnly ? 'spec faults' : 'faults';
  const svgs = [curvesSvg(`${kind} caught against requests (${faults} ${kind} in the catalogue; held-out: ranked without the fold)`, panels, { target: 90, note: 'npm run plan:heldout: the committed measurement, lib/run/plans.generated.ts' })];
  for (const target of targets.filter((t) => values.steer && t.id !== 'reference')) {
    const ofTarget = rows.filter((r) => r.target === target.id);
    svgs.push(
      curvesSvg(
        `steering on ${target.label}: held-out ${kind}, without and with`,
        modes.map((mode) => ({
          title: `${modeName(mode)} run`,
          series: [
            { label: 'held-out, steered', color: '#1a7f37', points: ofTarget.filter((r) => r.mode === mode).map((r) => [r.budget, share(r.heldSteered ?? r.held)] as const) },
            { label: 'held-out, not steered', color: '#1f5fbf', dashed: true, points: ofTarget.filter((r) => r.mode === mode).map((r) => [r.budget, share(r.held)] as const) },
          ],
        })),
        { target: 90 },
      ),
    );
  }
  writeFileSync(path.join(dir, 'plans.svg'), `${svgs[0]}\n`);
  targets
    .filter((t) => t.id !== 'reference')
    .forEach((t, i) => writeFileSync(path.join(dir, `plans-steered-${t.id}.svg`), `${svgs[i + 1] ?? ''}\n`));
  const table = (target: (typeof targets)[number]): string => {
    const ofTarget = rows.filter((r) => r.target === target.id);
    const steer = values.steer;
    const head = ['mode', 'budget', 'held-out', ...(steer ? ['held-out, steered'] : []), 'in-sample', ...(steer ? ['in-sample, steered'] : []), 'requests', 'spec checks'];
    const cells = ofTarget.map((r) => [modeName(r.mode), String(r.budget), pct(r.held), ...(steer ? [r.heldSteered ? pct(r.heldSteered) : '-'] : []), pct(r.inSample), ...(steer ? [r.inSampleSteered ? pct(r.inSampleSteered) : '-'] : []), String(r.requests), `${r.specChecks}${r.specChecksSteered !== undefined ? ` (${r.specChecksSteered} steered)` : ''}`]);
    return `<h2>${target.label}</h2>\n<table><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr>\n${cells.map((c) => `<tr>${c.map((x) => `<td>${x}</td>`).join('')}</tr>`).join('\n')}</table>`;
  };
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>iswc-conformance: faults caught against requests</title>',
    '<style>body{font-family:system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 24px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}svg{max-width:100%;height:auto}</style></head><body>',
    `<h1>Faults caught against requests</h1><p>${faults} ${kind} of the catalogue, ${folds} folds × ${repeats} shuffles (seed ${values.seed}): held-out is the share of a fold's faults a budget catches when the cases are ranked without that fold; in-sample, ranked on the whole catalogue. From the committed measurement (lib/run/plans.generated.ts); nothing was sent.</p>`,
    ...svgs,
    ...targets.map(table),
    '</body></html>',
  ].join('\n');
  writeFileSync(path.join(dir, 'plans.html'), `${html}\n`);
  console.log(`\nwrote ${path.join(dir, 'plans.svg')} and ${path.join(dir, 'plans.html')}`);
}
