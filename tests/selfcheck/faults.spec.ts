import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, _baseTest as test } from '@playwright/test';
import { readConfig } from '../../lib/config/config.ts';
import { faultTable, selfCheck, unprovenChecks } from '../../lib/selfcheck/selfcheck.ts';
import type { FaultResult } from '../../lib/selfcheck/selfcheck.ts';
import { expectationDiff, expectationsOf, readExpectations } from '../../lib/selfcheck/fault-expectations.ts';
import { chunksOf, measuredCatchers } from '../../lib/selfcheck/targeted.ts';
import { readProofs } from '../../lib/selfcheck/fault-proofs.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { executionViolations } from '../../lib/report/validate.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { PLAN_DATA } from '../../lib/run/plans.generated.ts';
import { EMBEDDED_KEY, FAULTS, startReferenceServer } from '../../server/index.ts';
import { isBlind } from '../../server/choice-space.ts';
import { planInputs } from '../../scripts/plans.ts';
import { REQUEST_TIMEOUT_MS } from '../support/timeouts.ts';

test.describe.configure({ timeout: 10 * 60_000 });

/**
 * Principle 3: a check that cannot fail is a defect. The suite runs against each fault of the reference
 * server's catalogue (the clean server passes every check, strict: tests/selfcheck/choices.spec.ts's reference run) (each caught, the lenient
 * families of server/lenient.ts by the smoke plan, the others by the whole suite; a fault declared blind,
 * with its reason, by nothing), and every spec and http check must catch at least one fault. Which checks
 * catch which fault is pinned in tests/expectations/faults.json: any difference fails, and
 * `npm run expectations:update` rewrites it.
 *
 * For speed the catalogue is shared among the workers in CHUNKS tests, and each fault is run with its proof:
 * the fewest cases that showed its pinned checks (tests/expectations/fault-proofs.json, written by
 * `npm run expectations:update`). A fault whose proof shows otherwise is run with every case the committed
 * measurement says caught it (lib/selfcheck/targeted.ts), and then with its whole plan, which decides;
 * stale plan data, or ISWC_SELFCHECK_FULL=1, runs every fault with its whole plan.
 */
const CHUNKS = 6;
const PINNED_FILE = fromRoot('tests', 'expectations', 'faults.json');
const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));
const start = (faultId: string | null) => startReferenceServer({ profile, key: EMBEDDED_KEY, faults: faultId ? [faultId] : [] });
const options = { key: EMBEDDED_KEY, profile, timeoutMs: REQUEST_TIMEOUT_MS };
const WITHHELD_ANSWER_TIMEOUT_MS = 5_000;

/** Why every fault runs with its whole plan, or undefined when the measurement may choose the cases. */
async function wholePlansBecause(): Promise<string | undefined> {
  if (/^\s*1\s*$/.test(process.env.ISWC_SELFCHECK_FULL ?? '')) return 'ISWC_SELFCHECK_FULL=1';
  if (PLAN_DATA.fingerprint !== (await planInputs()).fingerprint) return 'lib/run/plans.generated.ts is stale (npm run generate)';
  return undefined;
}

test('every spec and http check is pinned as catching a fault, and every fault of the catalogue is pinned @selfcheck', () => {
  const pinned = readExpectations(PINNED_FILE);
  expect(Object.keys(pinned).sort(), 'faults of the catalogue against tests/expectations/faults.json (npm run expectations:update)').toEqual(FAULTS.map((f) => f.id).sort());
  // Each chunk proves its faults caught by exactly their pinned checks, so the pinned file is what was shown.
  const asResults = Object.entries(pinned).map(([id, e]) => ({ caughtBy: e.caughtBy, fault: { id, level: e.level, section: '', description: '' }, failures: e.caughtBy.length }));
  expect(unprovenChecks(asResults), 'checks that no fault makes fail').toEqual([]);
});

for (const [index, chunk] of chunksOf(FAULTS, CHUNKS).entries()) {
  test(`injected faults, part ${index + 1} of ${CHUNKS}: each caught by its pinned checks @selfcheck`, async ({}, testInfo) => {
    const pinned = readExpectations(PINNED_FILE);
    const whole = await wholePlansBecause();
    const proofs = readProofs();
    const catchers = whole === undefined ? measuredCatchers() : undefined;
    // A fault pinned as caught by http.answered withholds answers, each waited out for the request timeout:
    // its targeted run waits 5 s, not 30. Should a slow answer of a loaded machine read as none there, the
    // run differs from what is pinned, and its whole plan, at the generous timeout, decides.
    const withholds = (id: string) => (catchers && pinned[id]?.caughtBy.includes('http.answered') ? WITHHELD_ANSWER_TIMEOUT_MS : undefined);
    const differs = (r: FaultResult) => expectationDiff({ [r.fault.id]: pinned[r.fault.id] ?? { level: r.fault.level, caughtBy: [] } }, expectationsOf([r])).length > 0;
    const run = (faults: readonly FaultResult['fault'][], casesOf?: (id: string) => ReadonlySet<string>) => selfCheck(faults, start, { ...options, skipClean: true, ...(casesOf ? { casesOf, timeoutOf: withholds } : {}) });
    // Each fault first with its proof (the fewest cases that showed its pinned checks: tests/expectations/
    // fault-proofs.json), a fault without one with every case the measurement says catches it; where that
    // shows otherwise than what is pinned, the measurement's cases, and then the whole plan, decide.
    const hasProof = (id: string) => Array.isArray(proofs[id]);
    const first = catchers ? chunk.filter((f) => proofs[f.id] !== null || catchers.has(f.id)) : [];
    const firstIds = new Set(first.map((f) => f.id));
    const proven = (await run(first, (id) => new Set(proofs[id] ?? catchers?.get(id) ?? []))).results;
    const byProofDiffering = proven.filter((r) => differs(r) && hasProof(r.fault.id) && catchers?.has(r.fault.id));
    const byMeasurement = (await run(byProofDiffering.map((r) => r.fault), (id) => catchers?.get(id) ?? new Set())).results;
    const targeted = proven.map((r) => byMeasurement.find((x) => x.fault.id === r.fault.id) ?? r);
    const rest = [...targeted.filter(differs).map((r) => r.fault), ...chunk.filter((f) => !firstIds.has(f.id))];
    const rerun = (await run(rest)).results;
    const results: FaultResult[] = chunk.map((f) => rerun.find((x) => x.fault.id === f.id) ?? targeted.find((x) => x.fault.id === f.id)).filter((r): r is FaultResult => r !== undefined);
    const notes = [
      byMeasurement.length > 0 ? `proof out of date, run with the measurement's cases: ${byMeasurement.map((r) => r.fault.id).join(', ')} (npm run expectations:update -- --proofs)` : '',
      catchers && rest.length > 0 ? `run whole: ${rest.map((r) => r.id).join(', ')}` : '',
    ].filter((n) => n !== '');
    const note = whole ?? ['each with its proof', ...notes].join('; ');
    const table = `${faultTable(results)}\n(${note})`;
    process.stdout.write(`\nFault catalogue self-check, part ${index + 1} of ${CHUNKS} (fault -> catching checks):\n${table}\n`);
    await testInfo.attach('fault-table.txt', { body: table, contentType: 'text/plain' });
    writeCatalogue(index, results);

    // A fault declared blind (server/choice-space.ts, with its reason) is pinned caught by nothing; every other one is caught.
    expect(results.filter((r) => r.caughtBy.length === 0 && !isBlind(r.fault.id)).map((r) => r.fault.id), 'faults no check caught (and not declared blind)').toEqual([]);
    expect(results.filter((r) => r.caughtBy.length > 0 && isBlind(r.fault.id)).map((r) => r.fault.id), 'faults declared blind that a check now catches (take them out of BLIND_FAULTS)').toEqual([]);
    // What a fault's answer leaves in an execution (a transport error, a decoded body) is one a report can hold.
    const unwritable = results.flatMap((r) => (r.example ? executionViolations(JSON.parse(JSON.stringify(r.example))).map((v) => `${r.fault.id}: ${v}`) : []));
    expect(unwritable, 'executions of fault runs that schemas/report.schema.json refuses').toEqual([]);
    const mine = Object.fromEntries(chunk.flatMap((f) => (pinned[f.id] ? [[f.id, pinned[f.id]]] : [])));
    const changes = expectationDiff(mine, expectationsOf(results));
    expect(changes, 'differences from tests/expectations/faults.json (after a deliberate change: npm run expectations:update, and review the diff)').toEqual([]);
  });
}

/**
 * The report of the whole catalogue, test-reports/fault-catalogue.json: each part writes its own results,
 * and the part that finds all of them written joins them (parts run on different workers, in any order).
 */
function writeCatalogue(index: number, results: readonly FaultResult[]): void {
  // Parts of this run only: workers are children of the run's one runner process.
  const dir = path.join(readConfig().reportDir, 'fault-catalogue-parts', String(process.ppid));
  mkdirSync(dir, { recursive: true });
  const rows = results.map((r) => ({ fault: r.fault.id, level: r.fault.level, section: r.fault.section, caughtBy: r.caughtBy, failures: r.failures }));
  const part = path.join(dir, `${index}.json`);
  writeFileSync(`${part}.tmp`, JSON.stringify(rows));
  renameSync(`${part}.tmp`, part);
  const written = readdirSync(dir).filter((f) => /^\d+\.json$/.test(f));
  if (written.length < CHUNKS) return;
  const byId = new Map<string, unknown>();
  for (const f of written) for (const row of JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Array<{ fault: string }>) byId.set(row.fault, row);
  const all = FAULTS.flatMap((f) => (byId.has(f.id) ? [byId.get(f.id)] : []));
  const file = path.join(readConfig().reportDir, 'fault-catalogue.json');
  writeFileSync(`${file}.tmp`, `${JSON.stringify(all, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
