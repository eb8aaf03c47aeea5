import { expect, _baseTest as test } from '@playwright/test';
import { entriesText } from '../../lib/cli/commands/plan.ts';
import type { PlannedCase } from '../../lib/run/planned.ts';

/** The plan names the entries a case changes, never an empty list ("merges: ; demerges: ; submissions:"). */

test('a case that takes no entry of a kind leaves that kind out; one that takes none says nothing (the plan says why)', () => {
  const none = { entries: { merges: [], demerges: [], submissions: [] } } as unknown as Pick<PlannedCase, 'entries'>;
  expect(entriesText(none)).toBe('');
  const some = { entries: { merges: [{ preferredIswc: 'T3100000004' }], demerges: [], submissions: [{ preferredIswc: 'T3300000000' }, { preferredIswc: 'T3300000011' }] } } as unknown as Pick<PlannedCase, 'entries'>;
  expect(entriesText(some)).toBe('merges: T3100000004; submissions: T3300000000 T3300000011');
});
