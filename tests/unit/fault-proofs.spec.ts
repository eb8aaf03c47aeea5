import { expect, _baseTest as test } from '@playwright/test';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';
import { acrossFormats, allCatching, caseKeyOf, proofCover, readProofs } from '../../lib/selfcheck/fault-proofs.ts';
import { FAULTS } from '../../server/index.ts';
import { readExpectations } from '../../lib/selfcheck/fault-expectations.ts';

test('the cover takes the case that shows the most checks not yet shown, the earlier on a tie, until every check is shown', () => {
  const caughtIn = { a: ['x@json', 'y@json'], b: ['y@json', 'z@xml'], c: ['z@xml'], d: [] };
  expect(proofCover(caughtIn)).toEqual(['y@json', 'z@xml']);
  expect(proofCover({ a: ['x@json'], b: ['w@json'] })).toEqual(['x@json', 'w@json']);
  expect(proofCover({})).toEqual([]);
  expect(allCatching(caughtIn)).toEqual(['x@json', 'y@json', 'z@xml']);
});

test('across formats: each case in every format it is planned in, once', () => {
  const formats: Record<string, string[]> = { 'run.start-and-end': ['json', 'xml'], 'delete.identity': ['none'] };
  expect(acrossFormats(['run.start-and-end@xml', 'delete.identity@none'], (id) => formats[id] ?? [])).toEqual(['run.start-and-end@xml', 'delete.identity@none', 'run.start-and-end@json']);
});

test("an execution's planned case: its format, or none for a case planned without a body format (whose answers are JSON)", () => {
  const keyOf = caseKeyOf(loadProfile(fromRoot('fixtures', 'targets', 'embedded.json')));
  expect(keyOf({ caseId: 'delete.identity', format: 'json' })).toBe('delete.identity@none');
  expect(keyOf({ caseId: 'run.start-and-end', format: 'xml' })).toBe('run.start-and-end@xml');
});

test('the committed proofs name every fault of the catalogue, and a fault caught by nothing has nothing to run', () => {
  const proofs = readProofs();
  const pinned = readExpectations(fromRoot('tests', 'expectations', 'faults.json'));
  expect(Object.keys(proofs).sort(), 'tests/expectations/fault-proofs.json against the catalogue (npm run expectations:update -- --proofs)').toEqual(FAULTS.map((f) => f.id).sort());
  for (const [id, proof] of Object.entries(proofs)) if (pinned[id]?.caughtBy.length === 0) expect(proof, id).toEqual([]);
});
