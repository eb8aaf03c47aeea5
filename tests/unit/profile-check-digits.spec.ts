import { expect, _baseTest as test } from '@playwright/test';
import { checkDigitNotice } from '../../lib/contract/profile/findings.ts';
import { loadProfile } from '../../lib/contract/profile/load.ts';
import { fromRoot } from '../../lib/foundation/paths.ts';

/** A profile holding an ISWC whose check digit does not hold: the run says so once, at its start, with what to do. */

test('a profile whose check digits hold: nothing; one with a wrong digit: one line naming it, where it is, the digit it should end in and what to do', () => {
  const profile = loadProfile(fromRoot('fixtures/targets/readme-example.json'));
  expect(checkDigitNotice(profile, 'fixtures/targets/readme-example.json')).toEqual([]);
  const wrong = { ...profile, iswcs: ['T0345246802'], unknownIswcs: ['T9999999990'] };
  const lines = checkDigitNotice(wrong, 'staging-128.json');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toBe(
    '  warning: the profile staging-128.json holds 2 ISWCs whose check digits do not hold (ISO 15707): iswcs[0] T0345246802 (should end in 1), unknownIswcs[0] T9999999990 (should end in 4). A server that checks digits (production does) answers 400 where the run expects success or 404, and those checks fail for the profile, not the API: correct them (npx iswc-conformance profile check staging-128.json lists them)',
  );
});
