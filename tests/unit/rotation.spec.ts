/**
 * Breadth first and rotation (issue 37), on the committed measurement (lib/run/plans.generated.ts): what a
 * budget's plan catches is read from what each case caught there; no server is started.
 */
import { caughtByPlanned } from '../../lib/run/plan-catches.ts';
import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { planSuite } from '../../lib/run/plan.ts';
import type { PlannedCase } from '../../lib/run/plan.ts';
import { entryRequests } from '../../lib/run/plan-rank.ts';
import { PLAN_DATA } from '../../lib/run/plans.generated.ts';
import { faultClass } from '../../lib/run/fault-classes.ts';

const profile = loadProfile(fromRoot('fixtures', 'targets', 'embedded.json'));

const caught = caughtByPlanned;

const sent = (planned: readonly PlannedCase[]): number => planned.filter((p) => p.skipReason === undefined).reduce((n, p) => n + entryRequests(p, p.runs, p.parts), 0);

/**
 * The key faults of the catalogue: missing, wrong and compared loosely (empty, another letter case, a near
 * miss), per operation, the end of a run and a merge of ISWCs alone included. Every budget of 30 or more
 * proves every one a mode can show, in every slice (issue 37): the wrong keys of the operations' key
 * proofs are near misses, the end of a run refused without the key costs three requests, and the restoring
 * merge proves the key on its first work and on the entry's ISWCs alone.
 */
const NAMED_KEY_FAULTS = {
  destructive: ['auth-missing-run', 'auth-missing-run-end', 'auth-missing-merge', 'merge-key-works-only', 'auth-missing-delete', 'auth-missing-demerge', 'auth-wrong-key-accepted', 'merge-wrong-key-accepted', 'delete-wrong-key-accepted', 'demerge-wrong-key-accepted', 'empty-key-accepted', 'data-empty-key-accepted', 'key-case-insensitive', 'auth-after-action', 'merge-auth-after-action'],
  // A non-destructive run proves the key on the run notification only: on merge, delete and demerge a key is
  // shown checked only by a request that would succeed with it, on data that exists, and that request
  // changes the data (a refusal of data that does not exist may be its 404, not the key's 401).
  safe: ['auth-missing-run', 'auth-missing-run-end', 'auth-wrong-key-accepted', 'empty-key-accepted', 'key-case-insensitive'],
} as const;
const NEAR_MISS = ['lenient.key.truncate', 'lenient.key.prefix', 'lenient.key.last-char', 'lenient.key.strip-separators', 'lenient.key.suffix'];
/** Every key fault some case of the mode caught in the measurement (lib/run/fault-classes.ts: class key/…). */
const keyFaultsOf = (mode: 'destructive' | 'safe'): string[] => [...new Set(Object.values(PLAN_DATA.catches[mode]).flatMap((c) => Object.keys(c)))].filter((f) => faultClass(f).startsWith('key/')).sort();

for (const mode of ['destructive', 'safe'] as const) {
  for (const budget of [30, 60]) {
    test(`a ${mode === 'safe' ? 'non-destructive' : 'destructive'} budget of ${budget} proves every key fault of the catalogue it can show, in every slice of its rotation`, async () => {
      const wanted = keyFaultsOf(mode);
      // The classes name them all: what the test demands cannot shrink unseen.
      expect(wanted).toEqual(expect.arrayContaining([...NAMED_KEY_FAULTS[mode], ...NEAR_MISS]));
      for (const slice of [0, 1, 2, 7]) {
        const planned = await planSuite(profile, { destructive: mode === 'destructive', runs: 100, budget, slice });
        expect(sent(planned)).toBeLessThanOrEqual(budget);
        const got = caught(planned, mode);
        expect(wanted.filter((f) => !got.has(f)), `slice ${slice}`).toEqual([]);
      }
    });
  }
}

for (const mode of ['destructive', 'safe'] as const) {
  for (const strict of [false, true]) {
  test(`eight rotated ${mode === 'safe' ? 'non-destructive' : 'destructive'} gates of 60${strict ? ', strict,' : ''} together try every fault the smoke plan catches that can fail them, each within its budget`, async () => {
    // Without --strict a fault only http checks catch fails no run: its gates walk the ranking of the rest.
    const smoke = new Set([...caught(await planSuite(profile, { destructive: mode === 'destructive', runs: 100, plan: 'smoke' }), mode)].filter((f) => strict || PLAN_DATA.faults[f] !== 'http'));
    const union = new Set<string>();
    const slices = [];
    for (let slice = 0; slice < 8; slice += 1) {
      const planned = await planSuite(profile, { destructive: mode === 'destructive', runs: 100, budget: 60, slice, strict });
      expect(sent(planned)).toBeLessThanOrEqual(60);
      for (const f of caught(planned, mode)) union.add(f);
      slices.push(planned.filter((p) => p.skipReason === undefined).map((p) => p.key).sort().join(' '));
    }
    expect([...smoke].filter((f) => !union.has(f))).toEqual([]);
    // Consecutive slices take different cases; the same slice asked again is the same (a slice can be replayed).
    expect(new Set(slices).size).toBe(8);
    const again = await planSuite(profile, { destructive: mode === 'destructive', runs: 100, budget: 60, slice: 3, strict });
    expect(again.filter((p) => p.skipReason === undefined).map((p) => p.key).sort().join(' ')).toBe(slices[3]);
  });
  }
}
