/**
 * Measuring again only what changed (npm run generate:plans). A case's measurement rests on two things:
 * what it sends and asks of each answer (its dry-run digest, lib/run/dry-run.ts CaseShape.digest), and
 * everything that runs and judges it: the harness, the reference server with its faults and choices, the
 * schemas and the profile (the harness fingerprint below). When the fingerprint is the one the committed
 * data was measured with, only the cases whose digest changed (or that are new) are measured again,
 * against every fault and choice set, and only the faults that are new (or changed level) against every
 * case; everything else is kept from the committed data. Any other change measures everything, and so
 * does `--full`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { filesFingerprint } from '../../lib/run/shape-cache.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import type { Catches, PartCatches, PlanMode } from '../../lib/run/plan-rank.ts';
import { importClosure } from './import-closure.ts';

/** What the committed measurement was taken with (PlanData.measuredWith). */
export interface MeasuredWith {
  /** measurementFingerprint() at the time. */
  harness: string;
  /** Case key → its dry-run digest. */
  cases: Readonly<Record<string, string>>;
}

/** What the measurement runs: scripts/plans.ts, in this process and in each of its children. */
const MEASUREMENT_ENTRY = 'scripts/plans.ts';
/**
 * What it reads besides its code: the schemas, the fixtures (profiles), data beside the code (generated
 * JSON, compiled schemas) and the packages. Code under lib/ and server/ counts only where the measurement
 * imports it (importClosure): a change to the reports, the command line or the Playwright engine measures
 * nothing again.
 */
const READ_PATHS = ['schemas', 'fixtures', 'package-lock.json'];
const DATA_BESIDE_CODE = ['lib', 'server'];
/**
 * Left out: the case definitions and scenarios (what they send is in each case's digest), the ranking
 * and its output (ranked again from the measurement in a second), and the schemas of the reports a run
 * writes with their compiled validators (the measurement writes and reads no report; no file it imports
 * names them).
 */
const NOT_MEASURED = [
  'lib/generate/',
  'fixtures/scenarios/',
  'lib/run/plans.generated.ts',
  'lib/run/plan-rank.ts',
  // The classes of faults the ranking weighs (issue 37): what a case catches does not depend on them.
  'lib/run/fault-classes.ts',
  // The readings' and decisions' texts (docs/readings.md): a check names its reading, and no verdict reads the text.
  'lib/check/readings.ts',
  'schemas/report.schema.json',
  'schemas/client-report.schema.json',
  'lib/report/report-schema.generated.cjs',
  'lib/report/client/client-report-schema.generated.cjs',
];

/** The files a measurement depends on beyond the cases' own requests, relative to `root`. */
export function measuredFiles(root = fromRoot()): string[] {
  const code = importClosure(root, [MEASUREMENT_ENTRY]);
  const data = DATA_BESIDE_CODE.flatMap((dir) => filesUnder(root, dir)).filter((rel) => !SOURCE_FILE.test(rel));
  const read = READ_PATHS.flatMap((p) => filesUnder(root, p));
  return [...new Set([...code, ...data, ...read])].filter((rel) => !NOT_MEASURED.some((x) => rel === x || rel.startsWith(x))).sort();
}

const SOURCE_FILE = /\.(ts|mts|cts|js|mjs)$/;

/** The files under `rel` (or `rel` itself), relative to `root` with `/`; none when it does not exist. */
function filesUnder(root: string, rel: string): string[] {
  const full = path.join(root, rel);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [rel];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)).split(path.sep).join('/'));
}

/** A hash of what the measurement depends on (measuredFiles): the committed data was measured with it. */
export function measurementFingerprint(root = fromRoot()): string {
  return filesFingerprint(root, measuredFiles(root));
}

export interface Committed {
  measuredWith?: MeasuredWith;
  seeds: readonly number[];
  runs: number;
  faults: Readonly<Record<string, string>>;
  choiceSets: readonly string[];
}

export interface Now {
  measuredWith: MeasuredWith;
  seeds: readonly number[];
  runs: number;
  faults: Readonly<Record<string, string>>;
  choiceSets: readonly string[];
}

/** What to measure again: cases (keys) against everything, faults against every case. */
export interface Delta {
  cases: string[];
  faults: string[];
}

/** The delta from the committed measurement, or why everything is measured again. */
export function measurementDelta(committed: Committed | undefined, now: Now): Delta | { full: string } {
  if (!committed?.measuredWith) return { full: 'the committed data does not say what it was measured with' };
  if (committed.measuredWith.harness !== now.measuredWith.harness) return { full: 'the harness, the reference server, the schemas or the fixtures changed' };
  if (JSON.stringify(committed.seeds) !== JSON.stringify(now.seeds) || committed.runs !== now.runs) return { full: 'the seeds or the runs changed' };
  if ([...committed.choiceSets].sort().join() !== [...now.choiceSets].sort().join()) return { full: 'the choice sets changed' };
  const cases = Object.entries(now.measuredWith.cases)
    .filter(([key, digest]) => committed.measuredWith?.cases[key] !== digest)
    .map(([key]) => key)
    .sort();
  const faults = Object.entries(now.faults)
    .filter(([id, level]) => committed.faults[id] !== level)
    .map(([id]) => id)
    .sort();
  return { cases, faults };
}

type ByMode<T> = Readonly<Record<PlanMode, Readonly<Record<string, T>>>>;

/**
 * The committed catches with what was measured again laid over them: a case measured again, and a fault
 * measured again, keep nothing of before; a case or fault that is gone is dropped.
 */
export function mergeCatches<T extends Catches | PartCatches>(previous: ByMode<T>, measured: ByMode<T>, delta: Delta, keys: ReadonlySet<string>, faults: ReadonlySet<string>): Record<PlanMode, Record<string, T>> {
  const again = new Set(delta.cases);
  const newFaults = new Set(delta.faults);
  const out: Record<PlanMode, Record<string, T>> = { destructive: {}, safe: {} };
  for (const mode of ['destructive', 'safe'] as const) {
    for (const [key, caught] of Object.entries(previous[mode])) {
      if (!keys.has(key) || again.has(key)) continue;
      const kept = Object.fromEntries(Object.entries(caught).filter(([fault]) => faults.has(fault) && !newFaults.has(fault)));
      if (Object.keys(kept).length > 0) out[mode][key] = kept as T;
    }
    for (const [key, caught] of Object.entries(measured[mode])) {
      if (!keys.has(key)) continue;
      const fresh = Object.fromEntries(Object.entries(caught).filter(([fault]) => faults.has(fault) && (again.has(key) || newFaults.has(fault))));
      if (Object.keys(fresh).length > 0) out[mode][key] = { ...out[mode][key], ...fresh };
    }
  }
  return out;
}

/** The committed false alarms (of sets red in the self-check) of cases not measured again, with the new ones. */
export function mergeFalseAlarms(previous: Readonly<Record<string, readonly string[]>>, measured: Readonly<Record<string, readonly string[]>>, delta: Delta, keys: ReadonlySet<string>): Record<string, string[]> {
  const again = new Set(delta.cases);
  const out: Record<string, string[]> = {};
  for (const [set, list] of Object.entries(previous)) {
    const kept = list.filter((key) => keys.has(key) && !again.has(key));
    if (kept.length > 0) out[set] = [...kept];
  }
  for (const [set, list] of Object.entries(measured)) out[set] = [...(out[set] ?? []), ...list.filter((key) => again.has(key))];
  return out;
}
