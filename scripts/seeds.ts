/**
 * npm run seeds [-- --count 20 --runs 100 --from 1 --choices all]: the whole suite, properties and model
 * test included, against a fresh embedded reference server for each seed and each choice set (the
 * reference choices and every other set of legitimate choices on points the document leaves open);
 * prints one line per seed and set, and exits non-zero if any finds a failure (a false alarm, or a bug in
 * the reference server).
 */
import { scriptArgs } from './args.ts';
import { runSuiteInProcess } from '../lib/engine/pipeline.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { fromRoot } from '../lib/foundation/paths.ts';
import { CHOICE_SETS, EMBEDDED_KEY, profileForChoiceSet, startReferenceServer } from '../server/index.ts';
import type { ChoiceSetName } from '../server/index.ts';

const values = scriptArgs(
  `Usage: npm run seeds [-- --count 20 --runs 100 --from 1 --choices all|SET,SET] [--no-strict]

Runs the whole suite (properties and model test included) for --count seeds from --from, against a fresh
embedded reference server per seed and per set of legitimate choices (--choices: all, or a list of
${Object.keys(CHOICE_SETS).join(', ')}). Strict by default. Prints one line per seed and set; exits 1 when
any finds a failure (a false alarm, or a bug of the reference server), 2 on bad usage.`,
  {
    count: { type: 'string', default: '20' },
    runs: { type: 'string', default: '100' },
    from: { type: 'string', default: '1' },
    choices: { type: 'string', default: 'all' },
    'no-strict': { type: 'boolean', default: false },
  },
);
const count = Number(values.count);
const runs = Number(values.runs);
const from = Number(values.from);
const sets = (values.choices === 'all' ? Object.keys(CHOICE_SETS) : values.choices.split(',')) as ChoiceSetName[];
for (const set of sets) if (!(set in CHOICE_SETS)) throw new Error(`unknown choice set ${set}; known: ${Object.keys(CHOICE_SETS).join(', ')}`);
const embeddedProfile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
let bad = 0;
let total = 0;
const started = Date.now();
for (const set of sets) {
  for (let seed = from; seed < from + count; seed++) {
    total += 1;
    const profile = profileForChoiceSet(embeddedProfile, set);
    const server = await startReferenceServer({ profile, key: EMBEDDED_KEY, choices: set });
    const t = Date.now();
    const executions = await runSuiteInProcess({ baseUrl: server.url, key: EMBEDDED_KEY, profile, destructive: true, settings: { seed, runs, strict: !values['no-strict'] } });
    await server.close();
    const failures = executions.filter((e) => e.verdict === 'fail');
    if (failures.length > 0) bad += 1;
    console.log(`${set} seed ${seed}: ${executions.length} check executions, ${failures.length} failed (${Date.now() - t} ms)`);
    for (const f of failures.slice(0, 5)) console.log(`  ✗ ${f.checkId} ${f.caseId} ${f.step}: ${f.received ?? ''}`);
  }
}
console.log(`${total - bad} passed, ${bad} failed: ${count} seeds × ${sets.length} choice sets (${sets.join(', ')}) at ISWC_RUNS=${runs}${values['no-strict'] ? '' : ' (strict)'} in ${Math.round((Date.now() - started) / 1000)} s`);
process.exitCode = bad > 0 ? 1 : 0;
