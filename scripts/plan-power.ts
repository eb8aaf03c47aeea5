/**
 * npm run plan:power [-- --plan smoke | --budget N]: how many faults of the reference server's catalogue
 * a plan catches, next to the requests it sends. The answer to "what does a small budget buy".
 */
import { parseArgs } from 'node:util';
import { faultTable, selfCheck } from '../lib/selfcheck.ts';
import type { PlanName } from '../lib/run/budget.ts';
import { loadProfile } from '../lib/contract/profile/load.ts';
import { fromRoot } from '../lib/paths.ts';
import { EMBEDDED_KEY, FAULTS, startReferenceServer } from '../server/index.ts';

const { values } = parseArgs({ options: { plan: { type: 'string', default: 'smoke' }, budget: { type: 'string' }, table: { type: 'boolean', default: false } } });
const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const plan = values.plan as PlanName;
const budget = values.budget === undefined ? undefined : Number(values.budget);
let requests = 0;
const { clean, results } = await selfCheck(
  FAULTS,
  async (faultId) => {
    const server = await startReferenceServer({ profile, key: EMBEDDED_KEY, faults: faultId ? [faultId] : [] });
    return { url: server.url, close: () => server.close() };
  },
  { key: EMBEDDED_KEY, profile, plan, ...(budget !== undefined ? { budget } : {}) },
);
requests = new Set(clean.filter((e) => e.verdict !== 'skip').map((e) => `${e.caseId}|${e.format}|${e.step}`)).size;
if (values.table) console.log(faultTable(results));
const caught = results.filter((r) => r.caughtBy.length > 0);
console.log(`plan ${plan}${budget !== undefined ? ` (budget ${budget})` : ''}: about ${requests} requests catch ${caught.length} of ${results.length} faults (${Math.round((caught.length / results.length) * 100)}%)`);
const missed = results.filter((r) => r.caughtBy.length === 0).map((r) => r.fault.id);
if (missed.length > 0) console.log(`missed: ${missed.join(', ')}`);
