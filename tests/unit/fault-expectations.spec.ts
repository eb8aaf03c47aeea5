import { expect, _baseTest as test } from '@playwright/test';
import { clientExpectationDiff } from '../../examples/agency-client/expectations.ts';
import { expectationDiff } from '../../lib/selfcheck/fault-expectations.ts';

/** The pinned fault files are the review of every change in what catches what: their diff must say it all. */

test('expectationDiff: a new, a gone, a moved and a relevelled fault, one line each in words; none when they agree', () => {
  const pinned = { a: { level: 'spec' as const, caughtBy: ['x', 'y'] }, b: { level: 'spec' as const, caughtBy: ['x'] }, c: { level: 'http' as const, caughtBy: ['z'] } };
  const actual = { a: { level: 'http' as const, caughtBy: ['y', 'w'] }, c: { level: 'http' as const, caughtBy: [] }, d: { level: 'spec' as const, caughtBy: ['x'] } };
  expect(expectationDiff(pinned, actual)).toEqual([
    '~ a: now also caught by w',
    '~ a: no longer caught by x',
    '~ a: level spec -> http',
    '- b: pinned, but no longer in the catalogue',
    '~ c: no longer caught by z (NOT CAUGHT AT ALL)',
    '+ d: a new fault, caught by x',
  ]);
  expect(expectationDiff(pinned, pinned)).toEqual([]);
});

test('clientExpectationDiff: the same words, plus the session\'s exit code; a fault no longer run says so', () => {
  const pinned = { slow: { level: 'http', exitCode: 0, caughtBy: ['client.retries-bounded'] }, gone: { level: 'spec', exitCode: 1, caughtBy: ['client.key'] } };
  const actual = { slow: { level: 'spec', exitCode: 1, caughtBy: ['client.retries-bounded'] } };
  expect(clientExpectationDiff(pinned, actual)).toEqual(['- gone: pinned, but no longer run', '~ slow: the session exits 1, pinned 0', '~ slow: level http -> spec']);
  expect(clientExpectationDiff(actual, actual)).toEqual([]);
});
