/**
 * npm run seeds [-- --count 20 --runs 100 --from 1]: the whole suite, properties and model test included,
 * against a fresh embedded reference server for each seed; prints one line per seed and exits non-zero
 * if any seed finds a failure (which would be a false alarm, or a bug in the reference server).
 */
import { parseArgs } from 'node:util';
import { runSuiteInProcess } from '../lib/engine/run-suite.ts';
import { loadProfile } from '../lib/profile/load.ts';
import { fromRoot } from '../lib/paths.ts';
import { EMBEDDED_KEY, startReferenceServer } from '../server/index.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '20' }, runs: { type: 'string', default: '100' }, from: { type: 'string', default: '1' }, strict: { type: 'boolean', default: true } } });
const count = Number(values.count);
const runs = Number(values.runs);
const from = Number(values.from);
const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
let bad = 0;
const started = Date.now();
for (let seed = from; seed < from + count; seed++) {
  const server = await startReferenceServer({ profile, key: EMBEDDED_KEY });
  const t = Date.now();
  const executions = await runSuiteInProcess({ baseUrl: server.url, key: EMBEDDED_KEY, profile, destructive: true, settings: { seed, runs, strict: values.strict } });
  await server.close();
  const failures = executions.filter((e) => e.verdict === 'fail');
  if (failures.length > 0) bad += 1;
  console.log(`seed ${seed}: ${executions.length} check executions, ${failures.length} failed (${Date.now() - t} ms)`);
  for (const f of failures.slice(0, 5)) console.log(`  ✗ ${f.checkId} ${f.caseId} ${f.step}: ${f.received ?? ''}`);
}
console.log(`${count - bad} passed, ${bad} failed: ${count} seeds at ISWC_RUNS=${runs}${values.strict ? ' (strict)' : ''} in ${Math.round((Date.now() - started) / 1000)} s`);
process.exitCode = bad > 0 ? 1 : 0;
